"""Operator command for the leads table: list, retry and export (``python -m agency_site.leads``).

It uses the same environment as the site (``REFLEX_DB_URL``, ``EMAILJS_*``) and is
safe to run next to live backend workers: leads are claimed atomically.
"""

import argparse
import asyncio
import csv
import sys
from collections.abc import Sequence
from typing import TextIO

from agency_site.leads.delivery import Delivery
from agency_site.leads.kinds import LeadStatus
from agency_site.leads.models import Lead

EXPORT_FIELDS = ("name", "email", "phone", "date", "time", "message")
EXPORT_COLUMNS = (
    "id",
    "created_at",
    "kind",
    "status",
    "attempts",
    "sent_at",
    "last_error",
    *EXPORT_FIELDS,
)
# A cell starting with one of these is a formula to a spreadsheet (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agency_site.leads",
        description="Inspect, retry and export the leads the site's forms collected.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="show the leads and their delivery status")
    listing.add_argument("--status", choices=[s.value for s in LeadStatus])
    retry = commands.add_parser(
        "retry", help="send queued and held leads now (all, or the given ids)"
    )
    retry.add_argument("ids", nargs="*", type=int, metavar="ID")
    export = commands.add_parser("export", help="write the leads as CSV")
    export.add_argument("--status", choices=[s.value for s in LeadStatus])
    export.add_argument("-o", "--output", help="CSV file to write (default: standard output)")
    return parser


def _when(lead_time) -> str:
    """A timestamp for people: UTC, to the second."""
    return lead_time.strftime("%Y-%m-%d %H:%M:%S UTC") if lead_time else "-"


def _list(delivery: Delivery, status: str | None, out: TextIO) -> int:
    leads = delivery.store.all(LeadStatus(status) if status else None)
    if not leads:
        print("No leads.", file=out)
        return 0
    print(f"{'ID':>5}  {'CREATED':23}  {'KIND':8} {'STATUS':8} {'TRIES':>5}  CONTACT", file=out)
    for lead in leads:
        contact = lead.fields.get("email", "")
        line = (
            f"{lead.id:>5}  {_when(lead.created_at):23}  {lead.kind:8} {lead.status:8} "
            f"{lead.attempts:>5}  {contact}"
        )
        if lead.status != LeadStatus.SENT and lead.last_error:
            line += f"  [{lead.last_error[:80]}]"
        print(line, file=out)
    return 0


def _retry(delivery: Delivery, ids: Sequence[int], out: TextIO) -> int:
    if not delivery.configured:
        print("E-mail delivery is not configured: set the EMAILJS_* variables.", file=out)
        return 2
    due = delivery.store.make_due(ids)
    delivered = asyncio.run(delivery.retry_due(limit=max(due, 1)))
    left = delivery.store.count(LeadStatus.QUEUED) + delivery.store.count(LeadStatus.HELD)
    print(f"{delivered} of {due} lead(s) delivered; {left} still waiting.", file=out)
    return 0 if delivered == due else 1


def _cell(value: object) -> str:
    """A CSV cell that a spreadsheet shows as text, never runs as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _row(lead: Lead) -> list[str]:
    return [
        _cell(value)
        for value in (
            lead.id,
            lead.created_at.isoformat() if lead.created_at else "",
            lead.kind,
            lead.status,
            lead.attempts,
            lead.sent_at.isoformat() if lead.sent_at else "",
            lead.last_error,
            *(lead.fields.get(name, "") for name in EXPORT_FIELDS),
        )
    ]


def _export(delivery: Delivery, status: str | None, output: str | None, out: TextIO) -> int:
    leads = delivery.store.all(LeadStatus(status) if status else None)
    if output:
        with open(output, "w", newline="", encoding="utf-8") as file:
            _write_csv(leads, file)
        print(f"{len(leads)} lead(s) written to {output}.", file=out)
    else:
        _write_csv(leads, out)
    return 0


def _write_csv(leads: list[Lead], file: TextIO) -> None:
    writer = csv.writer(file)
    writer.writerow(EXPORT_COLUMNS)
    writer.writerows(_row(lead) for lead in leads)


def run(argv: Sequence[str], delivery: Delivery, out: TextIO) -> int:
    """Run one operator command against ``delivery`` (its store and EmailJS client)."""
    args = _parser().parse_args(argv)
    if args.command == "list":
        return _list(delivery, args.status, out)
    if args.command == "retry":
        return _retry(delivery, args.ids, out)
    return _export(delivery, args.status, args.output, out)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: the site's database (migrated first) and EmailJS settings."""
    from agency_site.leads import migrations
    from agency_site.leads.runtime import configure_logging, intake

    configure_logging()
    delivery = intake().delivery
    migrations.upgrade(delivery.store.engine)
    return run(sys.argv[1:] if argv is None else argv, delivery, sys.stdout)

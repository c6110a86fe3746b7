"""Operator command for the leads table (``python -m agency_site.leads``).

``list``, ``retry`` and ``export`` for the daily work (``list`` notes each lead's webhooks,
``retry`` sends the webhooks too and resumes paused endpoints); ``purge``, ``find`` and
``erase`` for the RGPD: the retention period of the privacy policy and the rights of
access and erasure (each erasure is also written to the erasure log, which
``deploy restore`` re-applies after putting a backup back; ``find``, ``erase`` and ``purge``
also cover this host's spool folder); ``spool`` shows the leads waiting on this host's
disk for the database, and the lines the drain set aside; ``spam`` lists the leads taken
for spam, each with its reason, and counts as showing them to the owner (each is deleted
``LEADS_SPAM_KEEP_DAYS`` after it was first shown), ``not-spam`` sends one. The
plugins add their own commands (``LeadPlugin.commands``: the bookings' ``confirm``,
``decline`` and ``cancel``, which answer a booking as its e-mail's buttons do). It
uses the same environment as the site (``REFLEX_DB_URL``,
``EMAILJS_*``, ``LEADS_*``) and is safe to run next to live backend workers: leads are
claimed atomically.

Files with personal data (``export``, ``find -o``) are written outside the site
folder (``LEADS_EXPORT_DIR``), never into it: ``reflex export`` packs that folder into
``backend.zip``.
"""

import argparse
import asyncio
import csv
import datetime as dt
import json
import os
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TextIO

from agency_site.forms.declarations import export_fields
from agency_site.leads import erasures
from agency_site.leads import source as lead_source
from agency_site.leads.delivery import Delivery
from agency_site.leads.models import Lead, utcnow
from agency_site.leads.monitor import retention_cutoff
from agency_site.leads.plugins import Plugins
from agency_site.leads.rgpd import mark_spam_listed
from agency_site.leads.spam.screen import quarantine_note
from agency_site.leads.spool import QUARANTINE, SUFFIX, TORN, Spool, SpooledLead
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.webhooks import queue as webhook_queue
from agency_site.leads.webhooks.channel import WebhookChannel
from agency_site.settings import ROOT, get_settings

# The forms' fields (their declarations say which), each once.
EXPORT_FIELDS = export_fields()
EXPORT_COLUMNS = (
    "id",
    "created_at",
    "kind",
    "status",
    "attempts",
    "sent_at",
    "last_error",
    *EXPORT_FIELDS,
    "source",
    "language",
    "notes",  # The plugins' note of the lead (``lead_notes``: a booking's state).
)
# A cell starting with one of these is a formula to a spreadsheet (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _parser(plugins: Plugins | None = None) -> argparse.ArgumentParser:
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
    export.add_argument(
        "-o",
        "--output",
        help="CSV file to write, outside the site folder, or - for standard output "
        "(default: a new file in LEADS_EXPORT_DIR, ~/agency_site-exports)",
    )
    commands.add_parser(
        "purge",
        help="delete the leads of every person whose last lead arrived more than "
        "LEADS_RETENTION_MONTHS ago (the backend also does it daily)",
    )
    find = commands.add_parser(
        "find",
        help="everything stored about a person (right of access), by e-mail, and where else "
        "it went (on standard error)",
    )
    find.add_argument("--email", required=True, help="matched without regard to case")
    find.add_argument("--format", choices=("json", "csv"), default="json")
    find.add_argument(
        "-o", "--output", help="file to write, outside the site folder (default: standard output)"
    )
    erase = commands.add_parser(
        "erase", help="delete everything stored about a person (right to erasure), by e-mail"
    )
    erase.add_argument("--email", required=True, help="matched without regard to case")
    erase.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    commands.add_parser(
        "spool", help="the leads waiting on this host's disk for the database (LEADS_SPOOL_DIR)"
    )
    commands.add_parser(
        "spam",
        help="the leads taken for spam and why (hidden field filled, no form token...); "
        "each is deleted LEADS_SPAM_KEEP_DAYS after it was first shown",
    )
    not_spam = commands.add_parser(
        "not-spam", help="send a lead taken for spam to the agency (`spam` lists them)"
    )
    not_spam.add_argument("id", type=int, metavar="ID")
    if plugins is not None:
        plugins.commands(commands)
    return parser


def _writable(text: str) -> str:
    """``text`` as any UTF-8 output can take it: an old row may hold a lone surrogate
    (validation refuses them since), written as its escape (``\\ud800``); in JSON that
    escape reads back as the stored value."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _when(lead_time) -> str:
    """A timestamp for people: UTC, to the second."""
    return lead_time.strftime("%Y-%m-%d %H:%M:%S UTC") if lead_time else "-"


def _notes(delivery: Delivery, leads: list[Lead]) -> dict[int, str]:
    """The plugins' note of each of ``leads`` that has one."""
    store = delivery.store
    return store.plugins.lead_notes(store.engine, [lead.id for lead in leads if lead.id])


def _list(delivery: Delivery, status: str | None, out: TextIO) -> int:
    leads = delivery.store.all(LeadStatus(status) if status else None)
    if not leads:
        print("No leads.", file=out)
        return 0
    notes = _notes(delivery, leads)
    hooks = webhook_queue.states(delivery.store.engine, [lead.id for lead in leads if lead.id])
    print(f"{'ID':>5}  {'CREATED':23}  {'KIND':8} {'STATUS':8} {'TRIES':>5}  CONTACT", file=out)
    for lead in leads:
        contact = lead.fields.get("email", "")
        line = (
            f"{lead.id:>5}  {_when(lead.created_at):23}  {lead.kind:8} {lead.status:8} "
            f"{lead.attempts:>5}  {contact}"
        )
        if lead.status != LeadStatus.SENT and lead.last_error:
            line += f"  [{lead.last_error[:80]}]"
        line += f"  ({lead_source.describe(lead.source)} · {lead.language})"
        if lead.status == LeadStatus.SPAM:
            challenged = get_settings().leads.spam_challenge
            line += f"  [{quarantine_note(lead.spam_reason, challenged)}{_spam_due(lead)}]"
        if note := notes.get(lead.id or 0):
            line += f"  [{note}]"
        if hook := hooks.get(lead.id or 0):
            line += f"  [{hook}]"
        print(_writable(line), file=out)
    return 0


def _spam_due(lead: Lead) -> str:
    """When a lead taken for spam goes: ``LEADS_SPAM_KEEP_DAYS`` after it was first shown."""
    if lead.spam_listed_at is None:
        return ", not shown yet: kept until shown"
    gone = lead.spam_listed_at + dt.timedelta(days=get_settings().leads.spam_keep_days)
    return f", deleted after {_when(gone)}"


def _spam_list(delivery: Delivery, out: TextIO) -> int:
    if not delivery.store.count(LeadStatus.SPAM):
        print("No lead taken for spam.", file=out)
        return 0
    # Shown to the operator now: each one's keep days start (a second listing keeps them).
    shown = [lead.id for lead in delivery.store.all(LeadStatus.SPAM) if lead.id is not None]
    mark_spam_listed(delivery.store.engine, shown, utcnow())
    _list(delivery, LeadStatus.SPAM, out)
    print("Send one to the agency with `not-spam ID`.", file=out)
    return 0


def _not_spam(delivery: Delivery, lead_id: int, out: TextIO) -> int:
    released = delivery.store.release_spam(lead_id)  # The owner's release.
    if not released:
        print(f"Lead {lead_id} is not taken for spam: nothing changed.", file=out)
        return 1
    lost = (
        f" What came with it is gone ({released.lost}): its e-mail says so."
        if released.lost
        else ""
    )
    print(f"Lead {lead_id} is queued: the site sends it to the agency.{lost}", file=out)
    return 0


def _retry(
    delivery: Delivery, ids: Sequence[int], out: TextIO, channel: WebhookChannel | None = None
) -> int:
    """The e-mails, then the webhooks (paused endpoints resume): each channel on its own."""
    code = _retry_webhooks(channel, ids, out) if channel is not None and channel.enabled else 0
    if not delivery.configured:
        print("E-mail delivery is not configured: set the EMAILJS_* variables.", file=out)
        return 2
    due = delivery.store.make_due(ids)
    delivered = asyncio.run(delivery.retry_due(limit=max(due, 1)))
    left = delivery.store.count(LeadStatus.QUEUED) + delivery.store.count(LeadStatus.HELD)
    print(f"{delivered} of {due} lead(s) delivered; {left} still waiting.", file=out)
    return 0 if delivered == due and not code else 1


def _retry_webhooks(channel: WebhookChannel, ids: Sequence[int], out: TextIO) -> int:
    if not channel.can_send:
        print(f"Webhooks are not sent: {channel.problem}.", file=out)
        return 1
    channel.register()
    due = webhook_queue.make_due(channel.engine, ids)

    async def send() -> int:
        try:
            return await channel.round()
        finally:
            await channel.aclose()

    delivered = asyncio.run(send())
    waiting = channel.summary().waiting
    print(f"{delivered} of {due} webhook(s) delivered; {waiting} still waiting.", file=out)
    return 0 if not waiting else 1


def _cell(value: object) -> str:
    """A CSV cell that a spreadsheet shows as text, never runs as a formula."""
    text = "" if value is None else _writable(str(value))
    return "'" + text if text.startswith(_FORMULA_START) else text


def _row(lead: Lead, notes: Mapping[int, str]) -> list[str]:
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
            lead_source.describe(lead.source),
            lead.language,
            notes.get(lead.id or 0, ""),
        )
    ]


def _write_csv(leads: list[Lead], file: TextIO, notes: Mapping[int, str] | None = None) -> None:
    writer = csv.writer(file)
    writer.writerow(EXPORT_COLUMNS)
    writer.writerows(_row(lead, notes or {}) for lead in leads)


def _write_json(leads: list[Lead], file: TextIO) -> None:
    """Every stored column of every lead, as JSON (the right of access)."""
    records = [
        {
            "id": lead.id,
            "kind": lead.kind,
            "created_at": lead.created_at.isoformat() if lead.created_at else None,
            "status": lead.status,
            "attempts": lead.attempts,
            "sent_at": lead.sent_at.isoformat() if lead.sent_at else None,
            "last_error": lead.last_error,
            "fields": lead.fields,
            "source": lead.source,
            "language": lead.language,
        }
        for lead in leads
    ]
    file.write(_writable(json.dumps(records, ensure_ascii=False, indent=2)) + "\n")


def _inside_site(path: Path) -> bool:
    """Whether ``path`` lies in the site folder (which ``reflex export`` zips)."""
    return path.resolve().is_relative_to(ROOT)


def _write_file(
    path: Path, leads: list[Lead], write: Callable[[list[Lead], TextIO], None], out: TextIO
) -> int:
    """Write personal data to ``path``, refusing the site folder; readable by the owner only."""
    if _inside_site(path):
        print(
            f"Refused: {path} is inside the site folder ({ROOT}), which `reflex export` packs "
            "into backend.zip. Write it elsewhere, e.g. under LEADS_EXPORT_DIR.",
            file=out,
        )
        return 2
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(descriptor, "w", newline="", encoding="utf-8") as file:
        write(leads, file)
    print(f"{len(leads)} lead(s) written to {path}.", file=out)
    return 0


def _export(delivery: Delivery, status: str | None, output: str | None, ops: "Options") -> int:
    leads = delivery.store.all(LeadStatus(status) if status else None)
    write = partial(_write_csv, notes=_notes(delivery, leads))
    if output == "-":
        write(leads, ops.out)
        return 0
    stamp = utcnow().strftime("%Y%m%d-%H%M%S")
    path = Path(output).expanduser() if output else ops.export_dir / f"leads-{stamp}.csv"
    return _write_file(path, leads, write, ops.out)


def _purge(delivery: Delivery, ops: "Options") -> int:
    cutoff = retention_cutoff(ops.retention_months)
    when = cutoff.strftime("%Y-%m-%d %H:%M UTC")
    purged = delivery.store.purge(cutoff)
    lines = Spool(ops.spool_dir).purge(cutoff)
    print(
        f"{purged.deleted} lead(s) deleted: people whose last lead arrived before {when} "
        f"(retention: {ops.retention_months} months); {lines} line(s) of this host's "
        "spool folder received before then.",
        file=ops.out,
    )
    if purged.erasures:
        endpoints = len({erasure.endpoint for erasure in purged.erasures})
        print(
            f"lead.erased queued for {endpoints} webhook endpoint(s) their messages reached.",
            file=ops.out,
        )
    if ops.webhooks is not None and (places := ops.webhooks.by_hand(purged.erasures)):
        print(f"Delete by hand (they cannot be told): {'; '.join(places)}.", file=ops.out)
    return 0


def _spooled(ops: "Options", email: str) -> list[Lead]:
    """The lines of this host's spool folder about ``email``, as leads not stored (no id)."""
    host = socket.gethostname()
    found = []
    for path, raw in Spool(ops.spool_dir).of_email(email):
        where = "spooled" if path.suffix == SUFFIX else "set aside"
        try:
            lead = SpooledLead.parse(raw)
        except (ValueError, KeyError, TypeError):
            text = raw.decode("utf-8", errors="replace")
            found.append(
                Lead(kind="?", fields={"line": text}, created_at=None, status=f"{where} on {host}")
            )
            continue
        found.append(
            Lead(
                kind=lead.kind,
                fields=lead.fields,
                created_at=lead.created_at,
                status=f"{where} on {host}",
                source=lead.source,
                language=lead.language,
            )
        )
    return found


def _elsewhere(leads: Sequence[Lead], ops: "Options", erasing: bool | None = None) -> str | None:
    """Where else these leads' data went by webhook (a receiver, a chat, a CRM), with the
    ids it answered, for the operator to erase there too: ``find`` says every place,
    ``erase`` those the ``lead.erased`` message cannot clear (``erasing`` False)."""
    ids = [lead.id for lead in leads if lead.id is not None]
    places = ops.webhooks.elsewhere(ids, erasing) if ops.webhooks is not None and ids else []
    return f"Also erase in: {'; '.join(places)}." if places else None


def _erased_there(leads: Sequence[Lead], ops: "Options") -> str | None:
    """Where the ``lead.erased`` message clears these leads' copies (``erase``)."""
    ids = [lead.id for lead in leads if lead.id is not None]
    places = ops.webhooks.elsewhere(ids, True) if ops.webhooks is not None and ids else []
    return f"Erased there by a lead.erased message: {'; '.join(places)}." if places else None


def _find(delivery: Delivery, email: str, form: str, output: str | None, ops: "Options") -> int:
    """The person's data on standard output (or in ``output``); where else it went on
    standard error, so that the JSON or CSV stays whole when redirected."""
    leads = delivery.store.of_email(email) + _spooled(ops, email)
    write = _write_json if form == "json" else _write_csv
    code = 0
    if output:
        code = _write_file(Path(output).expanduser(), leads, write, ops.out)
    else:
        write(leads, ops.out)
    if code == 0 and (places := _elsewhere(leads, ops)):
        print(places, file=ops.err or sys.stderr)
    return code


def _erase(delivery: Delivery, email: str, yes: bool, ops: "Options") -> int:
    leads = delivery.store.of_email(email)
    spool = Spool(ops.spool_dir)
    spooled = spool.of_email(email)
    if not leads and not spooled:
        print(f"No lead stored for {email}.", file=ops.out)
        return 0
    ids = ", ".join(str(lead.id) for lead in leads)
    print(f"{len(leads)} lead(s) of {email}: {ids or '-'}.", file=ops.out)
    if spooled:
        print(f"{len(spooled)} line(s) in this host's spool folder.", file=ops.out)
    for places in (_elsewhere(leads, ops, erasing=False), _erased_there(leads, ops)):
        if places:
            print(places, file=ops.out)
    if not yes and not _confirm("Delete them for good?", ops):
        print("Nothing deleted.", file=ops.out)
        return 1
    # Logged first: if the delete fails, a later restore still honours the request, and
    # the drain drops any lead of this address it has not stored yet.
    erasures.record(ops.erasure_log, email)
    # The spool before the table: a drain storing this person's lead right now holds
    # its file's lock, so the lead is in the table before the table's delete.
    lines = spool.erase(email)
    deleted = delivery.store.erase_email(email)
    print(
        f"{deleted} lead(s) deleted, and {lines} line(s) of this host's spool folder. "
        "Delete also the e-mails they produced in the agency's inbox and any CSV exported "
        "earlier; run this on every host that has a spool folder.",
        file=ops.out,
    )
    return 0


def _confirm(question: str, ops: "Options") -> bool:
    print(f"{question} Type 'yes' to confirm: ", end="", file=ops.out)
    ops.out.flush()
    return ops.ask().strip().lower() in ("yes", "y", "si", "sí", "s")


def _spool(ops: "Options") -> int:
    spool = Spool(ops.spool_dir)
    leads = list(spool.leads())
    if not leads:
        print(f"The spool is empty ({ops.spool_dir}).", file=ops.out)
    else:
        print(f"{len(leads)} lead(s) wait for the database in {ops.spool_dir}:", file=ops.out)
        for lead in leads:
            contact = lead.fields.get("email", "")
            print(
                _writable(f"  {_when(lead.created_at):23}  {lead.kind:8} {contact}"), file=ops.out
            )
    aside = list(spool.lines(spool.aside()))
    if aside:
        print(
            f"{len(aside)} line(s) set aside: the database refused them or they cannot be "
            f"read (spool-*{QUARANTINE}, spool-*{TORN}). Answer these people directly, then "
            "delete the lines (or, once the cause is fixed, append them to a "
            f"spool-*{SUFFIX} file to be drained again):",
            file=ops.out,
        )
        for path, raw in aside:
            try:
                lead = SpooledLead.parse(raw)
            except (ValueError, KeyError, TypeError):
                text = raw.decode("utf-8", errors="replace")[:120]
                print(f"  {path.name}: unreadable: {text}", file=ops.out)
                continue
            contact = lead.fields.get("email", "")
            print(
                _writable(f"  {path.name}: {_when(lead.created_at):23}  {lead.kind:8} {contact}"),
                file=ops.out,
            )
    return 0


@dataclass(frozen=True)
class Options:
    """What the RGPD commands need besides the store: settings, output and the operator."""

    out: TextIO
    retention_months: int
    export_dir: Path
    ask: Callable[[], str]
    erasure_log: Path = Path("data/erasures.log")
    spool_dir: Path = Path("data/spool")
    webhooks: WebhookChannel | None = None  # Where the leads went besides the e-mail.
    err: TextIO | None = None  # Notes beside data on ``out`` (``find``); None: stderr.


def run(
    argv: Sequence[str],
    delivery: Delivery,
    out: TextIO,
    *,
    retention_months: int | None = None,
    export_dir: Path | None = None,
    ask: Callable[[], str] | None = None,
    erasure_log: Path | None = None,
    spool_dir: Path | None = None,
    webhook_channel: WebhookChannel | None = None,
    err: TextIO | None = None,
) -> int:
    """Run one operator command against ``delivery`` (its store and EmailJS client) and
    ``webhook_channel`` (``retry`` sends the webhooks too).

    ``retention_months`` and ``export_dir`` default to the ``LEADS_*`` settings; ``ask``
    reads the operator's answer to a confirmation (standard input); ``err`` takes the notes
    written beside data (standard error).
    """
    args = _parser(delivery.store.plugins).parse_args(argv)
    leads_settings = get_settings().leads
    ops = Options(
        out=out,
        retention_months=retention_months or leads_settings.retention_months,
        export_dir=export_dir or leads_settings.export_path,
        ask=ask or sys.stdin.readline,
        erasure_log=erasure_log or leads_settings.erasure_log_path,
        spool_dir=spool_dir or leads_settings.spool_path,
        webhooks=webhook_channel,
        err=err,
    )
    if args.command == "list":
        return _list(delivery, args.status, out)
    if args.command == "retry":
        return _retry(delivery, args.ids, out, webhook_channel)
    if args.command == "purge":
        return _purge(delivery, ops)
    if args.command == "find":
        return _find(delivery, args.email, args.format, args.output, ops)
    if args.command == "erase":
        return _erase(delivery, args.email, args.yes, ops)
    if args.command == "spool":
        return _spool(ops)
    if args.command == "spam":
        return _spam_list(delivery, out)
    if args.command == "not-spam":
        return _not_spam(delivery, args.id, out)
    if command := getattr(args, "plugin_command", None):
        return command(args, delivery.store, out)
    return _export(delivery, args.status, args.output, ops)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: the site's database (migrated first) and EmailJS settings."""
    from agency_site.leads import migrations
    from agency_site.leads.runtime import configure_logging, intake, webhooks

    configure_logging()
    argv = sys.argv[1:] if argv is None else list(argv)
    delivery = intake().delivery
    if not argv or argv[0] != "spool":  # It works on a down database.
        migrations.upgrade(delivery.store.engine)
    return run(argv, delivery, sys.stdout, webhook_channel=webhooks())

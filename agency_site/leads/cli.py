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

The commands on personal data (``export``, ``find``, ``erase``, ``purge``, ``spool``) are
``rgpd_commands.py``'s; this module parses, lists, retries and answers spam.
"""

import argparse
import asyncio
import datetime as dt
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from agency_site.leads import source as lead_source
from agency_site.leads.delivery import Delivery
from agency_site.leads.models import Lead, utcnow
from agency_site.leads.plugins import Plugins
from agency_site.leads.rgpd import mark_spam_listed
from agency_site.leads.rgpd_commands import (
    Options,
    erase,
    export,
    find,
    notes_of,
    purge,
    show_spool,
    when,
    writable,
)
from agency_site.leads.spam.screen import quarantine_note
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.webhooks import queue as webhook_queue
from agency_site.leads.webhooks.channel import WebhookChannel
from agency_site.settings import get_settings


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


def _list(delivery: Delivery, status: str | None, out: TextIO) -> int:
    leads = delivery.store.all(LeadStatus(status) if status else None)
    if not leads:
        print("No leads.", file=out)
        return 0
    notes = notes_of(delivery, leads)
    hooks = webhook_queue.states(delivery.store.engine, [lead.id for lead in leads if lead.id])
    print(f"{'ID':>5}  {'CREATED':23}  {'KIND':8} {'STATUS':8} {'TRIES':>5}  CONTACT", file=out)
    for lead in leads:
        contact = lead.fields.get("email", "")
        line = (
            f"{lead.id:>5}  {when(lead.created_at):23}  {lead.kind:8} {lead.status:8} "
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
        print(writable(line), file=out)
    return 0


def _spam_due(lead: Lead) -> str:
    """When a lead taken for spam goes: ``LEADS_SPAM_KEEP_DAYS`` after it was first shown."""
    if lead.spam_listed_at is None:
        return ", not shown yet: kept until shown"
    gone = lead.spam_listed_at + dt.timedelta(days=get_settings().leads.spam_keep_days)
    return f", deleted after {when(gone)}"


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
        return purge(delivery, ops)
    if args.command == "find":
        return find(delivery, args.email, args.format, args.output, ops)
    if args.command == "erase":
        return erase(delivery, args.email, args.yes, ops)
    if args.command == "spool":
        return show_spool(ops)
    if args.command == "spam":
        return _spam_list(delivery, out)
    if args.command == "not-spam":
        return _not_spam(delivery, args.id, out)
    if command := getattr(args, "plugin_command", None):
        return command(args, delivery.store, out)
    return export(delivery, args.status, args.output, ops)


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

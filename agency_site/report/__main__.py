"""``python -m agency_site.report``: the access log's new lines into the daily counts,
then the month's report (this month by default) printed in Spanish.

    python -m agency_site.report                        # ingest, then this month's report
    python -m agency_site.report --month 2026-11 --html informe.html
    python -m agency_site.report ingest                 # only the ingestion (the daily timer)
    python -m agency_site.report mail --month 2026-11   # e-mail a month's report now
    python -m agency_site.report link --month 2026-11   # a fresh signed link to its page

``mail`` and ``link`` default to the previous month (the one the monthly e-mail is about).
"""

import argparse
import asyncio
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path

import sqlalchemy as sa

from agency_site.content.site import SITE
from agency_site.content.template import render
from agency_site.report.figures import month_figures
from agency_site.report.ingest import ingest
from agency_site.report.link import month_key
from agency_site.report.log_lines import ZONE
from agency_site.report.mail import (
    ReportMail,
    due_month,
    emailjs_sender,
    mark_sent,
    previous_month,
)
from agency_site.report.mail_plugin import report_links
from agency_site.report.page import report_page
from agency_site.report.text import WORDS, report_text
from agency_site.report.visitors import known_pages
from agency_site.settings import Settings

CLI = WORDS.cli  # What it tells the operator (``content/es/report.yaml``).


def _month(value: str) -> dt.date:
    try:
        return dt.datetime.strptime(value, "%Y-%m").date()
    except ValueError:
        raise argparse.ArgumentTypeError(render(CLI.not_a_month, value=repr(value))) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agency_site.report", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "command",
        nargs="?",
        choices=["ingest", "mail", "link"],
        help="ingest: only read the access log; mail: e-mail the month's report to the owner; "
        "link: print a fresh signed link to the month's page",
    )
    parser.add_argument(
        "--month", type=_month, help="YYYY-MM (default: this month; mail, link: the previous)"
    )
    parser.add_argument("--html", type=Path, help="also write the report as an HTML page")
    parser.add_argument("--log", type=Path, help="the access log (default: DEPLOY_ACCESS_LOG)")
    parser.add_argument("--no-ingest", action="store_true", help="report without reading the log")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from agency_site.leads import migrations
    from agency_site.leads.runtime import database_engine
    from agency_site.settings import get_settings

    args = _parser().parse_args(argv)
    settings = get_settings()
    if args.command == "link":
        return _link(settings, args.month)
    engine = database_engine()
    migrations.upgrade(engine)
    if not args.no_ingest:
        counts = ingest(
            engine, args.log or Path(settings.deploy.access_log), known_pages(settings.site_url)
        )
        if args.command == "ingest":
            print(render(CLI.ingested, lines=counts.lines), file=sys.stderr)
            return 0
    if args.command == "mail":
        return _mail(settings, engine, args.month)
    figures = month_figures(engine, args.month or dt.datetime.now(ZONE).date())
    print(report_text(figures))
    if args.html:
        args.html.write_text(report_page(figures), encoding="utf-8")
    return 0


def _previous_month() -> dt.date:
    return previous_month(dt.datetime.now(ZONE).date())


def _link(settings: Settings, month: dt.date | None) -> int:
    links = report_links(settings)
    if links is None:
        print(CLI.no_secret, file=sys.stderr)
        return 1
    print(links.url(month or _previous_month()))
    until = links.valid_until().astimezone(ZONE).date().isoformat()
    print(render(CLI.valid_until, until=until, days=settings.report.link_days), file=sys.stderr)
    return 0


def _mail(settings: Settings, engine: sa.Engine, month: dt.date | None) -> int:
    """E-mail ``month``'s report now; the month due now is then recorded as sent, so the
    monitor does not send it again."""
    from agency_site.leads.runtime import build_delivery
    from agency_site.leads.store import LeadStore

    store = LeadStore(engine)
    client = build_delivery(settings, store).client
    send = emailjs_sender(client, settings.emailjs.contact_template_id)
    report = ReportMail(engine, report_links(settings), send, settings.report.mail_hour)
    month = month or _previous_month()

    async def mail() -> bool:
        try:
            return await report.mail(month)
        finally:
            if client is not None:
                await client.aclose()

    if not asyncio.run(mail()):
        print(render(CLI.not_sent, month=month_key(month)), file=sys.stderr)
        return 1
    if month == due_month(dt.datetime.now(dt.UTC), settings.report.mail_hour):
        mark_sent(store, month_key(month))
    print(render(CLI.sent, month=month_key(month), email=SITE.email), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

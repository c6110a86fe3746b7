"""``python -m agency_site.report``: the access log's new lines into the daily counts,
then the month's report (this month by default) printed in Spanish.

    python -m agency_site.report                        # ingest, then this month's report
    python -m agency_site.report --month 2026-11 --html informe.html
    python -m agency_site.report ingest                 # only the ingestion (the daily timer)
"""

import argparse
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path

from agency_site.report.figures import month_figures
from agency_site.report.ingest import ingest
from agency_site.report.log_lines import ZONE
from agency_site.report.page import report_page
from agency_site.report.text import report_text
from agency_site.report.visitors import known_pages


def _month(value: str) -> dt.date:
    try:
        return dt.datetime.strptime(value, "%Y-%m").date()
    except ValueError:
        raise argparse.ArgumentTypeError(f"un mes como 2026-11, no {value!r}") from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agency_site.report", description=__doc__.split("\n")[0]
    )
    parser.add_argument("command", nargs="?", choices=["ingest"], help="only read the access log")
    parser.add_argument("--month", type=_month, help="YYYY-MM (default: this month)")
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
    engine = database_engine()
    migrations.upgrade(engine)
    if not args.no_ingest:
        counts = ingest(
            engine, args.log or Path(settings.deploy.access_log), known_pages(settings.site_url)
        )
        if args.command == "ingest":
            print(
                f"{counts.lines} líneas nuevas del registro leídas",
                file=sys.stderr,
            )
            return 0
    figures = month_figures(engine, args.month or dt.datetime.now(ZONE).date())
    print(report_text(figures))
    if args.html:
        args.html.write_text(report_page(figures), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

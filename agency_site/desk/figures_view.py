""" "Cifras" (``paths.DESK_FIGURES``): the monthly report of any month (``?month=YYYY-MM``,
this month by default): its figures as HTML tables (``report.figures.month_figures``, the
words of ``report/text.py``) and its three charts, each an SVG file of its own under the
desk (``CHART``: ``report.charts.CHARTS``, drawn by pygal) shown with ``<img>``, so the page
keeps the desk's policy (no inline style) while the SVG, which styles itself inline,
answers with a policy of its own (``CHART_POLICY``: its inline styles, nothing else; an
image runs no script anyway). And "Estado": the leads' health details the public health
page no longer shows anyone (``leads_health_details``).
"""

import asyncio
import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agency_site import paths
from agency_site.desk.guard import AGENCY_ZONE, desk_of, query_string, render
from agency_site.report import text
from agency_site.report.charts import CHARTS
from agency_site.report.figures import Figures, month_figures

# The chart's own answer: its inline styles (pygal's <style> and attributes), nothing else.
CHART_POLICY = "default-src 'none'; style-src 'unsafe-inline'"
_MONTH = re.compile(r"(\d{4})-(0[1-9]|1[0-2])")
_YEARS = (2000, 2999)
# The chart file of a month: ``/…/figures/2026-11/funnel.svg``.
CHART = f"{paths.DESK_FIGURES}/{{month}}/{{chart}}.svg"

HealthSource = Callable[[], Mapping[str, Any] | None]


def leads_health_details() -> Mapping[str, Any] | None:
    """The leads' health details of this process for the "Estado" panel: what the public
    health page shows only with ``LEADS_HEALTH_TOKEN`` (``leads.runtime.health_details``,
    from its worker's last check while fresh). Blocking: a thread's."""
    from agency_site.leads.runtime import health_details

    return health_details()


def parse_month(value: str | None) -> dt.date | None:
    """The first day of a ``YYYY-MM``, or None when it is none."""
    found = _MONTH.fullmatch(value or "")
    if found is None or not _YEARS[0] <= int(found[1]) <= _YEARS[1]:
        return None
    return dt.date(int(found[1]), int(found[2]), 1)


def month_text(month: dt.date) -> str:
    return f"{month.year:04d}-{month.month:02d}"


def neighbours(month: dt.date) -> tuple[dt.date, dt.date]:
    """The months before and after ``month`` (their first days)."""
    before = (month - dt.timedelta(days=1)).replace(day=1)
    after = (month + dt.timedelta(days=32)).replace(day=1)
    return before, after


def _moment(value: object) -> dt.datetime | None:
    """An ISO time of the health details, as a datetime (None when it is none)."""
    try:
        return dt.datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def health_view(details: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The details as the panel shows them: their times as datetimes."""
    if details is None:
        return None
    return dict(details) | {
        "last_delivery_at": _moment(details.get("last_delivery_at")),
        "checked_at": _moment(details.get("checked_at")),
    }


def tables_of(figures: Figures) -> dict[str, list[tuple[Any, ...]]]:
    """The report's lists as the page's tables show them: in words (``report/text.py``'s),
    a blank part of a campaign or of a 404's origin as ``-``."""
    return {
        "pages": [
            (page, text.LANGUAGES.get(language, language), n)
            for page, language, n in figures.visits_by_page
        ],
        "devices": [(text.DEVICES.get(name, name), n) for name, n in figures.devices.most_common()],
        "campaigns": [(s or "-", m or "-", c or "-", n) for s, m, c, n in figures.campaigns],
        "forms": [(text.form_name(kind), n) for kind, n in figures.leads_by_form.most_common()],
        "started": [(text.form_name(form), n) for form, n in figures.started.most_common()],
        "not_found": [(path, referrer or "-", n) for path, referrer, n in figures.not_found],
    }


def leads_health(request: Request) -> HealthSource:
    """Where the "Estado" panel reads the details: ``leads_health_details``
    (``Desk.leads_health``: ``desk/runtime.py``), a test's, or none when not wired."""
    return desk_of(request).leads_health or (lambda: None)


async def figures_page(request: Request) -> Response:
    desk = desk_of(request)
    today = desk.clock().astimezone(AGENCY_ZONE).date()
    asked = request.query_params.get("month")
    month = parse_month(asked) or today.replace(day=1)
    figures = await asyncio.to_thread(month_figures, desk.engine(), month)
    details = await asyncio.to_thread(leads_health(request))
    before, after = neighbours(month)
    chart_urls = {name: CHART.format(month=month_text(month), chart=name) for name in CHARTS}
    return render(
        request,
        "figures.html",
        status=200 if asked is None or parse_month(asked) else 400,
        current="figures",
        figures=figures,
        month=month,
        month_text=month_text(month),
        before_url=paths.DESK_FIGURES + query_string({"month": month_text(before)}),
        after_url=paths.DESK_FIGURES + query_string({"month": month_text(after)}),
        future=after > today,
        wrong_month=asked is not None and parse_month(asked) is None,
        charts=[(chart_urls[name], description) for name, (description, _) in CHARTS.items()],
        report=text,
        rate_text=text.rate_text,
        tables=tables_of(figures),
        health=health_view(details),
    )


async def chart(request: Request) -> Response:
    """One chart of a month as an SVG file, with its own policy (module doc)."""
    month = parse_month(request.path_params["month"])
    found = CHARTS.get(request.path_params["chart"])
    if month is None or found is None:
        return render(request, "not_found.html", 404)
    figures = await asyncio.to_thread(month_figures, desk_of(request).engine(), month)
    _, draw = found
    svg = await asyncio.to_thread(draw, figures)
    return Response(
        svg,
        media_type="image/svg+xml",
        headers={"Content-Security-Policy": CHART_POLICY, "X-Content-Type-Options": "nosniff"},
    )


ROUTES = [
    Route(paths.DESK_FIGURES, figures_page, methods=["GET"], name="figures"),
    Route(CHART, chart, methods=["GET"], name="figures_chart"),
]

"""``GET /_site/report/<YYYY-MM>?t=<token>``: the month's report page (``page.py``), drawn
from the database at request time, for the holder of its signed link (``link.py``).

A missing, tampered, expired or other month's token, or no secret to check it with, gets
the same Spanish not-found page (404, no detail: nothing tells a guesser what was wrong).
Both answers: ``noindex`` (header and ``<meta>``), ``Cache-Control: no-store``,
``Referrer-Policy: no-referrer`` (the token never leaves in a Referer), and a policy of
their own (``REPORT_POLICY``), stricter than the other ``/_site/`` pages' (the server's
middleware keeps it): the page's inline ``<style>`` and inline SVG, nothing else; no
script, no request anywhere.

Mounted with the site's other ``/_site/`` routes (``site_api.site_api``).
"""

import asyncio
import datetime as dt
import re
from collections.abc import Callable
from html import escape

import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from agency_site import locale, paths
from agency_site.content.not_found import NOT_FOUND
from agency_site.report.figures import month_figures
from agency_site.report.link import TOKEN_PARAM, ReportLinks
from agency_site.report.page import report_page
from agency_site.web_base.plain_page import page

# Inline styles (the page's <style>, pygal's SVG <style> and style attributes) and nothing
# else: no script, no image, font or connection, no form, no frame, no <base>.
REPORT_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    "Content-Security-Policy": REPORT_POLICY,
}
_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def not_found_page(site_url: str) -> HTMLResponse:
    """The Spanish not-found page, with no detail."""
    with locale.active(locale.DEFAULT_LOCALE):
        html = page(
            NOT_FOUND.heading, f"<p>{escape(NOT_FOUND.intro)}</p>", site_url.rstrip("/") + "/"
        )
    return HTMLResponse(html, status_code=404, headers=HEADERS)


def first_day(month: str) -> dt.date | None:
    """The first day of ``month`` (``YYYY-MM``), None when it is no month a report can
    cover (year 0, or 9999's December, whose next month the calendar lacks)."""
    if not _MONTH.fullmatch(month):
        return None
    try:
        day = dt.date.fromisoformat(f"{month}-01")
    except ValueError:
        return None
    return day if (day.year, day.month) < (dt.MAXYEAR, 12) else None


def create_app(
    engine: Callable[[], sa.Engine],
    links: Callable[[], ReportLinks | None],
    site_url: str,
) -> Starlette:
    """The report page's route; its dependencies are looked up per request."""

    async def report(request: Request) -> HTMLResponse:
        month = request.path_params["month"]
        signer = links()
        token = request.query_params.get(TOKEN_PARAM)
        day = first_day(month)
        if day is None or signer is None or not signer.opens(token, month):
            return not_found_page(site_url)
        figures = await asyncio.to_thread(month_figures, engine(), day)
        return HTMLResponse(report_page(figures), headers=HEADERS)

    return Starlette(routes=[Route(paths.report_page("{month}"), report, methods=["GET", "HEAD"])])


def report_api() -> Starlette:
    """The report page of this backend process, from the settings (its database, the site's
    link secret read once)."""
    from functools import cache

    from agency_site.leads.runtime import intake
    from agency_site.report.mail_plugin import report_links
    from agency_site.settings import get_settings

    settings = get_settings()
    return create_app(
        lambda: intake().store.engine, cache(lambda: report_links(settings)), settings.site_url
    )

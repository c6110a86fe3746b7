"""Cifras: the report of any month (its tables as HTML, its charts as SVG files the page shows
with ``<img>``), each chart answering with its own policy while the page keeps the desk's;
and the leads' health details (SQLite and PostgreSQL)."""

import datetime as dt
import re

import sqlalchemy as sa

from agency_site import paths
from agency_site.desk.figures_view import CHART_POLICY, parse_month
from agency_site.desk.guard import POLICY
from agency_site.leads.models import Lead
from agency_site.report import tables
from agency_site.report.charts import CHARTS
from tests.desk.conftest import DeskSite

NOW = dt.datetime(2026, 11, 28, 10, tzinfo=dt.UTC)


def counts(site: DeskSite) -> None:
    """March 2025: 70 visits to /contact, a referrer, a 404; three leads of that month (one
    spam) and one of November 2026."""
    with site.engine.begin() as connection:
        connection.execute(
            sa.insert(tables.page_views),
            [
                {"day": dt.date(2025, 3, 3), "page": "/contact", "language": "ca",
                 "device": "mobile", "views": 70},
                {"day": dt.date(2026, 11, 2), "page": "/", "language": "es",
                 "device": "desktop", "views": 5},
            ],
        )  # fmt: skip
        connection.execute(
            sa.insert(tables.referrers),
            [{"day": dt.date(2025, 3, 4), "domain": "google.com", "views": 9}],
        )
        connection.execute(
            sa.insert(tables.not_found),
            [{"day": dt.date(2025, 3, 5), "path": "/vieja", "referrer": "", "hits": 4}],
        )
        for moment, status in (
            (dt.datetime(2025, 3, 10, 9, tzinfo=dt.UTC), "sent"),
            (dt.datetime(2025, 3, 31, 22, 30, tzinfo=dt.UTC), "queued"),  # 1 April in Spain.
            (dt.datetime(2025, 3, 12, 9, tzinfo=dt.UTC), "sent"),
            (dt.datetime(2025, 3, 13, 9, tzinfo=dt.UTC), "spam"),
            (dt.datetime(2026, 11, 20, 9, tzinfo=dt.UTC), "sent"),
        ):
            connection.execute(
                sa.insert(Lead).values(
                    kind="quote", status=status, fields={"email": "x@example.com"},
                    created_at=moment, source={"utm_source": "boletin"}, language="es",
                )
            )  # fmt: skip


def test_the_figures_of_any_month(desk_site: DeskSite) -> None:
    desk_site.clock.now = NOW
    browser = desk_site.signed_in()
    counts(desk_site)
    march = browser.get(paths.DESK_FIGURES, params={"month": "2025-03"})
    assert march.status_code == 200
    page = march.text
    assert "Cifras de marzo de 2025" in page and 'value="2025-03"' in page
    assert '<td>/contact</td><td>catalán</td><td class="number">70</td>' in page
    assert "<td>google.com</td>" in page and "<td>/vieja</td><td>-</td>" in page
    # Two sent in March (the one of 31 March 22:30 UTC is April's in Spain), one spam.
    assert re.search(r"<td>Solicitudes enviadas</td><td class=\"number\">2</td>", page)
    assert re.search(r"<td>Apartadas como spam</td><td class=\"number\">1</td>", page)
    assert '<td>boletin</td><td class="number">2</td>' in page
    assert "?month=2025-02" in page and "?month=2025-04" in page
    # By default, the desk's month; the next month is not offered past today.
    current = browser.get(paths.DESK_FIGURES).text
    assert "Cifras de noviembre de 2026" in current and "?month=2026-12" not in current
    assert re.search(r"<td>Solicitudes enviadas</td><td class=\"number\">1</td>", current)
    wrong = browser.get(paths.DESK_FIGURES, params={"month": "2025-13"})
    assert wrong.status_code == 400 and "Ese mes no existe" in wrong.text
    assert parse_month("1999-12") is None and parse_month("2025-3") is None


def test_each_chart_is_an_svg_file_with_its_own_policy(desk_site: DeskSite) -> None:
    desk_site.clock.now = NOW
    browser = desk_site.signed_in()
    counts(desk_site)
    page = browser.get(paths.DESK_FIGURES, params={"month": "2025-03"})
    assert page.headers["content-security-policy"] == POLICY
    assert not re.search(r"<style|\sstyle=|<svg", page.text)  # Nothing inline in the page.
    sources = re.findall(r'<img src="([^"]+)" alt="([^"]+)"', page.text)
    assert [alt for _, alt in sources] == [description for description, _ in CHARTS.values()]
    for source, _ in sources:
        assert source.startswith(paths.DESK_FIGURES + "/2025-03/")
        chart = browser.get(source)
        assert chart.status_code == 200
        assert chart.headers["content-type"] == "image/svg+xml"
        assert chart.headers["content-security-policy"] == CHART_POLICY
        assert chart.headers["x-robots-tag"] == "noindex, nofollow"
        assert chart.headers["cache-control"] == "no-store"
        assert chart.text.lstrip().startswith("<svg") and "<script" not in chart.text.lower()
    funnel = browser.get(f"{paths.DESK_FIGURES}/2025-03/funnel.svg").text
    assert "Visitas" in funnel and "70" in funnel
    for wrong in ("2025-13/funnel.svg", "2025-03/pie.svg", "x/x.svg"):
        answer = browser.get(f"{paths.DESK_FIGURES}/{wrong}")
        assert answer.status_code == 404 and answer.headers["content-security-policy"] == POLICY
    # Without a session: the sign-in, no chart.
    assert desk_site.stranger().get(sources[0][0]).status_code == 303


def test_the_leads_health_details_show_on_the_figures(desk_site: DeskSite) -> None:
    desk_site.clock.now = NOW
    browser = desk_site.signed_in()
    assert "no está disponible en este servidor" in browser.get(paths.DESK_FIGURES).text
    details = {
        "status": "held",
        "queued": 3,
        "held": 2,
        "rejected": 1,
        "oldest_queued_age_seconds": 1500,
        "last_delivery_at": "2026-11-28T09:30:00+00:00",
        "unset_settings": ["EMAILJS_QUOTE_TEMPLATE_ID"],
        "webhooks": {"configured": True, "problem": None, "waiting": 4, "paused_endpoints": 1},
        "notes": {
            "owner_calendars_failing": [
                {"calendar": "calendar 1 (calendar.example.com)", "problem": "HTTP 404",
                 "since": None}
            ]
        },
        "checked_at": "2026-11-28T09:59:00+00:00",
    }  # fmt: skip
    desk_site.screens.health = details
    page = browser.get(paths.DESK_FIGURES).text
    assert "Hay solicitudes retenidas" in page
    for text in (
        "<dt>Esperando para salir</dt><dd>3 (la más antigua, desde hace 25 min)</dd>",
        "<dt>Retenidas</dt><dd>2</dd>",
        "<dd>28/11/2026 10:30</dd>",
        "EMAILJS_QUOTE_TEMPLATE_ID",
        "4 en cola, 1 destino(s) en pausa",
        "calendar 1 (calendar.example.com)",
    ):
        assert text in page, text

"""The owner's monthly report e-mail (``report/mail.py``, ``plugin.py``) and its signed page
(``link.py``, ``web.py``), on SQLite and PostgreSQL, against the HTTP-level fake EmailJS:
the e-mail carries the month's figures and a link; the link opens the page with the same
figures; a tampered, expired or other month's token is a 404; two workers send one e-mail;
a refused send is tried again later and the owner still gets one."""

import asyncio
import datetime as dt
import re
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import httpx
import pystache
import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer

from agency_site import emailjs_templates, paths
from agency_site.content.not_found import NOT_FOUND
from agency_site.leads.models import LeadMonitor
from agency_site.leads.store import LeadStore
from agency_site.report import mail, web
from agency_site.report.figures import Figures, month_figures
from agency_site.report.ingest import ingest
from agency_site.report.link import ReportLinks, month_key
from agency_site.report.log_lines import ZONE
from agency_site.report.mail_plugin import ReportPlugin
from agency_site.report.page import report_page
from tests.emailjs_fake import accept_sends, make_client, refuse_sends, sent_payloads
from tests.lead_store import new_engine
from tests.report.test_report import ADDRESS, DESKTOP, PHONE, SITE, generated_log, known_leads
from tests.run_async import run

SECRET = "s" * 43
API = "https://api.agencia.example"
NOVEMBER = dt.date(2026, 11, 1)
# The 1st of December at 08:00 in Madrid: November's report is due.
DUE = dt.datetime(2026, 12, 1, 8, 0, tzinfo=ZONE)
TEMPLATE = "template_agency"
URL = re.compile(r"https://api\.agencia\.example/\S+")


def links(clock: float | None = None) -> ReportLinks:
    moment = DUE.timestamp() if clock is None else clock
    return ReportLinks([SECRET], API, 60, clock=lambda: moment)


class Owner:
    """The monitor as the report's watcher sees it: its store, its delivery's EmailJS
    client, the site's URL and the owner's alerts (kept here)."""

    def __init__(self, engine: sa.Engine, emailjs: HTTPServer) -> None:
        self.store = LeadStore(engine)
        self.delivery = SimpleNamespace(client=make_client(emailjs))
        self.site_url = "https://agencia.example"
        self.alerts: list[str] = []

    async def alert(self, text: str) -> bool:
        self.alerts.append(text)
        return True


def sent_until(engine: sa.Engine, month: str) -> None:
    """Record ``month`` as the last month e-mailed (a site running for a while)."""
    with engine.begin() as connection:
        connection.execute(
            sa.update(LeadMonitor).where(LeadMonitor.name == mail.REPORT_MAIL).values(state=month)
        )


def worker(engine: sa.Engine, emailjs: HTTPServer) -> tuple[ReportPlugin, Owner]:
    plugin = ReportPlugin(hour=8, template_id=TEMPLATE, links=links())
    owner = Owner(engine, emailjs)
    assert plugin.watchers(owner)  # type: ignore[arg-type]
    return plugin, owner


def tick(plugin: ReportPlugin, owner: Owner, now: dt.datetime = DUE) -> bool:
    return run(plugin.send_when_due(owner, now))  # type: ignore[arg-type]


def try_again_now(engine: sa.Engine) -> None:
    """Make the next try due now (as ``mail.RETRY_EVERY`` later)."""
    with engine.begin() as connection:
        connection.execute(
            sa.update(LeadMonitor).where(LeadMonitor.name == mail.REPORT_MAIL).values(due_at=None)
        )


def november(db_url: str, tmp_path: Path) -> sa.Engine:
    """A database holding November's known traffic, leads, bookings and form starts."""
    engine = new_engine(db_url)
    log = tmp_path / "access.log"
    log.write_text("".join(generated_log()))
    known_leads(engine)
    ingest(engine, log, SITE)
    return engine


def same_page(one: str, other: str) -> bool:
    """The same page but for pygal's random chart ids."""
    chart_id = re.compile(r"chart-[0-9a-f-]{36}")
    return chart_id.sub("chart", one) == chart_id.sub("chart", other)


def page_app(engine: sa.Engine, signer: ReportLinks | None):
    return web.create_app(lambda: engine, lambda: signer, "https://agencia.example")


def get(app, url: str) -> httpx.Response:
    async def fetch() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=API) as client:
            return await client.get(url)

    return run(fetch())


def test_the_email_carries_the_month_s_figures_and_a_link_that_opens_the_same_figures(
    db_url: str, tmp_path: Path, emailjs: HTTPServer
) -> None:
    engine = november(db_url, tmp_path)
    sent_until(engine, "2026-10")
    accept_sends(emailjs)
    plugin, owner = worker(engine, emailjs)
    assert tick(plugin, owner)
    [payload] = sent_payloads(emailjs)
    assert payload["template_id"] == TEMPLATE
    params = payload["template_params"]
    assert params["is_notice"] == "1" and params["report_month"] == "noviembre de 2026"
    text = params["message"]
    assert text.startswith("Informe de noviembre de 2026")
    for figure in (
        "Visitas: 8 (móvil 4, ordenador 3, tableta 1)",
        "Solicitudes: 6 (y 1 apartada como spam)",
        "Citas: 3 pedidas, 2 confirmadas, 1 atendidas",
        "visitas que envían una solicitud: 75,0 % (6 de 8)",
        "Solicitudes por origen: directo 3, newsletter 2, google.com 1",
        "Sitios que envían visitas: google.com 1, news.example 1",
        "Campañas: newsletter / email / nov 2",
        "hasta el sábado, 30 de enero de 2027",  # 60 days after the 1st of December.
    ):
        assert figure in text
    [url] = URL.findall(text)
    assert urlsplit(url).path == paths.report_page("2026-11")

    answer = get(page_app(engine, links()), url)
    assert answer.status_code == 200
    assert same_page(answer.text, report_page(month_figures(engine, NOVEMBER)))
    assert "Total: 8 visitas" in answer.text and answer.text.count("<svg") == 3
    assert answer.headers["cache-control"] == "no-store"
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert "noindex" in answer.headers["x-robots-tag"] and 'content="noindex"' in answer.text
    for kept_out in (ADDRESS, "203.0.113", "Mozilla", "UniqueAgent", PHONE, DESKTOP):
        assert kept_out not in answer.text
    engine.dispose()


def test_the_page_s_policy_allows_its_inline_style_and_svg_and_no_script() -> None:
    policy = dict([*part.strip().split(" ", 1), ""][:2] for part in web.REPORT_POLICY.split(";"))
    assert policy["default-src"] == "'none'"  # No script, image, font or connection.
    assert "script-src" not in policy
    assert policy["style-src"] == "'unsafe-inline'"  # The <style> and pygal's SVG styles.
    assert policy["frame-ancestors"] == "'none'"


def test_the_agency_template_heads_the_report_and_shows_its_text_and_link() -> None:
    template = emailjs_templates.agency_template()
    params = mail.params(Figures(month=NOVEMBER), f"{API}/x?t=1", dt.datetime(2027, 1, 30))
    subject = pystache.render(template.subject, params)
    body = pystache.render(template.content, params)
    assert subject == "Informe de noviembre de 2026"
    assert "<h2>Informe de noviembre de 2026</h2>" in body and "Aviso de la web" not in body
    assert f"{API}/x?t=1" in body and "Visitas: 0" in body


@pytest.mark.parametrize(
    ("case", "path", "signer"),
    [
        ("tampered", "2026-11?t={token}x", links()),
        ("expired", "2026-11?t={token}", links(DUE.timestamp() + 61 * 86400)),
        ("other month", "2026-10?t={token}", links()),
        ("no token", "2026-11", links()),
        ("not a month", "2026-13?t={token}", links()),
        ("another secret", "2026-11?t={token}", ReportLinks(["o" * 43], API, 60)),
        ("no secret", "2026-11?t={token}", None),
    ],
)
def test_a_bad_expired_or_other_month_token_is_a_404_with_no_detail(
    case: str, path: str, signer: ReportLinks | None
) -> None:
    engine = sa.create_engine("sqlite://")  # Never reached.
    token = links().token(NOVEMBER)
    answer = get(page_app(engine, signer), "/_site/report/" + path.format(token=token))
    assert answer.status_code == 404, case
    assert NOT_FOUND.heading in answer.text and '<html lang="es"' in answer.text
    assert not re.search(r"expir|firma|caduc|token", answer.text, re.IGNORECASE)
    assert answer.headers["cache-control"] == "no-store"
    assert answer.headers["content-security-policy"] == web.REPORT_POLICY


@pytest.mark.parametrize("month", ["9999-12", "0000-01"])
def test_a_signed_link_to_a_month_the_calendar_cannot_hold_is_a_404(month: str) -> None:
    """Found by the fuzz pass (tests/test_public_fuzz.py): a link signed for 9999-12 (whose
    next month does not exist) or year 0 was a 500 (OverflowError, ValueError)."""
    signer = links()
    token = signer._serializer.dumps(month)  # As `report link` would sign it.
    answer = get(
        page_app(sa.create_engine("sqlite://"), signer), f"/_site/report/{month}?t={token}"
    )
    assert answer.status_code == 404 and NOT_FOUND.heading in answer.text


def test_a_link_works_until_its_last_day(db_url: str, tmp_path: Path) -> None:
    engine = november(db_url, tmp_path)
    token = links().token(NOVEMBER)
    still = links(DUE.timestamp() + 60 * 86400 - 60)
    assert get(page_app(engine, still), f"/_site/report/2026-11?t={token}").status_code == 200
    engine.dispose()


def test_two_workers_due_at_once_send_one_email(
    db_url: str, tmp_path: Path, emailjs: HTTPServer
) -> None:
    engines = [new_engine(db_url) for _ in range(2)]
    sent_until(engines[0], "2026-10")
    accept_sends(emailjs)
    workers = [worker(engine, emailjs) for engine in engines]

    async def both() -> list[bool]:
        return await asyncio.gather(*(p.send_when_due(o, DUE) for p, o in workers))  # type: ignore[arg-type]

    assert sorted(run(both())) == [False, True]
    assert len(sent_payloads(emailjs)) == 1
    try_again_now(engines[0])  # Only the month recorded stops the next tries.
    restarted = worker(new_engine(db_url), emailjs)  # A new process: the database remembers.
    assert not tick(*restarted, DUE + dt.timedelta(days=3))
    assert len(sent_payloads(emailjs)) == 1
    assert tick(*restarted, dt.datetime(2027, 1, 1, 9, 0, tzinfo=ZONE))  # December's.
    assert [p["template_params"]["report_month"] for p in sent_payloads(emailjs)] == [
        "noviembre de 2026",
        "diciembre de 2026",
    ]
    for engine in engines:
        engine.dispose()


def test_a_refused_email_is_tried_again_later_and_the_owner_gets_one(
    db_url: str, tmp_path: Path, emailjs: HTTPServer
) -> None:
    engine = new_engine(db_url)
    sent_until(engine, "2026-10")
    plugin, owner = worker(engine, emailjs)
    refuse_sends(emailjs, 503, "Service Unavailable")
    assert not tick(plugin, owner)
    assert not tick(plugin, owner, DUE + dt.timedelta(minutes=1))  # Not every round.
    assert len(sent_payloads(emailjs)) == 1
    assert plugin.health(DUE + dt.timedelta(minutes=30)) == {}  # Not late yet.
    later = DUE + mail.ALERT_AFTER + dt.timedelta(minutes=1)
    try_again_now(engine)
    assert not tick(plugin, owner, later)  # Refused again, now late: the owner is told.
    assert len(owner.alerts) == 1 and "2026-11" in owner.alerts[0]
    assert plugin.health(later) == {"report_mail_unsent": "2026-11"}
    try_again_now(engine)
    assert not tick(plugin, owner, later + dt.timedelta(minutes=15))
    assert len(owner.alerts) == 1  # Once a month.
    accept_sends(emailjs)
    try_again_now(engine)
    assert tick(plugin, owner, later + dt.timedelta(minutes=30))
    try_again_now(engine)
    assert not tick(plugin, owner, later + dt.timedelta(minutes=45))
    sent = sent_payloads(emailjs)
    assert len(sent) == 4  # Three refused, then the one accepted; nothing after it.
    assert plugin.health(later + dt.timedelta(hours=1)) == {}
    engine.dispose()


def test_a_new_site_sends_nothing_at_its_first_start_then_the_next_full_month(
    db_url: str, emailjs: HTTPServer
) -> None:
    engine = new_engine(db_url)
    accept_sends(emailjs)
    plugin, owner = worker(engine, emailjs)
    started = dt.datetime(2026, 11, 26, 9, 0, tzinfo=ZONE)
    assert not tick(plugin, owner, started)
    assert sent_payloads(emailjs) == [] and plugin.health(started) == {}
    assert LeadStore(engine).monitor_state(mail.REPORT_MAIL) == "2026-10"
    assert tick(plugin, owner, DUE)
    [payload] = sent_payloads(emailjs)
    assert payload["template_params"]["report_month"] == "noviembre de 2026"
    engine.dispose()


def test_without_emailjs_nothing_is_sent_and_the_month_stays_due(db_url: str) -> None:
    engine = new_engine(db_url)
    sent_until(engine, "2026-10")
    plugin = ReportPlugin(hour=8, template_id=TEMPLATE, links=links())
    owner = SimpleNamespace(
        store=LeadStore(engine), delivery=SimpleNamespace(client=None), site_url="", alert=None
    )
    plugin.watchers(owner)  # type: ignore[arg-type]
    assert not run(mail.send_when_due(owner.store, plugin.report_mail(owner), DUE))  # type: ignore[arg-type]
    assert LeadStore(engine).monitor_state(mail.REPORT_MAIL) == "2026-10"
    engine.dispose()


@pytest.mark.parametrize(
    ("moment", "due"),
    [
        (dt.datetime(2026, 12, 1, 7, 59, tzinfo=ZONE), "2026-10"),
        (dt.datetime(2026, 12, 1, 8, 0, tzinfo=ZONE), "2026-11"),
        (dt.datetime(2026, 4, 1, 8, 0, tzinfo=ZONE), "2026-03"),  # Summer time.
        (dt.datetime(2026, 4, 1, 5, 59, tzinfo=dt.UTC), "2026-02"),  # 07:59 in Madrid.
        (dt.datetime(2027, 1, 1, 8, 0, tzinfo=ZONE), "2026-12"),
    ],
)
def test_the_month_is_due_from_the_first_at_its_hour_agency_time(
    moment: dt.datetime, due: str
) -> None:
    assert month_key(mail.due_month(moment, 8)) == due


@given(
    st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1)),
    st.integers(min_value=0, max_value=23),
)
def test_the_due_month_is_the_latest_one_whose_moment_has_come(
    naive: dt.datetime, hour: int
) -> None:
    now = naive.replace(tzinfo=dt.UTC)
    month = mail.due_month(now, hour)
    assert month.day == 1 and mail.due_at(month, hour) <= now
    following = mail.first_of_month(month + dt.timedelta(days=31))
    assert mail.due_at(following, hour) > now


def test_the_report_plugs_in_by_default_and_report_mail_false_turns_it_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from agency_site.leads import plugins
    from agency_site.settings import get_settings

    monkeypatch.setenv("DEPLOY_DATA_DIR", str(tmp_path))  # The generated link secret.
    monkeypatch.setenv("REPORT_LINK_DAYS", "30")
    get_settings.cache_clear()
    try:
        [loaded] = [p for p in plugins.load(get_settings()) if isinstance(p, ReportPlugin)]
        assert loaded.hour == 8 and loaded.links is not None
        assert loaded.links.max_age == dt.timedelta(days=30)
        monkeypatch.setenv("REPORT_MAIL", "false")
        get_settings.cache_clear()
        [off] = [p for p in plugins.load(get_settings()) if isinstance(p, ReportPlugin)]
        # No e-mail's watcher: only the daily purge of the counts past their retention.
        [purge] = off.watchers(SimpleNamespace(store=None))  # type: ignore[arg-type]
        assert off.hour is None and purge.func == off.purge_daily  # type: ignore[attr-defined]
    finally:
        get_settings.cache_clear()


def test_a_booking_link_s_secret_signs_no_report_link() -> None:
    from agency_site.bookings.links import LinkAction, LinkSigner

    booking_token = LinkSigner(SECRET).token(LinkAction.CONFIRM, 1, "k")
    assert not links().opens(booking_token, "2026-11")
    assert links().opens(links().token(NOVEMBER), "2026-11")

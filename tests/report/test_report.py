"""The owner's report (issue 34): a generated access log replayed with known leads,
bookings and form starts, and every figure of the report checked; nothing personal kept."""

import datetime as dt
import itertools
import json
import os
import re
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlmodel import Session

from agency_site.bookings.models import Booking
from agency_site.leads.models import Lead
from agency_site.report import log_cursor, tables
from agency_site.report.figures import month_figures
from agency_site.report.ingest import ingest
from agency_site.report.log_lines import parse
from agency_site.report.page import report_page
from agency_site.report.text import report_text
from agency_site.report.visitors import KnownPages, bot_name, device
from tests.lead_store import new_engine

SITE = KnownPages(
    pages=frozenset({"/", "/about", "/contact", "/ca", "/ca/about", "/ca/contact"}),
    own_hosts=frozenset({"agencia.example", "localhost"}),
)
ADDRESS = "203.0.113.77"
PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/128.0 UniqueAgent/7.7"
TABLET = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) Safari/604.1"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
# Noon in Madrid on a day of November 2026.
NOON = dt.datetime(2026, 11, 10, 11, 0, tzinfo=dt.UTC)


def line(
    uri: str,
    *,
    agent: str = DESKTOP,
    status: int = 200,
    referer: str = "",
    method: str = "GET",
    when: dt.datetime = NOON,
    content_type: str = "text/html; charset=utf-8",
) -> str:
    """One access-log line as Caddy writes it (the address as the log would *not* have it:
    the test checks it never reaches the database)."""
    headers = {"User-Agent": [agent], **({"Referer": [referer]} if referer else {})}
    return json.dumps({
        "level": "info", "ts": when.timestamp(), "msg": "handled request",
        "request": {"remote_ip": ADDRESS, "method": method, "uri": uri, "headers": headers},
        "status": status, "resp_headers": {"Content-Type": [content_type]},
    }) + "\n"  # fmt: skip


def generated_log() -> list[str]:
    """Known traffic of November 2026 (and one line of October, not counted in November)."""
    other_day = NOON + dt.timedelta(days=1)
    return [
        *[line("/", agent=PHONE) for _ in range(3)],  # 3 visits, Spanish home, phone
        line("/about", referer="https://www.google.com/search?[hidden]"),
        line("/about/", status=308),  # A redirect: not a visit.
        line("/ca/about", agent=TABLET, referer="https://agencia.example/ca"),  # Own site.
        line("/ca", when=other_day, referer="https://news.example/post?[hidden]"),
        line("/contact?utm_source=newsletter&utm_medium=email&utm_campaign=nov", when=other_day),
        line("/contact?utm_source=newsletter&utm_medium=email&utm_campaign=nov", agent=PHONE),
        line("/assets/entry-Ab12.js", content_type="text/javascript"),  # Files: not visits.
        line("/robots.txt", content_type="text/plain"),
        line("/_site/forms/token"),
        line("/", method="HEAD"),
        line("/", agent=GOOGLEBOT),  # Bots: apart.
        line("/about", agent=GOOGLEBOT),
        line("/", agent="UptimeRobot/2.0"),
        line("/", agent=""),
        line("/servicios-viejos", status=404, referer="https://blog.example/x?[hidden]"),
        line("/servicios-viejos", status=404, referer="https://blog.example/y"),
        line("/ca/vell", status=404, referer="https://agencia.example/ca/about"),
        line("/", when=dt.datetime(2026, 10, 31, 12, 0, tzinfo=dt.UTC)),  # October.
        '{"torn": ',  # A torn line (no newline): left for the next run.
    ]


def _lead(session: Session, kind: str, status: str, source: dict, **fields) -> Lead:
    lead = Lead(kind=kind, status=status, source=source, fields=fields, created_at=NOON)
    session.add(lead)
    session.flush()
    return lead


def known_leads(engine: sa.Engine) -> None:
    """4 stored leads (one still queued), 1 spam, 3 bookings; 5 forms started."""
    newsletter = {"utm_source": "newsletter", "page": "/contact"}
    with Session(engine) as session:
        _lead(session, "quote", "sent", newsletter, service="seo")
        _lead(session, "quote", "queued", {"referrer": "google.com"}, service="seo")
        _lead(session, "contact", "sent", {})
        booked = _lead(session, "booking", "sent", newsletter)
        spam = _lead(session, "quote", "spam", {}, service="web")
        other = [_lead(session, "booking", "sent", {}) for _ in range(2)]
        for lead, state, attendance in (
            (booked, "confirmed", "attended"),
            (other[0], "confirmed", None),
            (other[1], "declined", None),
        ):
            session.add(Booking(lead_id=lead.id, date=dt.date(2026, 11, 20), time="10:00",
                                state=state, attendance=attendance, created_at=NOON))  # fmt: skip
        assert spam.id
        session.commit()
    with engine.begin() as connection:  # As the workers' counters flush them.
        for form in ("quote", "quote", "booking", "contact", ""):
            key = {"day": NOON.date(), "form": form}
            tables.increment(connection, tables.forms_started, key)


def test_a_replayed_log_and_known_leads_give_every_figure(db_url: str, tmp_path: Path) -> None:
    engine = new_engine(db_url)
    log = tmp_path / "access.log"
    log.write_text("".join(generated_log()))
    known_leads(engine)
    first = ingest(engine, log, SITE)
    again = ingest(engine, log, SITE)  # Nothing new: nothing counted twice.
    assert first.lines == 21 and again.lines == 0
    figures = month_figures(engine, dt.date(2026, 11, 1))
    engine.dispose()

    assert figures.visits == 8
    assert dict((day.day, n) for day, n in figures.visits_by_day if n) == {10: 6, 11: 2}
    assert len(figures.visits_by_day) == 30
    assert figures.visits_by_page == [
        ("/", "es", 3), ("/contact", "es", 2), ("/", "ca", 1), ("/about", "ca", 1), ("/about", "es", 1),
    ]  # fmt: skip
    assert figures.devices == {"mobile": 4, "desktop": 3, "tablet": 1}
    assert figures.referrers == [("google.com", 1), ("news.example", 1)]
    assert figures.campaigns == [("newsletter", "email", "nov", 2)]
    assert figures.bots == [("Google", 2), ("Monitor", 1), ("Sin agente", 1)]
    assert figures.not_found == [
        ("/servicios-viejos", "blog.example", 2),
        ("/ca/vell", "/ca/about", 1),
    ]
    assert figures.started == {"quote": 2, "booking": 1, "contact": 1, "": 1}
    assert figures.leads == {"sent": 6, "delivered": 5, "waiting": 1, "spam": 1}
    assert figures.leads_by_source == [("directo", 3), ("newsletter", 2), ("google.com", 1)]
    assert figures.leads_by_service == [("SEO", 2)] or figures.leads_by_service[0][1] == 2
    assert figures.bookings["requested"] == 3 and figures.bookings["confirmed"] == 2
    assert figures.bookings["declined"] == 1 and figures.bookings["attended"] == 1
    assert [(rate.part, rate.whole) for rate in figures.rates] == [
        (5, 8), (6, 8), (6, 5), (2, 3), (1, 2),
    ]  # fmt: skip
    text = report_text(figures)
    assert "Informe de noviembre de 2026" in text
    assert "Total: 8 visitas (móvil 4, ordenador 3, tableta 1)" in text
    assert "/about (catalán): 1" in text and "newsletter / email / nov: 2" in text
    assert "visitas que envían una solicitud: 75,0 % (6 de 8)" in text
    assert "/servicios-viejos ← blog.example: 2" in text
    assert "Citas: 3 pedidas, 2 confirmadas, 1 rechazadas por la agencia" in text


def test_no_address_nor_user_agent_reaches_the_database(db_url: str, tmp_path: Path) -> None:
    engine = new_engine(db_url)
    log = tmp_path / "access.log"
    log.write_text("".join(generated_log()))
    ingest(engine, log, SITE)
    with engine.connect() as connection:
        stored = [
            " ".join(map(str, row))
            for table in tables.metadata.sorted_tables
            for row in connection.execute(sa.select(table))
        ]
        columns = {
            column["name"]
            for table in tables.metadata.sorted_tables
            for column in sa.inspect(connection).get_columns(table.name)
        }
    engine.dispose()
    assert stored and not any(ADDRESS in row or "203.0.113" in row for row in stored)
    assert not any(agent in row for row in stored for agent in ("UniqueAgent", "Mozilla", "iPhone"))
    assert not columns & {"ip", "address", "remote_ip", "user_agent", "agent", "lead_id", "email"}


def test_the_cursor_reads_each_line_once_across_a_rotation(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_text("a\nb\n")
    lines, cursor = log_cursor.read(log, None)
    assert lines == ["a\n", "b\n"]
    with log.open("a") as file:
        file.write("c\npartial")
    lines, cursor = log_cursor.read(log, cursor)
    assert lines == ["c\n"]  # The torn line waits for its end.
    # logrotate's copytruncate: the day copied into access.log.1, the live file emptied.
    with log.open("a") as file:
        file.write(" line\n")
    (tmp_path / "access.log.1").write_bytes(log.read_bytes())
    log.write_text("d\n")
    lines, cursor = log_cursor.read(log, cursor)
    assert lines == ["partial line\n", "d\n"]
    # A rotation by rename (the old inode becomes access.log.1).
    with log.open("a") as file:
        file.write("e\n")
    os.replace(log, tmp_path / "access.log.1")
    log.write_text("f\n")
    lines, cursor = log_cursor.read(log, cursor)
    assert lines == ["e\n", "f\n"]
    assert log_cursor.read(log, cursor)[0] == []


def test_lines_written_into_an_empty_live_file_then_rotated_away_are_read(
    tmp_path: Path,
) -> None:
    """Found by the Hypothesis test below (cuts=[0], rotate_at=1): a run on an empty log,
    then a day written and rotated (copytruncate) before the next run."""
    log, rotated = tmp_path / "access.log", tmp_path / "access.log.1"
    log.write_text("")
    lines, cursor = log_cursor.read(log, None)
    day_one = [line("/", when=NOON), line("/about", when=NOON)]
    log.write_text("".join(day_one))
    rotated.write_text("".join(day_one))
    log.write_text("")
    lines, cursor = log_cursor.read(log, cursor)
    assert lines == day_one
    assert log_cursor.read(log, cursor)[0] == []  # The rotated day is not read twice...
    day_two = [line("/ca", when=NOON + dt.timedelta(days=1))]
    log.write_text("".join(day_two))
    lines, cursor = log_cursor.read(log, cursor)
    assert lines == day_two  # ...nor when the live file fills again without a rotation.
    rotated.write_text("".join(day_two))
    log.write_text("")
    _, cursor = log_cursor.read(log, cursor)  # Rotated after its lines were read.
    day_three = [line("/contact", when=NOON + dt.timedelta(days=2))]
    log.write_text("".join(day_three))
    rotated.write_text("".join(day_three))  # A quiet night: filled and rotated between runs.
    log.write_text("")
    assert log_cursor.read(log, cursor)[0] == day_three


def test_a_live_file_emptied_then_grown_past_the_offset_is_known_by_its_first_line(
    tmp_path: Path,
) -> None:
    log = tmp_path / "access.log"
    day_one = [line("/", when=NOON), line("/about", when=NOON)]
    log.write_text("".join(day_one))
    _, cursor = log_cursor.read(log, None)
    (tmp_path / "access.log.1").write_text("".join([*day_one, line("/ca", when=NOON)]))
    day_two = [line(f"/{n}", when=NOON + dt.timedelta(days=1)) for n in range(5)]
    log.write_text("".join(day_two))  # Same inode, longer than the offset: another file.
    lines, _ = log_cursor.read(log, cursor)
    assert lines == [line("/ca", when=NOON), *day_two]


def test_the_html_page_has_three_inline_charts_and_no_script(db_url: str, tmp_path) -> None:
    engine = new_engine(db_url)
    log = tmp_path / "access.log"
    log.write_text("".join(generated_log()))
    known_leads(engine)
    ingest(engine, log, SITE)
    html = report_page(month_figures(engine, dt.date(2026, 11, 1)))
    engine.dispose()
    assert html.count("<svg") == 3 and "<script" not in html.lower()
    assert 'name="viewport"' in html and "Informe de noviembre de 2026" in html
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|href=\"https?:", html)  # Nothing fetched.


def test_the_route_table_gives_the_pages_of_both_languages() -> None:
    from agency_site.report.visitors import known_pages

    pages = known_pages("https://www.agencia.example").pages
    assert {"/", "/about", "/ca", "/ca/about"} <= pages


@given(st.text(max_size=300))
def test_any_user_agent_gets_a_device_and_any_line_parses_or_is_skipped(text: str) -> None:
    assert device(text) in {"mobile", "tablet", "desktop"}
    assert bot_name(text) is None or isinstance(bot_name(text), str)
    hit = parse(text)
    assert hit is None or hit.status


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        (GOOGLEBOT, "Google"),
        ("curl/8.0", "Herramienta"),
        ("Python-urllib/3.11", "Herramienta"),  # The load test's page reads (make stack).
        (PHONE, None),
        ("", "Sin agente"),
    ],
)
def test_known_crawlers_and_monitors_are_bots(agent: str, expected) -> None:
    assert bot_name(agent) == expected


@pytest.mark.parametrize(("language", "days"), [("es", "a los {} días"), ("ca", "als {} dies")])
def test_both_policies_say_the_log_s_address_is_shortened_and_kept_as_long_as_logrotate_keeps_it(
    language: str, days: str
) -> None:
    from agency_site import locale
    from agency_site.content.legal import COOKIES, PRIVACY
    from agency_site.deploy.access_log import IPV6_BITS, KEEP_DAYS

    with locale.active(language):
        for policy in (PRIVACY.body, COOKIES.body):
            assert days.format(KEEP_DAYS) in policy
        assert f"{128 - IPV6_BITS} bit" in PRIVACY.body


def _counted(engine: sa.Engine) -> dict[str, set]:
    with engine.connect() as connection:
        return {t.name: set(connection.execute(sa.select(t))) for t in tables.COUNTED}


@settings(max_examples=25, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=0, max_value=20), max_size=5),
    rotate_at=st.one_of(st.none(), st.integers(min_value=0, max_value=5)),
)
def test_reading_the_log_in_any_number_of_runs_counts_what_one_run_counts(
    cuts: list[int], rotate_at: int | None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """However the runs fall between the writes (and a copytruncate rotation), each line
    is counted exactly once."""
    folder = tmp_path_factory.mktemp("runs")
    lines = generated_log()[:-1]  # Whole lines only.
    once, runs = (sa.create_engine(f"sqlite:///{folder / name}.db") for name in ("once", "runs"))
    for engine in (once, runs):
        tables.metadata.create_all(engine)
    (folder / "all.log").write_text("".join(lines))
    ingest(once, folder / "all.log", SITE)
    log = folder / "access.log"
    log.write_text("")
    bounds = [0, *sorted(cuts), len(lines)]
    for run_number, (start, end) in enumerate(itertools.pairwise(bounds)):
        with log.open("a") as file:
            file.write("".join(lines[start:end]))
        if run_number == rotate_at:  # logrotate between two runs: copy, then empty.
            (folder / "access.log.1").write_bytes(log.read_bytes())
            log.write_text("")
        ingest(runs, log, SITE)
    assert _counted(runs) == _counted(once)
    once.dispose()
    runs.dispose()


def test_each_form_says_which_it_is_when_it_asks_for_its_token() -> None:
    from agency_site.components import form_hooks

    for state, fallback in form_hooks.HTTP_FALLBACKS.items():
        assert f"/_site/forms/token?form={state.form.kind}" in str(
            fallback.hook._get_all_var_data().hooks
        ), state

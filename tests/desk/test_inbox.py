"""The inbox: its search and filters return exactly the leads a Python filter over all of them
returns, newest first, page after page (Hypothesis, SQLite and PostgreSQL); one page is read
through the arrival index; the page shows each lead's form, status, source and language."""

import datetime as dt
import re
import unicodedata

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agency_site import paths
from agency_site.desk import inbox
from agency_site.desk.inbox import (
    SEARCHED,
    STATUSES,
    Filters,
    InboxCursor,
    Shown,
    fold,
    month_bounds,
)
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead
from agency_site.leads.statuses import LeadStatus
from tests.desk.conftest import DeskSite

# What people type in the forms, and what trips a LIKE: accents, case, ñ, ç, ·, %, _, \,
# a decomposed é (e + U+0301).
ALPHABET = "aAáÁeEéÉnNñÑçÇlL·'-@.+ 09%_\\" + "e\u0301"
BASE = dt.datetime(2025, 12, 31, 22, 30, tzinfo=dt.UTC)  # 23:30 in Spain, a month's edge.
MONTHS = ["2025-12", "2026-01", "2026-02"]

texts = st.text(ALPHABET, max_size=12)
leads_strategy = st.lists(
    st.fixed_dictionaries(
        {
            "kind": st.sampled_from(list(LeadKind)),
            "status": st.sampled_from(list(LeadStatus)),
            "minutes": st.integers(0, 60 * 24 * 45),
            "fields": st.fixed_dictionaries(
                {},
                optional={name: texts for name in SEARCHED},
            ),
        }
    ),
    max_size=25,
)


def _store(engine: sa.Engine, leads: list[dict]) -> list[dict]:
    """Insert the leads (the table emptied first); each with its id and arrival."""
    with engine.begin() as connection:
        connection.execute(sa.delete(Lead))
        stored = []
        for index, lead in enumerate(leads):
            # Some share an arrival: the id orders them.
            created = BASE + dt.timedelta(minutes=lead["minutes"] - lead["minutes"] % 7)
            result = connection.execute(
                sa.insert(Lead).values(
                    kind=str(lead["kind"]),
                    status=str(lead["status"]),
                    fields=lead["fields"],
                    created_at=created,
                    source={"utm_campaign": f"c{index}"},
                    language="ca" if index % 3 == 0 else "es",
                )
            )
            stored.append(lead | {"id": result.inserted_primary_key[0], "created_at": created})
    return stored


def _expected(stored: list[dict], filters: Filters) -> list[int]:
    """The ids a plain Python filter keeps, newest first."""
    kept = []
    for lead in stored:
        if filters.form and lead["kind"] != filters.form:
            continue
        if filters.status and lead["status"] not in STATUSES[filters.status]:
            continue
        if filters.month:
            start, end = month_bounds(filters.month)
            if not start <= lead["created_at"] < end:
                continue
        if filters.q:
            values = [lead["fields"].get(name, "") for name in SEARCHED]
            if not any(fold(filters.q) in fold(value) for value in values):
                continue
        kept.append(lead)
    kept.sort(key=lambda lead: (lead["created_at"], lead["id"]), reverse=True)
    return [lead["id"] for lead in kept]


def _all_pages(engine: sa.Engine, filters: Filters, size: int) -> list[int]:
    """Every page from the newest on, following the older cursor; checks the way back."""
    seen: list[int] = []
    pages = []
    page = inbox.search(engine, filters, size=size)
    while True:
        pages.append([row.id for row in page.rows])
        seen += pages[-1]
        if page.older is None:
            break
        page = inbox.search(engine, filters, before=page.older, size=size)
    # Back from the last page towards the newest, by the newer cursors.
    back = [pages[-1]]
    while page.newer is not None:
        page = inbox.search(engine, filters, after=page.newer, size=size)
        back.append([row.id for row in page.rows])
    assert [id for chunk in reversed(back) for id in chunk] == seen
    return seen


@pytest.fixture
def engine(desk_site: DeskSite) -> sa.Engine:
    return desk_site.engine


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    leads=leads_strategy,
    q=st.one_of(st.just(""), texts),
    form=st.one_of(st.none(), st.sampled_from(list(LeadKind))),
    status=st.one_of(st.none(), st.sampled_from(list(Shown))),
    month=st.one_of(st.none(), st.sampled_from(MONTHS)),
    size=st.integers(1, 6),
    pick=st.integers(0, 1000),
)
def test_the_filters_return_exactly_the_leads_a_python_filter_returns(
    engine: sa.Engine, leads, q, form, status, month, size, pick
) -> None:
    stored = _store(engine, leads)
    # Often search for a piece of a stored value: a search that finds something.
    values = [v for lead in stored for v in lead["fields"].values() if v.strip()]
    if values and pick % 2:
        value = values[pick % len(values)]
        q = value[pick % len(value) :][:4] or q
    filters = Filters(q=q, form=form, status=status, month=month)
    assert _all_pages(engine, filters, size) == _expected(stored, filters)


def test_the_search_ignores_case_and_accents_composition_on_both_databases(
    engine: sa.Engine,
) -> None:
    stored = _store(
        engine,
        [
            {"kind": LeadKind.QUOTE, "status": LeadStatus.SENT, "minutes": 1,
             "fields": {"name": "ÁNGELA Muñoz", "message": "100% a_b"}},
            {"kind": LeadKind.BOOKING, "status": LeadStatus.SPAM, "minutes": 2,
             "fields": {"name": unicodedata.normalize("NFD", "José"), "email": "J@X.ES"}},
        ],
    )  # fmt: skip
    ids = [lead["id"] for lead in stored]

    def found(q: str) -> list[int]:
        return [row.id for row in inbox.search(engine, Filters(q=q)).rows]

    assert found("ángela") == [ids[0]] and found("MUÑOZ") == [ids[0]]
    assert found("josé") == [ids[1]] and found("j@x.es") == [ids[1]]
    assert found("100%") == [ids[0]] and found("a_b") == [ids[0]] and found("%%") == []
    assert found("_") == [ids[0]]


def test_a_page_is_read_through_the_arrival_index(engine: sa.Engine) -> None:
    """The newest page, one after a cursor and a month use ix_leads_created_at_id (no sort
    of the table); a form or status filter reads through an index too (the planner's pick:
    the arrival index, or the status index for a rare status), never the whole table."""
    year = 30_000  # A busy year of leads, as the planner then sees the table.
    statuses = [LeadStatus.SENT] * 8 + [LeadStatus.SPAM, LeadStatus.QUEUED]
    rows = [
        {
            "kind": str(list(LeadKind)[n % 3]),
            "status": str(statuses[n % 10]),
            "fields": {"email": f"p{n}@example.com"},
            "created_at": BASE + dt.timedelta(minutes=17 * n),
            "language": "es",
        }
        for n in range(year)
    ]
    with engine.begin() as connection:
        connection.execute(sa.insert(Lead), rows)
        connection.exec_driver_sql("ANALYZE")
    with engine.begin() as connection:
        explain = "EXPLAIN " if engine.dialect.name == "postgresql" else "EXPLAIN QUERY PLAN "
        for filters, before, arrival in (
            (Filters(), None, True),
            (Filters(), InboxCursor(BASE + dt.timedelta(days=200), 10), True),
            (Filters(month="2026-03"), None, True),
            (Filters(month="2026-03"), InboxCursor(BASE + dt.timedelta(days=80), 10), True),
            (Filters(form=LeadKind.QUOTE, status=Shown.DELIVERED), InboxCursor(BASE, 10), False),
        ):
            inbox._prepared(connection)
            query = (
                sa.select(Lead.id)
                .where(*inbox.conditions(engine, connection, filters))
                .order_by(Lead.created_at.desc(), Lead.id.desc())
                .limit(50)
            )
            if before is not None:
                key = sa.tuple_(Lead.created_at, Lead.id)
                query = query.where(key < sa.tuple_(sa.literal(before.created_at, Lead.__table__.c.created_at.type), sa.literal(10)))  # fmt: skip
            compiled = query.compile(engine, compile_kwargs={"render_postcompile": True})
            params = compiled.params
            if compiled.positiontup is not None:  # SQLite's "?" parameters.
                params = tuple(params[name] for name in compiled.positiontup)
            rows = connection.exec_driver_sql(explain + str(compiled), params)
            plan = " ".join(str(row) for row in rows)
            assert "Seq Scan" not in plan and not re.search(r"SCAN leads(?! USING)", plan)
            if arrival:
                assert "ix_leads_created_at_id" in plan, plan
                assert "TEMP B-TREE" not in plan.upper() and "Sort " not in plan, plan


def test_the_inbox_page_shows_each_lead_with_its_words(desk_site: DeskSite) -> None:
    browser = desk_site.signed_in()
    with desk_site.engine.begin() as connection:
        connection.execute(
            sa.insert(Lead).values(
                kind="booking",
                status="spam",
                fields={"name": "Ana <b>García</b>", "email": "ana@example.com", "phone": "600"},
                created_at=dt.datetime(2026, 11, 27, 9, 5, tzinfo=dt.UTC),
                source={
                    "utm_campaign": "otoño",
                    "referrer": "google.com",
                    "landing": "/services/x",
                },
                language="ca",
            )
        )
        lead_id = connection.execute(sa.select(sa.func.max(Lead.id))).scalar()
    page = browser.get(paths.DESK).text
    for text in (
        "Reserva de consulta", "Spam", "Campaña: otoño", "Desde: google.com",
        "Entrada: /services/x", "Català", "27/11/2026 10:05", "Ana &lt;b&gt;García&lt;/b&gt;",
        f'href="{paths.desk_lead(lead_id)}"',
    ):  # fmt: skip
        assert text in page, text
    filtered = browser.get(paths.DESK, params={"status": "delivered", "q": "ana"}).text
    assert "Ninguna solicitud cumple estos filtros" in filtered
    assert 'value="delivered" selected' in filtered and 'value="ana"' in filtered
    odd = browser.get(paths.DESK, params={"status": "x", "form": "y", "month": "2026-13"})
    assert odd.status_code == 200 and "Reserva de consulta" in odd.text


def test_a_cursor_survives_its_trip_through_the_url() -> None:
    moment = dt.datetime(2026, 3, 29, 1, 59, 59, 999_999, tzinfo=dt.UTC)
    assert InboxCursor.parse(str(InboxCursor(moment, 42))) == InboxCursor(moment, 42)
    for junk in ("", "x", "1_", "_1", "-5_2", "1" * 50 + "_1", None):
        assert InboxCursor.parse(junk) is None


def test_a_month_is_the_agencys_month() -> None:
    start, end = month_bounds("2026-01")
    assert start == dt.datetime(2025, 12, 31, 23, tzinfo=dt.UTC)
    assert end == dt.datetime(2026, 1, 31, 23, tzinfo=dt.UTC)
    assert month_bounds("2026-12")[1] == dt.datetime(2026, 12, 31, 23, tzinfo=dt.UTC)


def test_every_stored_status_is_shown_as_exactly_one() -> None:
    covered = [status for each in STATUSES.values() for status in each]
    assert sorted(covered) == sorted(LeadStatus)

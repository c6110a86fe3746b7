"""A year of leads costs a booker nothing (issue 45, item 2), on SQLite and PostgreSQL: with a
few thousand leads seeded as ``make seed-leads`` seeds the stack (``scripts/seed_leads.py``,
the same code), every statement a booking sends through the site's intake and store, every
statement a backend worker's poll sends (the monitor's tick with the bookings' watchers, the
retry loop), and the bookings' periodic jobs read the tables that grow with the leads
(``booking_plans.GROWING``) through an index: PostgreSQL's plan with sequential scans
priced out has no ``Seq Scan`` on them, SQLite's no ``SCAN <table>`` without an index.
The statements are captured as ``scripts/loadtest/booking_plans.py`` captures them for
docs/loadtest.md's figures."""

import datetime as dt
from pathlib import Path

import pytest
import sqlalchemy as sa

from agency_site.bookings import slots
from agency_site.leads.models import Lead
from scripts.loadtest import booking_plans
from scripts.loadtest.bookers import SlotPlan
from scripts.seed_leads import AlreadySeeded, seed
from tests.lead_store import new_engine
from tests.run_async import run

SEEDED = 3000


@pytest.fixture
def seeded(db_url: str):
    """A migrated database holding a seeded year of ``SEEDED`` leads."""
    engine = new_engine(db_url)
    seed(engine, SEEDED)
    yield engine
    engine.dispose()


def _indexless(engine: sa.Engine, sent: list[booking_plans.Sent]) -> list[str]:
    """Each statement of ``sent`` that reads a growing table without an index, and how."""
    found = []
    for one in sent:
        if not booking_plans.explainable(one):
            continue
        if scans := booking_plans.full_reads(engine, one):
            found.append(f"{' '.join(one.statement.split())[:200]}\n    {'; '.join(scans)}")
    return found


def _free_slot(engine: sa.Engine) -> tuple[str, str]:
    """The load test's first slot (seeded bookings never hold one of its slots)."""
    day, time = SlotPlan().take()
    assert time not in slots.taken(engine, [dt.date.fromisoformat(day)])[dt.date.fromisoformat(day)]
    return day, time


async def _booking_and_poll(engine: sa.Engine):
    store = booking_plans.booking_store(engine)
    async with booking_plans.fake_emailjs_on_loopback() as emailjs_base:
        intake = booking_plans.site_intake(store, emailjs_base)
        monitor = booking_plans.worker_monitor(intake)
        await booking_plans.one_round(intake, monitor)  # The day's jobs claimed.
        outcome, booking = await booking_plans.book_once(intake, 1, _free_slot(engine))
        poll = await booking_plans.one_round(intake, monitor)
    return outcome, booking, poll


def test_a_booking_and_a_workers_poll_read_the_seeded_year_through_indexes(
    seeded: sa.Engine,
) -> None:
    outcome, booking, poll = run(_booking_and_poll(seeded))
    assert outcome == "sent"
    # The booking wrote its lead and booking, and read the caps' counts (they are on).
    statements = " ".join(one.statement for one in booking)
    assert "INSERT INTO leads" in statements and "INSERT INTO bookings" in statements
    assert "bookings.mailbox" in statements and "bookings.network" in statements
    assert "FROM bookings" in " ".join(one.statement for one in poll)  # The watchers ran.
    assert _indexless(seeded, booking) == []
    assert _indexless(seeded, poll) == []


def test_the_bookings_periodic_jobs_read_the_seeded_year_through_indexes(
    seeded: sa.Engine,
) -> None:
    jobs = booking_plans.periodic(seeded)
    assert len([one for one in jobs if "FROM bookings" in one.statement]) == 4
    assert _indexless(seeded, jobs) == []


def test_the_seed_is_a_year_of_every_form_and_booking_state_and_refuses_a_second(
    seeded: sa.Engine,
) -> None:
    with seeded.connect() as connection:
        query = sa.text("SELECT kind, count(*) FROM leads GROUP BY kind")
        kinds = {kind: count for kind, count in connection.execute(query)}
        states = {row[0] for row in connection.execute(sa.text("SELECT state FROM bookings"))}
        oldest, newest = connection.execute(
            sa.select(sa.func.min(Lead.created_at), sa.func.max(Lead.created_at))
        ).one()
    assert sum(kinds.values()) == SEEDED and set(kinds) == {"contact", "quote", "booking"}
    assert {"confirmed", "declined", "cancelled", "expired"} <= states
    assert (newest - oldest) > dt.timedelta(days=300)
    with pytest.raises(AlreadySeeded):
        seed(seeded, 10)
    with seeded.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(Lead)).scalar() == SEEDED


def test_the_seed_refuses_any_database_but_the_stacks(postgres_url: str, tmp_path) -> None:
    """``make seed-leads`` writes only into the PostgreSQL on loopback whose data folder is
    the one ``make stack`` made (``scripts/seed_leads.refusal``)."""
    from scripts.seed_leads import refusal

    stack_dir = tmp_path / "agency-stack-8080" / "postgres" / "data"
    assert "sqlite" in str(refusal(f"sqlite:///{tmp_path / 'leads.db'}", stack_dir))
    remote = "postgresql+psycopg://agency:secret@db.example.com:5432/agency"
    assert "loopback" in str(refusal(remote, stack_dir))
    # The tests' own cluster is on loopback, but keeps its data elsewhere.
    assert "not in the stack's" in str(refusal(postgres_url, stack_dir))
    engine = sa.create_engine(postgres_url)
    with engine.connect() as connection:
        its_dir = connection.execute(sa.text("SHOW data_directory")).scalar()
    engine.dispose()
    assert refusal(postgres_url, Path(its_dir)) is None


def test_make_seed_leads_without_a_stack_says_so(tmp_path, monkeypatch) -> None:
    from scripts import seed_leads, stack

    monkeypatch.setattr(stack, "STATE_DIR", tmp_path)
    with pytest.raises(SystemExit, match="make stack"):
        seed_leads.main(["--count", "10"])
    (tmp_path / "env").write_text(f"REFLEX_DB_URL=sqlite:///{tmp_path / 'x.db'}\n")
    assert seed_leads.main(["--count", "10"]) == 2
    assert not (tmp_path / "x.db").exists()

"""The leads database of the tests: a migrated store, the delivery over it, and the values
they share. A pytest plugin (tests/conftest.py loads it): its fixtures reach every test
folder (tests/leads, tests/bookings, tests/forms...).

Every test that takes ``db_url`` (or ``store``) runs twice: on a SQLite file and on
a real PostgreSQL database (the session's throwaway cluster, tests/conftest.py).
EmailJS is faked by ``tests/emailjs_fake.py``.
"""

import datetime as dt
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from agency_site.emailjs import EmailJSClient
from agency_site.forms.kinds import LeadKind
from agency_site.leads import migrations
from agency_site.leads.delivery import Delivery, RetryPolicy
from agency_site.leads.models import Lead
from agency_site.leads.plugins import Hold, Plugins
from agency_site.leads.store import LeadStore

AGENCY_INBOX = "hola@agencia.test"
TEMPLATES = {
    LeadKind.HERO: "template_contact",
    LeadKind.BOOKING: "template_booking",
    LeadKind.QUOTE: "template_quote",
}
# Failed leads are due again at once, so a test can retry without waiting.
IMMEDIATE = RetryPolicy(base=dt.timedelta(0), pause_s=0)
LEASE = dt.timedelta(minutes=2)
BOOKING_FIELDS = {
    "name": "Ana García",
    "email": "ana@example.com",
    "phone": "+34 600 12 34 56",
    "date": "2026-03-10",
    "time": "10:00",
    "message": "",
}


def new_engine(url: str) -> sa.Engine:
    """An engine like one backend worker's (several may share the database)."""
    if url.startswith("sqlite"):
        return sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
    return sa.create_engine(url)


def add_lead_id(
    store: LeadStore, kind: LeadKind, fields: dict, *, claim_token: str | None, **options
) -> int:
    """Store a new lead through the app's own ``add_lead`` and return its id (its options)."""
    lead = store.add_lead(kind, fields, claim_token=claim_token, **options)
    assert lead.id is not None
    return lead.id


def add_held_booking(store: LeadStore, fields: dict, **options) -> int:
    """A booking lead holding its slot, queued as the intake stores one (``add_lead``'s other
    options: ``language``...); ``store`` needs the bookings plugin (``plugged``)."""
    return add_lead_id(
        store, LeadKind.BOOKING, fields, claim_token=None, lease=LEASE, hold=Hold(), **options
    )


def aged(store: LeadStore, lead_id: int, days: float) -> None:
    """Make a lead look ``days`` old (received that long ago)."""
    moment = dt.datetime.now(dt.UTC) - dt.timedelta(days=days)
    with store.engine.begin() as connection:
        connection.execute(sa.update(Lead).where(Lead.id == lead_id).values(created_at=moment))


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file brought to the latest schema once per session: each test's database is a
    copy of it instead of running every migration again (tests/leads/test_migrations.py
    runs them)."""
    path = tmp_path_factory.mktemp("migrated") / "leads.db"
    engine = new_engine(f"sqlite:///{path}")
    migrations.upgrade(engine)
    engine.dispose()  # The last connection closed: the write-ahead log is folded in.
    assert not path.with_name("leads.db-wal").exists()
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> str:
    """A fresh, migrated database: a SQLite file, or a new database on a real PostgreSQL."""
    if request.param == "postgresql":
        return request.getfixturevalue("migrated_postgres_url")
    shutil.copyfile(request.getfixturevalue("migrated_sqlite"), tmp_path / "leads.db")
    return f"sqlite:///{tmp_path / 'leads.db'}"


def plugged(engine: sa.Engine, **options) -> LeadStore:
    """A store with the bookings plugged in, as the site runs (``BookingsPlugin`` options;
    by default: no daily limit, no caps, no links, no desk)."""
    from agency_site.bookings.plugin import BookingsPlugin

    return LeadStore(engine, Plugins((BookingsPlugin(**options),)))


def bookings_of(store: LeadStore):
    """The bookings plugin of a ``plugged`` store, to set its options."""
    from agency_site.bookings.plugin import BookingsPlugin

    [plugin] = [plugin for plugin in store.plugins if isinstance(plugin, BookingsPlugin)]
    return plugin


@pytest.fixture
def store(db_url: str):
    engine = new_engine(db_url)
    yield plugged(engine)
    engine.dispose()


@pytest.fixture
def any_store(store: LeadStore) -> LeadStore:
    """A migrated store: on SQLite, then on a real PostgreSQL (``store`` runs on both)."""
    return store


def make_delivery(
    store: LeadStore,
    client: EmailJSClient | None,
    policy: RetryPolicy = IMMEDIATE,
    config: str = "config-a",
) -> Delivery:
    return Delivery(store, client, TEMPLATES, AGENCY_INBOX, config, policy)

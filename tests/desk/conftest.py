"""The desk's unit tests: the desk's app on a migrated database (SQLite and PostgreSQL:
``db_url`` of tests/lead_store.py), a clock the test moves, and a signed-in browser.

For a new screen's tests (docs/desk.md "A new screen"):

    def test_my_screen(desk_site):
        browser = desk_site.signed_in("ana@example.com")   # a session, by a real passkey
        page = browser.get(paths.DESK_SPAM)
        desk_site.clock.advance(minutes=31)                 # idle: the session has ended

``browser`` is a Starlette ``TestClient`` at the desk's origin; its POSTs carry the desk's
``Origin`` (``browser.post``); ``desk_site.stranger()`` is one with no session.
"""

import datetime as dt
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from limits.aio.storage import MemoryStorage
from starlette.responses import HTMLResponse

with warnings.catch_warnings():  # Starlette's note that httpx2 is its future client.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from agency_site import paths
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import LinkSigner
from agency_site.desk import people, sign_in
from agency_site.desk.app import SCREENS, routes
from agency_site.desk.config import DeskConfig
from agency_site.desk.guard import Desk, create_app
from agency_site.desk.privacy_findings import PrivacyTools
from agency_site.desk.sign_in import PUBLIC, SignInLimiter
from agency_site.leads.spool import Spool
from agency_site.working_calendar import WorkingCalendar
from tests.desk.authenticator import Authenticator
from tests.lead_store import new_engine, plugged

ORIGIN = "http://desk.test"


@dataclass
class Clock:
    """A clock the test moves."""

    now: dt.datetime = field(default_factory=lambda: dt.datetime(2026, 11, 28, 10, tzinfo=dt.UTC))

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


@dataclass
class DeskSite:
    """The desk's app on one database, and how a test reaches it."""

    engine: sa.Engine
    clock: Clock
    desk: Desk
    app: object
    # The e-mails the screens' booking desk sent: (template, params).
    sent: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    # What the bookings, privacy and figures screens reach (a test may change it).
    screens: "Screens | None" = None

    def stranger(self, origin: str = ORIGIN) -> TestClient:
        """A browser at the desk with no session; its state-changing requests carry
        ``origin`` as their ``Origin``."""
        client = TestClient(self.app, base_url=origin, follow_redirects=False)
        client.headers["origin"] = origin
        return client

    def enroll(self, email: str, client: TestClient | None = None) -> Authenticator:
        """A person with a passkey (an invite used by a real software authenticator): the
        authenticator; ``client`` signed in by the enrolment."""
        client = client or self.stranger()
        person, _ = people.ensure_person(self.engine, email, None, self.clock())
        token, _ = people.issue_invite(self.engine, person.id, self.clock())
        authenticator = Authenticator(self.desk.config.origin)
        options = client.post(sign_in.ENROLL_OPTIONS, json={"token": token})
        assert options.status_code == 200, options.text
        answer = client.post(
            sign_in.ENROLL,
            json={"token": token, "credential": authenticator.create(options.json())},
        )
        assert answer.status_code == 200, answer.text
        return authenticator

    def sign_in(self, client: TestClient, authenticator: Authenticator) -> None:
        """Sign ``client`` in with ``authenticator``'s passkey."""
        options = client.post(sign_in.SIGN_IN_OPTIONS, json={})
        assert options.status_code == 200, options.text
        answer = client.post(
            sign_in.SIGN_IN, json={"credential": authenticator.get(options.json())}
        )
        assert answer.status_code == 200, answer.text

    def signed_in(self, email: str = "ana@example.com") -> TestClient:
        """A browser signed in as ``email`` (enrolled first if new)."""
        client = self.stranger()
        self.enroll(email, client)
        return client


def make_desk_site(
    engine: sa.Engine, *, origin: str = ORIGIN, host: str | None = None, attempts: int = 1000
) -> DeskSite:
    """The desk's app with a moving clock and a limiter in memory."""
    clock = Clock()
    limiter = SignInLimiter(MemoryStorage(), attempts, 600)
    sent: list[tuple[str, dict[str, str]]] = []
    screens = Screens(
        screens_booking_desk(engine, sent),
        screens_privacy_tools(engine, Path(tempfile.mkdtemp(prefix="desk-spool-"))),
    )
    desk = Desk(
        config=DeskConfig(origin=origin, host=host, rp_name="Agencia de prueba"),
        engine=lambda: engine,
        limiter=lambda: limiter,
        site_url="http://www.desk.test",
        clock=clock,
        public=PUBLIC,
        booking_desk=lambda: screens.booking_desk,
        privacy_tools=lambda: screens.privacy_tools,
        leads_health=lambda: screens.health,
    )
    not_found = lambda: HTMLResponse("not found", 404)  # noqa: E731
    return DeskSite(
        engine, clock, desk, create_app(desk, routes(SCREENS), not_found), sent, screens
    )


@dataclass
class Screens:
    """What the bookings, privacy and figures screens reach in the tests (desk/runtime.py
    wires the process's own): a booking desk whose e-mails are recorded, a spool folder
    of its own, no health details."""

    booking_desk: BookingDesk
    privacy_tools: PrivacyTools
    health: Mapping[str, Any] | None = None


def screens_booking_desk(engine: sa.Engine, sent: list) -> BookingDesk:
    """A booking desk on ``engine`` (the working calendar of Spain's holidays, no closed
    day, two hours' notice) that records its e-mails in ``sent`` and accepts them."""

    async def send(template: str, params: dict[str, str]) -> bool:
        sent.append((template, params))
        return True

    return BookingDesk(
        engine=engine,
        signer=LinkSigner(["a-secret-for-the-desk-tests-0123456789"]),
        send=send,
        calendar=WorkingCalendar(),
        api_url="http://api.desk.test",
        site_url="http://www.desk.test",
        agency_link_days=14,
    )


def screens_privacy_tools(engine: sa.Engine, folder: Path) -> PrivacyTools:
    """The leads' store on ``engine`` (the bookings plugged in), a spool folder and erasure
    log in ``folder``, no webhooks."""
    spool = Spool(folder / "spool", erasure_log=folder / "erasures.log")
    return PrivacyTools(store=plugged(engine), spool=spool, erasure_log=folder / "erasures.log")


@pytest.fixture
def desk_engine(db_url: str) -> Iterator[sa.Engine]:
    engine = new_engine(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def desk_site(desk_engine: sa.Engine) -> DeskSite:
    """The desk on a fresh database (SQLite, then PostgreSQL)."""
    return make_desk_site(desk_engine)


DESK = paths.DESK

"""``GET /_site/leads/health`` (issue 43, items 2, 3 and 9): its public answer is a status,
its details the owner's (the token, the desk's function), and a request writes nothing: one
check per worker per interval whatever the rate; a flood of token and health requests in a
database outage leaves the intake storing the next lead. ``db_url``: SQLite and PostgreSQL."""

import asyncio
import contextlib
import datetime as dt
import itertools
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from agency_site import paths
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result
from agency_site.leads import database, runtime
from agency_site.leads.health import CHECK_EVERY_S, LeadsHealth, leads_api, token_matches
from agency_site.leads.plugins import LeadPlugin, Plugins
from agency_site.leads.rgpd import mark_spam_listed
from agency_site.leads.spool import Spool
from agency_site.leads.statuses import SpamReason
from agency_site.leads.store import LeadStore
from agency_site.report.started import StartedCounter
from agency_site.site_api import create_app
from tests.lead_store import aged, new_engine
from tests.leads.health_page import OWNER_TOKEN, get_health
from tests.leads.test_durable import intake_on
from tests.run_async import run
from tests.sql_statements import statements

HOUR = dt.timedelta(hours=1)
SITE = "https://www.agencia.example"


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Counting:
    """Counts the checks' reads of the store and probes of the folders."""

    def __init__(self, store: LeadStore, folder: Path) -> None:
        self.store, self.folder = store, folder
        self.reads = self.probes = 0

    def get_store(self) -> LeadStore:
        self.reads += 1
        return self.store

    def folders(self) -> dict[str, Path]:
        self.probes += 1
        return {"LEADS_SPOOL_DIR": self.folder}


async def many(app, path: str, count: int, headers: dict[str, str] | None = None) -> list[int]:
    """``count`` concurrent GETs of ``path``; their status codes."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=SITE, timeout=60) as client:
        answers = await asyncio.gather(
            *(client.get(path, headers=headers or {}) for _ in range(count))
        )
    return [answer.status_code for answer in answers]


# --- One check per interval, whatever the rate -------------------------------------------


def test_a_thousand_requests_make_one_check_per_interval(db_url: str, tmp_path: Path) -> None:
    """Before: each request wrote, fsynced and removed a probe file in every folder and read
    the database. Now: 1,000 concurrent requests, one check (one probe, one read); the
    clock past the interval, one more."""
    store = LeadStore(new_engine(db_url))
    counting = Counting(store, tmp_path / "spool")
    clock = Clock()
    checks = LeadsHealth(counting.get_store, lambda: True, lambda: HOUR, counting.folders,
                         clock=clock)  # fmt: skip
    app = leads_api(checks)
    with statements(store.engine) as sent:
        assert run(many(app, paths.LEADS_HEALTH, 1000)) == [200] * 1000
    assert (counting.probes, counting.reads) == (1, 1)  # One check, one store.
    one_check = len(sent)
    clock.now += CHECK_EVERY_S - 0.1
    with statements(store.engine) as sent:
        run(many(app, paths.LEADS_HEALTH, 100))
    assert sent == [] and counting.probes == 1
    clock.now += 0.2
    with statements(store.engine) as sent:
        run(many(app, paths.LEADS_HEALTH, 100))
    assert len(sent) == one_check and counting.probes == 2
    store.engine.dispose()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=20, allow_nan=False), max_size=40))
def test_checks_are_at_least_an_interval_apart_and_answers_are_the_last_check(
    gaps: list[float],
) -> None:
    """For any times of requests: a new check only when the last is ``every_s`` old, and
    every answer is that last check."""
    clock = Clock()
    checked: list[float] = []

    class Store:
        plugins = Plugins()

        def summary(self):
            checked.append(clock.now)
            raise OSError("no database in this test: the check says error")

    checks = LeadsHealth(Store, lambda: True, lambda: HOUR, every_s=5.0, clock=clock)
    for gap in gaps:
        clock.now += gap
        answer = checks.checked()
        assert answer.at == checked[-1] and answer.details == {"status": "error"}
    assert all(later - earlier >= 5.0 for earlier, later in itertools.pairwise(checked))
    expected = 0
    last = None
    for moment in [1000.0 + sum(gaps[: i + 1]) for i in range(len(gaps))]:
        if last is None or moment - last >= 5.0:
            expected, last = expected + 1, moment
    assert len(checked) == expected


# --- The public answer and the owner's ----------------------------------------------------


class Noting(LeadPlugin):
    def health(self, now: dt.datetime):
        return {"owner_calendars_failing": [{"calendar": 1, "host": "cal.example"}]}


def test_anyone_gets_the_status_alone_and_the_owner_the_details(
    store: LeadStore, tmp_path: Path
) -> None:
    noted = LeadStore(store.engine, Plugins((Noting(),)))
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    checks = LeadsHealth(lambda: noted, lambda: True, lambda: HOUR,
                         lambda: {"LEADS_SPOOL_DIR": blocked / "spool"})  # fmt: skip
    public = get_health(checks, token=None)
    assert (public.status_code, public.json()) == (503, {"status": "unwritable"})
    assert "cal.example" not in public.text and "queued" not in public.text
    owner = get_health(checks)
    assert owner.status_code == 503
    details = owner.json()
    assert details["unwritable"] == ["LEADS_SPOOL_DIR"] and details["queued"] == 0
    assert details["notes"]["owner_calendars_failing"][0]["host"] == "cal.example"
    assert owner.headers["cache-control"] == public.headers["cache-control"] == "no-store"


def test_a_wrong_token_is_refused_and_without_the_setting_none_shows_the_details(
    store: LeadStore,
) -> None:
    checks = LeadsHealth(lambda: store, lambda: True, lambda: HOUR)
    wrong = get_health(checks, token="not-" + OWNER_TOKEN)
    assert (wrong.status_code, wrong.json()) == (401, {"status": "unauthorized"})
    assert wrong.headers["www-authenticate"] == "Bearer"
    assert get_health(checks, token="").status_code == 401
    # Another scheme is no token: the public answer.
    app = leads_api(checks, token=lambda: OWNER_TOKEN)
    basic = run(many(app, paths.LEADS_HEALTH, 1, {"Authorization": "Basic eDp5"}))
    assert basic == [200]
    # LEADS_HEALTH_TOKEN unset: a bearer token shows nothing more.
    unset = leads_api(checks, token=lambda: "")

    async def ask() -> dict:
        transport = httpx.ASGITransport(app=unset)
        async with httpx.AsyncClient(transport=transport, base_url=SITE) as client:
            answer = await client.get(paths.LEADS_HEALTH, headers={"Authorization": "Bearer "})
            return answer.json()

    assert run(ask()) == {"status": "ok"}


class Stale(LeadPlugin):
    """A feature with a problem the owner must act on (the bookings' stale calendar)."""

    def health_problem(self, now: dt.datetime) -> str | None:
        return "calendar_stale"


def test_spam_never_shown_and_a_feature_s_problem_turn_the_status(store: LeadStore) -> None:
    """Issue 44: leads in quarantine the owner was never shown days after they came (the
    spam digest not getting through) are no longer an "ok" page; issue 43: nor is an
    owner's calendar not fetched for a day (a plugin's ``health_problem``)."""
    checks = LeadsHealth(lambda: store, lambda: True, lambda: HOUR)
    assert get_health(checks, token=None).json() == {"status": "ok"}
    lead = store.add_lead(LeadKind.QUOTE, {"email": "x@example.com"}, claim_token=None,
                          lease=HOUR, spam=SpamReason.HONEYPOT)  # fmt: skip
    aged(store, lead.id, days=3)
    checks = LeadsHealth(lambda: store, lambda: True, lambda: HOUR)
    public = get_health(checks, token=None)
    assert (public.status_code, public.json()) == (503, {"status": "spam_unshown"})
    assert get_health(checks).json()["spam_unshown"] == 1
    mark_spam_listed(store.engine, [lead.id], dt.datetime.now(dt.UTC))
    stale = LeadStore(store.engine, Plugins((Stale(),)))
    checks = LeadsHealth(lambda: stale, lambda: True, lambda: HOUR)
    public = get_health(checks, token=None)
    assert (public.status_code, public.json()) == (503, {"status": "calendar_stale"})


@given(st.text(max_size=60), st.text(max_size=60))
def test_the_token_matches_only_itself(sent: str, expected: str) -> None:
    assert token_matches(sent, expected) is (sent == expected)


def test_the_desk_gets_the_details_from_the_worker_s_last_check(
    store: LeadStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``runtime.health_details``: what the owner's desk shows (no HTTP, no token)."""
    clock = Clock()
    counting = Counting(store, Path("/nonexistent-never-probed"))
    checks = LeadsHealth(counting.get_store, lambda: False, lambda: HOUR, clock=clock)
    monkeypatch.setattr(runtime, "leads_health", lambda: checks)
    details = runtime.health_details()
    assert details["status"] == "ok" and details["delivery_configured"] is False
    assert dt.datetime.fromisoformat(details["checked_at"]).tzinfo is not None
    assert runtime.health_details() == details | {"checked_at": details["checked_at"]}
    assert counting.reads == 1  # One check for both.


def test_the_site_s_health_page_takes_its_token_from_the_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agency_site.settings import get_settings

    monkeypatch.setenv("LEADS_HEALTH_TOKEN", "a-token-set-by-the-deployer")
    get_settings.cache_clear()
    try:
        assert get_settings().leads.health_token.get_secret_value() == (
            "a-token-set-by-the-deployer"
        )
        assert "a-token-set-by-the-deployer" not in repr(get_settings())
    finally:
        get_settings.cache_clear()


# --- A flood in a database outage ----------------------------------------------------------


class Gate:
    """A TCP forwarder to PostgreSQL that an outage shuts like a dropped network: while
    shut, connections are accepted and never answered (each waits for its timeout), and the
    open ones are cut. ``accepted``: the connections tried through it."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.open = True
        self.accepted = 0
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            with self._lock:
                self.accepted += 1
                self._sockets.append(client)
                if not self.open:
                    continue  # Held, never answered.
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self._lock:
                self._sockets.append(upstream)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_RDWR)

    def shut(self) -> None:
        with self._lock:
            self.open = False
            for each in self._sockets:
                with contextlib.suppress(OSError):
                    each.shutdown(socket.SHUT_RDWR)
            self._sockets.clear()

    def reopen(self) -> None:
        with self._lock:
            self.open = True
            for each in self._sockets:  # The held ones: refused now, as a network back.
                with contextlib.suppress(OSError):
                    each.close()
            self._sockets.clear()

    def close(self) -> None:
        self.shut()
        self.server.close()


def test_a_flood_of_token_and_health_requests_in_an_outage_leaves_the_intake_storing(
    migrated_postgres_url: str, tmp_path: Path
) -> None:
    """PostgreSQL unreachable (a network that drops everything), 1,000 token and 1,000
    health requests: no connection tried for the tokens, one check per interval for the
    health page; the intake's "database down" mark never set, nothing spooled; the
    database back, the next lead is stored in it, not spooled. Before: a connection (and
    an UPSERT's wait) per token request and a check per health request, in the pool the
    leads share."""
    url = sa.make_url(migrated_postgres_url)
    gate = Gate(url.port or 5432)
    engine = database.create_engine(
        url.set(host="127.0.0.1", port=gate.port).render_as_string(hide_password=False),
        connect_timeout_s=2,
        statement_timeout_s=2,
    )
    store = LeadStore(engine)
    spool = Spool(tmp_path / "spool", "w1")
    intake = intake_on(store, spool, deadline_s=8)
    counter = StartedCounter(lambda: engine)
    checks = LeadsHealth(lambda: store, lambda: intake.delivery.configured, lambda: HOUR)
    forms = create_app(
        lambda: intake, api_url=SITE, site_url=SITE, allowed_origins=(SITE,), trusted_hops=0,
        max_body_bytes=10_000, on_token=counter.seen,
    )  # fmt: skip
    health = leads_api(checks)
    page = {"Origin": SITE}

    async def scenario() -> tuple[list[int], list[int], float]:
        await asyncio.to_thread(store.summary)  # Connected once, as a running site is.
        gate.shut()
        accepted = gate.accepted
        started = time.monotonic()
        tokens, pages = await asyncio.gather(
            many(forms, paths.FORM_TOKEN + "?form=quote", 1000, page),
            many(health, paths.LEADS_HEALTH, 1000),
        )
        took = time.monotonic() - started
        tried = gate.accepted - accepted
        assert intake.down.until == 0.0 and list(spool.leads()) == []
        gate.reopen()
        submitted = await intake.submit(LeadKind.HERO, {"email": "ana@example.com"}, "127.0.0.2")
        assert submitted.result is Result.QUEUED
        return tokens, pages, tried / max(1.0, 1 + took / CHECK_EVERY_S)

    try:
        tokens, pages, tried_per_interval = run(scenario())
        assert tokens == [200] * 1000 and pages == [503] * 1000  # "error": unreachable.
        assert tried_per_interval <= 1.0  # The health page's check, once per interval.
        assert [lead.fields for lead in store.all()] == [{"email": "ana@example.com"}]
        assert list(spool.leads()) == [] and intake.down.until == 0.0
        assert run(counter.flush()) == 1
    finally:
        gate.close()
        engine.dispose()

"""Issue 20: a lead is stored whatever the database does; auto-reply, canary, RGPD as promised.

Every test that takes ``db_url`` or ``store`` runs on SQLite and on a real PostgreSQL.
"Database down" is a PostgreSQL port nobody listens on, a SQLite file that cannot be
opened, or (``test_a_real_postgresql_stopped_and_started_again``) a throwaway cluster
stopped and started again.
"""

import asyncio
import contextlib
import dataclasses
import datetime as dt
import json
import os
import shutil
import socket
import stat
import tempfile
import threading
import time
import unicodedata
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from limits.aio.storage import MemoryStorage
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from agency_site import locale, paths
from agency_site.content.form_words import COPY as FORMS
from agency_site.emailjs import Outcome, classify
from agency_site.forms.declarations import HONEYPOT_FIELD
from agency_site.forms.email import short_name
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result
from agency_site.leads import database, erasures, migrations
from agency_site.leads.cli import run as run_cli
from agency_site.leads.database import Failure, failure
from agency_site.leads.delivery import template_params
from agency_site.leads.intake import LeadIntake
from agency_site.leads.lease import new_claim_token
from agency_site.leads.models import Lead, email_key, utcnow
from agency_site.leads.monitor import Monitor
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.runtime import prepare_when_reachable
from agency_site.leads.spool import QUARANTINE, Spool, SpooledLead
from agency_site.leads.spool_drain import SpoolDrain, drain_forever
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import LeadStore
from agency_site.rules import EMAIL_MAX
from agency_site.site_api import create_app
from scripts import local_servers
from scripts.local_servers import free_port
from tests.emailjs_fake import (
    accept_sends,
    answer_sends,
    make_client,
    refuse_sends,
    sent_payloads,
)
from tests.lead_store import (
    AGENCY_INBOX,
    BOOKING_FIELDS,
    LEASE,
    add_lead_id,
    aged,
    make_delivery,
    new_engine,
)
from tests.run_async import run

KEY = "0f8e2c7a9b1d4e6f8a0b2c4d6e8f0a1b"


def down_engine(kind: str, tmp_path: Path) -> sa.Engine:
    """An engine on a database that does not answer, with the site's timeouts."""
    if kind == "postgresql":
        url = f"postgresql+psycopg://agency:x@127.0.0.1:{free_port()}/agency"
        return database.create_engine(url, connect_timeout_s=1, statement_timeout_s=1)
    # A SQLite file in a folder that does not exist cannot be opened.
    return sa.create_engine(f"sqlite:///{tmp_path / 'missing' / 'leads.db'}")


def limiter() -> RateLimiter:
    return RateLimiter(MemoryStorage(), per_ip=100, window_s=600)


def intake_on(store: LeadStore, spool: Spool | None, client=None, deadline_s=4.0) -> LeadIntake:
    return LeadIntake(store, make_delivery(store, client), limiter(), deadline_s, spool)


def contact(email: str = "ana@example.com") -> dict:
    return {"email": email}


# --- 1. Store whatever the database does ---------------------------------------------------


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_down_database_spools_the_lead_and_the_visitor_is_told_received(
    kind: str, tmp_path: Path
) -> None:
    spool = Spool(tmp_path / "spool", "host-1")
    intake = intake_on(LeadStore(down_engine(kind, tmp_path)), spool, deadline_s=3)
    started = time.monotonic()
    result = run(intake.submit(LeadKind.HERO, contact(), "127.0.0.2", idempotency_key=KEY))
    assert result.result is Result.QUEUED
    assert time.monotonic() - started < 3  # Retried for half the deadline, then spooled.
    [lead] = list(spool.leads())
    assert (lead.key, lead.kind, lead.fields) == (KEY, LeadKind.HERO, contact())
    assert stat.S_IMODE(spool.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(spool.folder.stat().st_mode) == 0o700
    # While it is known down, the next visitor does not wait out the retries again.
    started = time.monotonic()
    run(intake.submit(LeadKind.HERO, contact("bea@example.com"), "127.0.0.2"))
    assert time.monotonic() - started < 1.5
    assert len(list(spool.leads())) == 2


def test_a_hanging_database_still_leaves_the_spool_its_time(db_url: str, tmp_path: Path) -> None:
    from tests.leads.test_safety import SlowStore

    store = SlowStore(new_engine(db_url), delay_s=3)
    spool = Spool(tmp_path / "spool", "w1")
    intake = intake_on(store, spool, deadline_s=2)
    started = time.monotonic()
    result = run(intake.submit(LeadKind.HERO, contact(), "127.0.0.2", idempotency_key=KEY))
    assert result.result is Result.QUEUED and time.monotonic() - started < 2
    time.sleep(3)  # The hung insert went through after all...
    assert SpoolDrain.of(intake).drain() == 0  # ...so the spooled copy is the same lead: kept once.
    assert [lead.idempotency_key for lead in store.all()] == [KEY]


def test_spooled_leads_are_drained_into_the_database_exactly_once(
    store: LeadStore, tmp_path: Path, emailjs: HTTPServer
) -> None:
    folder = tmp_path / "spool"
    # Two workers' files; the same submission sits in both (tried on both paths).
    Spool(folder, "w1").append(SpooledLead(KEY, LeadKind.HERO, contact(), _now()))
    Spool(folder, "w2").append(SpooledLead(KEY, LeadKind.HERO, contact(), _now()))
    Spool(folder, "w2").append(
        SpooledLead("b" * 32, LeadKind.BOOKING, BOOKING_FIELDS, _now(), dt.date(2026, 3, 10))
    )
    accept_sends(emailjs)
    intake = intake_on(store, Spool(folder, "w3"), make_client(emailjs))
    assert SpoolDrain.of(intake).drain() == 2
    assert SpoolDrain.of(intake).drain() == 0
    assert Spool(folder).files() == []
    leads = store.all()
    assert sorted(lead.idempotency_key for lead in leads) == sorted([KEY, "b" * 32])
    assert {lead.status for lead in leads} == {LeadStatus.QUEUED}
    # Delivery goes on from there: the retry loop sends each once.
    assert run(intake.delivery.retry_due()) == 2
    assert len(sent_payloads(emailjs)) == 2
    # A drain that died after storing but before emptying its file stores nothing twice.
    Spool(folder, "w1").append(SpooledLead(KEY, LeadKind.HERO, contact(), _now()))
    assert SpoolDrain.of(intake).drain() == 0 and len(store.all()) == 2


def test_a_drain_while_workers_append_loses_and_repeats_nothing(
    store: LeadStore, tmp_path: Path
) -> None:
    folder = tmp_path / "spool"
    intake = intake_on(store, Spool(folder, "drainer"))
    keys = [f"key-{worker}-{n:04d}-padding" for worker in range(3) for n in range(40)]

    def writer(worker: int) -> None:
        spool = Spool(folder, f"w{worker}")
        for n in range(40):
            key = f"key-{worker}-{n:04d}-padding"
            spool.append(SpooledLead(key, LeadKind.HERO, contact(f"{key}@example.com"), _now()))

    threads = [threading.Thread(target=writer, args=(worker,)) for worker in range(3)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        SpoolDrain.of(intake).drain()
    for thread in threads:
        thread.join()
    SpoolDrain.of(intake).drain()
    assert sorted(lead.idempotency_key for lead in store.all()) == sorted(keys)


def test_a_line_torn_by_a_killed_writer_is_kept_aside_and_the_rest_drained(
    store: LeadStore, tmp_path: Path
) -> None:
    spool = Spool(tmp_path / "spool", "w1")
    spool.append(SpooledLead(KEY, LeadKind.HERO, contact(), _now()))
    with spool.path.open("ab") as file:
        file.write(b'{"v": 1, "key": "torn')  # Killed mid-line.
    spool.append(SpooledLead("c" * 32, LeadKind.HERO, contact("c@example.com"), _now()))
    intake = intake_on(store, spool)
    assert SpoolDrain.of(intake).drain() == 2
    torn = spool.path.with_suffix(QUARANTINE)
    assert torn.read_bytes().startswith(b'{"v": 1, "key": "torn')
    assert stat.S_IMODE(torn.stat().st_mode) == 0o600


def test_one_submission_over_the_socket_and_the_http_path_is_stored_once(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    intake = intake_on(store, None, make_client(emailjs))
    # The websocket path (the state's submit) with the page's key...
    first = run(intake.submit(LeadKind.HERO, contact(), "127.0.0.2", idempotency_key=KEY))
    # ...then the HTTP fallback with the same key (header, then the hidden field).
    header = _post(intake, "email=ana%40example.com", {"idempotency-key": KEY})
    field = _post(intake, f"email=ana%40example.com&idempotency_key={KEY}")
    # The websocket's form data with the form's hidden input.
    hidden = {**contact(), "idempotency_key": KEY}
    again = run(intake.submit(LeadKind.HERO, hidden, "127.0.0.2"))
    assert first.result is again.result is Result.SENT
    assert header.status_code == field.status_code == 303  # Stored once: its answer (PRG).
    assert len(store.all()) == 1 and len(sent_payloads(emailjs)) == 1
    # A malformed key is replaced by the server's own: a new lead.
    run(intake.submit(LeadKind.HERO, contact(), "127.0.0.2", idempotency_key="x"))
    assert len(store.all()) == 2


def test_the_http_path_answers_json_to_the_pages_fetch(store: LeadStore) -> None:
    intake = intake_on(store, None)
    json_headers = {"accept": "application/json", "idempotency-key": KEY}
    answer = _post(intake, "email=ana%40example.com", json_headers)
    assert answer.status_code == 200 and answer.json() == {"result": "queued", "errors": {}}
    invalid = _post(intake, "email=nope", {"accept": "application/json"})
    assert invalid.status_code == 400 and set(invalid.json()["errors"]) == {"email"}
    refused = _post(intake, "email=a", {"accept": "application/json", "origin": "https://x.es"})
    assert refused.status_code == 403 and refused.json() == {"result": "refused"}


def test_a_body_sent_too_slowly_is_refused(store: LeadStore) -> None:
    intake = intake_on(store, None)

    async def trickle():
        yield b"email=ana"
        await asyncio.sleep(1.0)
        yield b"%40example.com"

    response = _post(intake, trickle(), body_timeout_s=0.2)
    assert response.status_code == 408
    assert store.all() == []


def test_the_backend_prepares_the_database_once_it_answers(tmp_path: Path) -> None:
    """Down at start-up: the loops wait, serve and spool; migrate once it is back."""
    folder = tmp_path / "later"
    url = f"sqlite:///{folder / 'leads.db'}"
    store = LeadStore(sa.create_engine(url))
    spool = Spool(tmp_path / "spool", "w1")
    intake = intake_on(store, spool)
    monitor = _monitor(intake, spool, "")

    async def scenario() -> list[Lead]:
        result = await intake.submit(LeadKind.HERO, contact(), "127.0.0.2")
        assert result.result is Result.QUEUED  # Spooled: the database does not exist yet.
        ready = asyncio.Event()
        drain = asyncio.create_task(drain_forever(SpoolDrain.of(intake), monitor, ready, 0.05))
        prepare = asyncio.create_task(prepare_when_reachable(intake.delivery, retry_max_s=0.2))
        await asyncio.sleep(0.5)
        assert not prepare.done()
        folder.mkdir()  # The database comes back.
        await asyncio.wait_for(prepare, 60)  # The bounds only end a hang.
        ready.set()
        give_up = time.monotonic() + 60
        while spool.files() and time.monotonic() < give_up:
            await asyncio.sleep(0.05)
        drain.cancel()
        return store.all()

    [lead] = run(scenario())
    assert lead.fields == contact() and lead.status == LeadStatus.QUEUED


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_backend_started_while_the_database_is_down_delivers_once_it_is_back(
    kind: str, tmp_path: Path, emailjs: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole lifespan's loops: spool at once, migrate, drain and send when it returns."""
    from agency_site.leads import runtime

    monkeypatch.setattr(runtime, "SPOOL_POLL_S", 0.05)
    # The start-up retries back off to at most 0.2 s here (30 s in production): the test
    # waits for the lead, not for a backoff that a slow, shared machine stretched.
    monkeypatch.setattr(runtime, "PREPARE_RETRY_MAX_S", 0.2)
    accept_sends(emailjs)
    folder = tmp_path / "later"
    pg_folder, port, servers = Path(tempfile.mkdtemp(prefix="agency-pg-late-")), free_port(), []
    pg_folder.chmod(0o755)
    if kind == "postgresql":
        url = f"postgresql+psycopg://{local_servers.PG_USER}:{local_servers.PG_PASSWORD}"
        url += f"@127.0.0.1:{port}/{local_servers.PG_DATABASE}"
        store = LeadStore(database.create_engine(url, connect_timeout_s=1, statement_timeout_s=2))
    else:
        store = LeadStore(sa.create_engine(f"sqlite:///{folder / 'leads.db'}"))

    async def database_back() -> None:
        if kind == "postgresql":
            servers.append(
                await asyncio.to_thread(
                    local_servers.start_postgres, pg_folder / "cluster", port, durable=False
                )
            )
        else:
            folder.mkdir()

    spool = Spool(tmp_path / "spool", "w1")
    intake = intake_on(store, spool, make_client(emailjs))
    intake.delivery.policy = dataclasses.replace(
        intake.delivery.policy, poll=dt.timedelta(seconds=0.1)
    )
    monitor = _monitor(intake, spool, "")

    async def scenario() -> None:
        loops = asyncio.create_task(runtime.keep_leads_moving(intake, monitor))
        result = await intake.submit(LeadKind.BOOKING, _booking(), "127.0.0.2")
        assert result.result is Result.QUEUED  # Served and spooled while down.
        await asyncio.sleep(0.3)
        await database_back()
        # Until the send is recorded, not only made; the bound only ends a hang.
        give_up = time.monotonic() + 120
        while time.monotonic() < give_up:
            if sent_payloads(emailjs) and await asyncio.to_thread(_all_sent, store):
                break
            await asyncio.sleep(0.05)
        loops.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loops

    try:
        run(scenario())
        [lead] = store.all()
        assert lead.status == LeadStatus.SENT and len(sent_payloads(emailjs)) == 1
        assert spool.files() == []
    finally:
        store.engine.dispose()
        for server in servers:
            local_servers.stop_postgres(server)
        shutil.rmtree(pg_folder, ignore_errors=True)


def test_a_real_postgresql_stopped_and_started_again(tmp_path: Path, emailjs: HTTPServer) -> None:
    """The fault run in small: PostgreSQL stopped, leads keep coming, all stored once, sent."""
    folder = Path(tempfile.mkdtemp(prefix="agency-pg-down-"))
    folder.chmod(0o755)
    port = local_servers.free_port()
    server = local_servers.start_postgres(folder / "cluster", port, durable=False)
    try:
        engine = database.create_engine(server.url, connect_timeout_s=1, statement_timeout_s=2)
        migrations.upgrade(engine)
        accept_sends(emailjs)
        store = LeadStore(engine)
        spool = Spool(tmp_path / "spool", "w1")
        intake = intake_on(store, spool, make_client(emailjs), deadline_s=4)
        submit = intake.submit
        assert run(submit(LeadKind.HERO, contact("a@example.com"), "1")).result is Result.SENT
        local_servers.stop_postgres(server)
        results = [run(submit(LeadKind.HERO, contact(f"{n}@example.com"), "1")) for n in "bcd"]
        assert [result.result for result in results] == [Result.QUEUED] * 3
        assert len(list(spool.leads())) == 3
        with pytest.raises(sa.exc.OperationalError):
            SpoolDrain.of(intake).drain()  # Still down: the spool stays whole.
        assert len(list(spool.leads())) == 3
        server.pid = local_servers.start_postgres_cluster(folder / "cluster", port, durable=False)
        assert SpoolDrain.of(intake).drain() == 3
        assert run(intake.delivery.retry_due()) == 3
        emails = sorted(lead.fields["email"] for lead in store.all())
        assert emails == [f"{n}@example.com" for n in "abcd"]
        assert {lead.status for lead in store.all()} == {LeadStatus.SENT}
        assert len(sent_payloads(emailjs)) == 4
        engine.dispose()
    finally:
        local_servers.stop_postgres(server)
        shutil.rmtree(folder, ignore_errors=True)


def test_the_owner_is_alerted_while_the_spool_waits_too_long(
    store: LeadStore, tmp_path: Path, httpserver: HTTPServer
) -> None:
    texts = _webhook(httpserver)
    spool = Spool(tmp_path / "spool", "w1")
    intake = intake_on(store, spool)
    monitor = _monitor(intake, spool, httpserver.url_for("/hook"))
    spool.append(SpooledLead(KEY, LeadKind.HERO, contact(), _now()))
    run(monitor.watch_spool())
    assert texts == []  # Not yet past LEADS_SPOOL_ALERT_SECONDS.
    old = _now() - dt.timedelta(minutes=10)
    spool.append(SpooledLead("d" * 32, LeadKind.HERO, contact("d@example.com"), old))
    run(monitor.watch_spool())
    run(_monitor(intake, Spool(spool.folder, "w2"), monitor.webhook_url).watch_spool())
    assert len(texts) == 1 and "2 solicitud" in texts[0]  # Once per host, whichever worker.
    SpoolDrain.of(intake).drain()
    run(monitor.watch_spool())
    run(monitor.watch_spool())
    assert len(texts) == 2 and "responde de nuevo" in texts[1]


# --- Outage or refusal: what the database says decides ------------------------------------

# Valid (130 characters), and 378 once case-folded: over the 320 the column had.
FOLDS_LONG = "ΐ" * 64 + "@" + ".".join(["ΐ" * 20] * 3) + ".de"


def test_an_address_longer_once_case_folded_is_simply_stored(store: LeadStore) -> None:
    assert len(FOLDS_LONG) == 130 and len(email_key(FOLDS_LONG)) == 378
    spool = Spool(Path(tempfile.mkdtemp()) / "spool", "w1")
    intake = intake_on(store, spool)
    result = run(intake.submit(LeadKind.HERO, contact(FOLDS_LONG), "127.0.0.2"))
    assert result.result is Result.QUEUED
    [lead] = store.all()  # In the table, not in the spool.
    assert lead.email_norm == email_key(FOLDS_LONG) and list(spool.leads()) == []
    assert [found.id for found in store.of_email(FOLDS_LONG)] == [lead.id]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=EMAIL_MAX).map(lambda text: unicodedata.normalize("NFC", text)))
def test_every_address_validation_accepts_fits_its_normalised_column(text: str) -> None:
    # Validation accepts at most EMAIL_MAX characters, NFC (email_validator normalises).
    assume(len(text) <= EMAIL_MAX)
    assert len(email_key(text)) <= Lead.__table__.c.email_norm.type.length


@pytest.mark.parametrize("language", ["es", "ca"])
def test_a_lead_the_database_refuses_for_its_content_is_not_spooled_but_told(
    postgres_url: str, tmp_path: Path, language: str, caplog: pytest.LogCaptureFixture
) -> None:
    engine = new_engine(postgres_url)
    migrations.upgrade(engine)
    with engine.begin() as connection:  # The column as narrow as it was.
        connection.execute(sa.text("ALTER TABLE leads ALTER COLUMN email_norm TYPE varchar(320)"))
    spool = Spool(tmp_path / "spool", "w1")
    intake = intake_on(LeadStore(engine), spool, deadline_s=4)
    form = {**contact(FOLDS_LONG), "language": language}
    started = time.monotonic()
    result = run(intake.submit(LeadKind.HERO, form, "127.0.0.2"))
    assert time.monotonic() - started < 1  # Not retried: it is no outage.
    assert result.result is Result.INVALID
    with locale.active(language):
        assert result.errors == {"email": FORMS.notices.not_stored}
    assert list(spool.leads()) == [] and LeadStore(engine).all() == []
    [line] = [r.getMessage() for r in caplog.records if "for its content" in r.getMessage()]
    assert "column email_norm" in line and len(line) < 300
    # The database is not taken for down: the next visitor is stored at once.
    assert run(intake.submit(LeadKind.HERO, contact(), "127.0.0.2")).result is Result.QUEUED
    assert len(LeadStore(engine).all()) == 1
    engine.dispose()


def test_outages_and_refusals_are_told_apart_by_the_database_s_error(
    postgres_url: str, tmp_path: Path
) -> None:
    def error_of(engine: sa.Engine, statement: str) -> BaseException:
        with pytest.raises(sa.exc.DBAPIError) as raised, engine.begin() as connection:
            connection.execute(sa.text(statement))
        return raised.value

    up = new_engine(postgres_url)
    migrations.upgrade(up)
    too_long = "INSERT INTO lead_monitor (name, state) VALUES (repeat('x', 40), '')"
    assert failure(error_of(up, too_long)) is Failure.CONTENT
    assert failure(error_of(up, "INSERT INTO lead_monitor (name) VALUES (NULL)")) is Failure.CONTENT
    assert failure(error_of(up, "SELECT * FROM no_such_table")) is Failure.OTHER
    assert failure(error_of(down_engine("postgresql", tmp_path), "SELECT 1")) is Failure.OUTAGE
    assert failure(error_of(down_engine("sqlite", tmp_path), "SELECT 1")) is Failure.OUTAGE
    assert failure(TimeoutError()) is Failure.OUTAGE and failure(OSError()) is Failure.OUTAGE
    assert failure(ValueError()) is Failure.OTHER
    up.dispose()


def test_a_spooled_line_that_cannot_be_stored_is_set_aside_and_the_drain_goes_on(
    store: LeadStore, tmp_path: Path, httpserver: HTTPServer
) -> None:
    _refuse_address(store, "refused@example.com")
    spool = Spool(tmp_path / "spool", "w1")
    spool.append(SpooledLead("a" * 32, LeadKind.HERO, contact("a@example.com"), _now()))
    spool.append(SpooledLead("r" * 32, LeadKind.HERO, contact("refused@example.com"), _now()))
    with spool.path.open("ab") as file:  # A kind this version does not know.
        file.write(
            SpooledLead("u" * 32, LeadKind.HERO, contact(), _now())
            .line()
            .replace(b'"contact"', b'"newsletter"')
        )
    spool.append(SpooledLead("c" * 32, LeadKind.HERO, contact("c@example.com"), _now()))
    intake = intake_on(store, spool)
    assert SpoolDrain.of(intake).drain() == 2
    assert sorted(lead.idempotency_key for lead in store.all()) == ["a" * 32, "c" * 32]
    assert spool.files() == []
    aside = spool.path.with_suffix(QUARANTINE)
    assert stat.S_IMODE(aside.stat().st_mode) == 0o600
    lines = aside.read_bytes().splitlines()
    assert [SpooledLead.parse(lines[0]).key, b'"newsletter"' in lines[1]] == ["r" * 32, True]
    # The owner is told once per host, and `leads spool` shows them.
    texts = _webhook(httpserver)
    monitor = _monitor(intake, spool, httpserver.url_for("/hook"))
    run(monitor.watch_spool())
    run(_monitor(intake, Spool(spool.folder, "w2"), monitor.webhook_url).watch_spool())
    assert len(texts) == 1 and "2 solicitud(es)" in texts[0] and "apartado" in texts[0]
    assert (spool.folder / ".aside-alerted").read_text().strip() == "2"
    out = _Out()
    assert run_cli(["spool"], intake.delivery, out, spool_dir=spool.folder) == 0
    assert "2 line(s) set aside" in out.text and "refused@example.com" in out.text


# --- 2. Fair canary, content refusals, the sending flag ------------------------------------


def test_the_canary_rotates_so_one_refused_lead_blocks_no_other(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    stuck = _held(store, "stuck@example.com")
    _held(store, "fine@example.com")
    accepted = []

    def handler(request: Request) -> Response:
        if request.get_json()["template_params"]["from_email"] == "stuck@example.com":
            return Response("The Public Key is invalid", status=400)  # Still refused.
        accepted.append(request.get_json())
        return Response("OK")

    answer_sends(emailjs, handler)
    monitor = _monitor(intake_on(store, None, make_client(emailjs)), None, "")
    monitor.canary_every = dt.timedelta(0)
    assert not run(monitor.canary())  # The least-tried: the first one, refused again.
    assert run(monitor.canary())  # Then the other, which goes through...
    assert store.get(stuck).status == LeadStatus.QUEUED  # ...and every held lead is released.


def test_a_lead_refused_for_its_content_is_set_aside_for_the_owner(
    store: LeadStore, emailjs: HTTPServer, httpserver: HTTPServer
) -> None:
    refuse_sends(emailjs, 413, "Variables size limit. The maximum allowed variables size is 50Kb")
    intake = intake_on(store, None, make_client(emailjs))
    result = run(intake.submit(LeadKind.HERO, contact(), "127.0.0.2"))
    assert result.result is Result.QUEUED
    [lead] = store.all()
    assert lead.status == LeadStatus.REJECTED and "size limit" in lead.last_error
    assert run(intake.delivery.retry_due()) == 0  # Never retried.
    assert store.summary().rejected == 1 and store.summary().held == 0
    assert store.make_due() == 0  # `leads retry` leaves it alone...
    # The owner is told once.
    texts = _webhook(httpserver)
    monitor = _monitor(intake, None, httpserver.url_for("/hook"))
    run(monitor.watch_late())
    run(monitor.watch_late())
    assert len(texts) == 1 and "por su contenido" in texts[0]
    assert store.make_due([lead.id]) == 1  # ...unless the owner names it.
    assert store.get(lead.id).status == LeadStatus.QUEUED


def test_content_and_configuration_refusals_are_told_apart() -> None:
    assert classify(413, "") is Outcome.CONTENT
    assert classify(400, "Variables size limit. The maximum allowed is 50Kb") is Outcome.CONTENT
    assert classify(422, "The recipients address is corrupted") is Outcome.CONTENT
    assert classify(400, "The Public Key is invalid") is Outcome.CONFIGURATION
    assert classify(403, "API calls are disabled for non-browser applications") is (
        Outcome.CONFIGURATION
    )
    assert classify(412, "Gmail_API: Invalid grant") is Outcome.CONFIGURATION
    assert classify(429, "Too many requests") is Outcome.TRANSIENT


def test_a_sending_flag_left_by_a_killed_worker_expires() -> None:
    from reflex.state import State

    from agency_site.state.form_states import BookingFormState, sending_deadline

    root = State(_reflex_internal_init=True)
    form = root.get_substate(BookingFormState.get_full_name().split(".")[1:])
    form.sending, form.sending_since = True, time.time()
    assert form.busy  # A submission under way.
    form.sending_since = time.time() - sending_deadline() - 1  # Its worker was killed.
    assert not form.busy  # Any event recomputes it: the button is free again.


# --- 3. The auto-reply cannot be turned into a mailer --------------------------------------


def test_one_auto_reply_per_address_and_day_across_workers(store: LeadStore) -> None:
    day = dt.date(2026, 3, 10)
    other = LeadStore(store.engine)  # Another worker on the same database.

    def add(on: LeadStore, email: str, when: dt.date = day) -> bool:
        fields = {**BOOKING_FIELDS, "email": email}
        return on.add_lead(
            LeadKind.BOOKING, fields, claim_token=None, lease=LEASE, autoreply_day=when
        ).autoreply

    assert add(store, "ana@example.com")
    assert not add(other, "ANA@example.com")  # Same address, any case: no second e-mail.
    assert add(other, "bea@example.com")
    assert add(store, "ana@example.com", day + dt.timedelta(days=1))  # A new day.


def test_the_second_booking_of_the_day_sends_no_visitor_e_mail(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    intake = intake_on(store, None, make_client(emailjs))
    for _ in range(3):
        delivery = intake.delivery
        lead = store.add_lead(
            LeadKind.BOOKING,
            BOOKING_FIELDS,
            claim_token=(token := new_claim_token()),
            lease=LEASE,
            autoreply_day=dt.date(2026, 3, 10),
        )
        run(delivery.attempt_claimed(lead, token))
    replies = [payload["template_params"]["reply_to"] for payload in sent_payloads(emailjs)]
    assert replies == ["ana@example.com", "", ""]


def test_the_visitor_e_mail_carries_only_a_short_clean_name() -> None:
    assert short_name("Ana García") == "Ana García"
    assert short_name("  María   O'Neil-Pérez ") == "María O'Neil-Pérez"
    spam = "Gana 1000€ ya: https://estafa.example/x <b>click</b> " * 3
    name = short_name(spam)
    assert len(name) <= 40 and not any(c in name for c in "0123456789:/<>€")
    fields = {**BOOKING_FIELDS, "name": spam}
    params = template_params(LeadKind.BOOKING, fields, AGENCY_INBOX, autoreply=True)
    assert params["reply_name"] == name
    assert params["from_name"] == spam  # The agency's own copy: as typed.


def test_the_owner_is_alerted_once_when_queued_leads_wait_too_long(
    store: LeadStore, httpserver: HTTPServer
) -> None:
    texts = _webhook(httpserver)
    lead_id = add_lead_id(store, LeadKind.HERO, contact(), claim_token=None, lease=LEASE)
    monitor = _monitor(intake_on(store, None), None, httpserver.url_for("/hook"))
    monitor.queued_alert_after = dt.timedelta(hours=1)
    run(monitor.watch_late())
    assert texts == []
    aged(store, lead_id, days=1)
    run(monitor.watch_late())
    run(monitor.watch_late())
    assert len(texts) == 1 and "60 min" in texts[0]
    store.erase_email("ana@example.com")
    run(monitor.watch_late())
    assert len(texts) == 2


# --- 4. RGPD -------------------------------------------------------------------------------


def test_find_and_erase_match_any_address_in_any_script(store: LeadStore) -> None:
    élodie = add_lead_id(
        store, LeadKind.HERO, contact("Élodie.Ünal@Exämple.com"), claim_token=None, lease=LEASE
    )
    add_lead_id(store, LeadKind.HERO, contact("otra@example.com"), claim_token=None, lease=LEASE)
    assert [lead.id for lead in store.of_email("élodie.ünal@exämple.COM")] == [élodie]
    assert [lead.id for lead in store.of_email("ÉLODIE.ÜNAL@EXÄMPLE.COM ")] == [élodie]
    assert store.erase_email("élodie.ünal@EXÄMPLE.com") == 1
    assert [lead.fields["email"] for lead in store.all()] == ["otra@example.com"]


def test_the_migration_backfills_the_normalised_address(db_url: str) -> None:
    engine = new_engine(db_url)
    _downgrade(engine, "9d3a6f1c2b47")  # Back to the schema before this change.
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO leads (kind, fields, created_at, status, attempts, unconfirmed_sends)"
                " VALUES ('contact', :fields, :now, 'sent', 1, 0)"
            ),
            {"fields": '{"email": "ÅSA@Örebro.se"}', "now": _now()},
        )
    migrations.upgrade(engine)
    [lead] = LeadStore(engine).of_email("åsa@örebro.SE")
    assert lead.email_norm == "åsa@örebro.se"
    engine.dispose()


def _spool_of_everyone(folder: Path) -> Spool:
    """A spool folder holding Ana's and Bea's leads: spooled, set aside, and torn."""
    spool = Spool(folder, "w1")
    for key, email in (("a" * 32, "Ana@Example.com"), ("b" * 32, "bea@example.com")):
        spool.append(SpooledLead(key, LeadKind.HERO, contact(email), _now()))
    aside = b"".join(
        SpooledLead(key, LeadKind.HERO, contact(email), _now()).line()
        for key, email in (("c" * 32, "ana@example.com"), ("d" * 32, "bea@example.com"))
    )
    spool.path.with_suffix(QUARANTINE).write_bytes(aside)
    torn = b'{"v": 1, "key": "eeee", "kind": "contact", "fields": {"email": "ANA@example.com"\n'
    spool.path.with_suffix(".torn").write_bytes(torn + b'{"v": 1, "fields": {"email": "be')
    return spool


def _emails_left(spool: Spool) -> list[str]:
    return sorted(raw.decode() for _, raw in spool.lines(spool.files() + spool.aside()))


def test_erase_removes_the_person_from_the_spool_folder_too(
    store: LeadStore, tmp_path: Path
) -> None:
    spool = _spool_of_everyone(tmp_path / "spool")
    add_lead_id(store, LeadKind.HERO, contact("ana@example.com"), claim_token=None, lease=LEASE)
    out = _Out()
    log = tmp_path / "erasures.log"
    argv = ["erase", "--email", "ANA@example.com", "--yes"]
    delivery = make_delivery(store, None)
    assert run_cli(argv, delivery, out, erasure_log=log, spool_dir=spool.folder) == 0
    assert "1 lead(s) deleted, and 3 line(s)" in out.text
    left = _emails_left(spool)
    assert len(left) == 3 and not any("ana@" in line.lower() for line in left)
    assert {stat.S_IMODE(path.stat().st_mode) for path in spool.aside()} == {0o600}
    # Only Ana's lines in the spool: she is found there, erased all the same.
    Spool(spool.folder, "w2").append(
        SpooledLead(KEY, LeadKind.HERO, contact("ana@example.com"), _now())
    )
    out = _Out()
    assert run_cli(argv, delivery, out, erasure_log=log, spool_dir=spool.folder) == 0
    assert "0 lead(s) deleted, and 1 line(s)" in out.text


def test_a_spooled_lead_of_an_erased_address_is_dropped_at_drain(
    store: LeadStore, tmp_path: Path
) -> None:
    log = tmp_path / "erasures.log"
    spool = Spool(tmp_path / "spool", "w1", erasure_log=log)
    spool.append(SpooledLead("a" * 32, LeadKind.HERO, contact("Ana@Example.com"), _now()))
    spool.append(SpooledLead("b" * 32, LeadKind.HERO, contact("bea@example.com"), _now()))
    erasures.record(log, "ana@example.COM")  # Erased on this host while the database was down.
    later = _now() + dt.timedelta(seconds=2)  # She writes again after her erasure: kept.
    spool.append(SpooledLead("c" * 32, LeadKind.HERO, contact("ana@example.com"), later))
    intake = intake_on(store, spool)
    assert SpoolDrain.of(intake).drain() == 2
    assert [lead.idempotency_key for lead in store.all()] == ["b" * 32, "c" * 32]
    assert spool.files() == [] and spool.aside() == []


def test_the_retention_purge_covers_the_spool_folder(store: LeadStore, tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool", "w1")
    old = _now() - dt.timedelta(days=400)
    for key, email, when in (
        ("a" * 32, "ana@example.com", old),
        ("b" * 32, "bea@example.com", _now()),
    ):
        spool.append(SpooledLead(key, LeadKind.HERO, contact(email), when))
    spool.path.with_suffix(QUARANTINE).write_bytes(
        SpooledLead("c" * 32, LeadKind.HERO, contact("c@example.com"), old).line()
    )
    torn = spool.path.with_suffix(".torn")
    torn.write_bytes(b'{"v": 1, "key": "torn\n')  # No date to read: as old as its file.
    stamp = old.timestamp()
    os.utime(torn, (stamp, stamp))
    fresh_torn = Spool(spool.folder, "w2").path.with_suffix(".torn")
    fresh_torn.write_bytes(b'{"v": 1, "key": "recent\n')
    monitor = _monitor(intake_on(store, spool), spool, "")
    run(monitor.watch_spool())
    assert [lead.key for lead in spool.leads()] == ["b" * 32]
    assert not spool.path.with_suffix(QUARANTINE).exists() and not torn.exists()
    assert fresh_torn.read_bytes() == b'{"v": 1, "key": "recent\n'
    assert monitor.purge_spool() == 0  # Idempotent.


def test_find_lists_the_spooled_leads_of_the_address(store: LeadStore, tmp_path: Path) -> None:
    spool = _spool_of_everyone(tmp_path / "spool")
    stored = add_lead_id(
        store, LeadKind.HERO, contact("ana@example.com"), claim_token=None, lease=LEASE
    )
    out = _Out()
    argv = ["find", "--email", "ana@EXAMPLE.com"]
    assert run_cli(argv, make_delivery(store, None), out, spool_dir=spool.folder) == 0
    records = json.loads(out.text)
    host = socket.gethostname()
    assert [(r["id"], r["status"]) for r in records] == [
        (stored, "queued"),
        (None, f"spooled on {host}"),
        (None, f"set aside on {host}"),
        (None, f"set aside on {host}"),
    ]
    assert records[1]["fields"] == contact("Ana@Example.com") and records[1]["kind"] == "contact"
    assert "ANA@example.com" in records[3]["fields"]["line"]  # The torn line, as it is.


def test_a_restore_re_applies_the_erasure_log(store: LeadStore, tmp_path: Path) -> None:
    from agency_site.deploy import backup
    from agency_site.deploy.__main__ import restore_leads

    for email in ("ana@example.com", "bea@example.com"):
        add_lead_id(store, LeadKind.HERO, contact(email), claim_token=None, lease=LEASE)
    url = store.engine.url.render_as_string(hide_password=False)
    copy = backup.backup(url, tmp_path / "backups")
    log = tmp_path / "data" / "erasures.log"
    delivery = make_delivery(store, None)
    out = _Out()
    assert (
        run_cli(["erase", "--email", "ANA@example.com", "--yes"], delivery, out, erasure_log=log)
        == 0
    )
    assert "ana@example.com" not in log.read_text()  # Only a digest is kept.
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert restore_leads(store, copy, True, log, out) == 0
    assert [lead.fields["email"] for lead in store.all()] == ["bea@example.com"]
    assert erasures.digests(log) and "deleted 1 lead(s) again" in out.text


def test_backups_are_pruned_by_age_even_when_the_backup_fails(
    tmp_path: Path, httpserver: HTTPServer
) -> None:
    from agency_site.deploy import backup

    texts = _webhook(httpserver)
    out = tmp_path / "backups"
    out.mkdir()
    for day in (1, 10, 19):
        (out / f"leads-202611{day:02d}T033000Z.dump").write_text("x")
    down = f"postgresql+psycopg://agency:x@127.0.0.1:{free_port()}/agency"
    now = dt.datetime(2026, 11, 20, 3, 30, tzinfo=dt.UTC)
    result = backup.nightly(down, out, 14, webhook_url=httpserver.url_for("/hook"), now=now)
    assert result.path is None and "pg_dump" in result.error
    assert sorted(path.name for path in out.iterdir()) == [
        "leads-20261110T033000Z.dump",
        "leads-20261119T033000Z.dump",
    ]
    assert len(texts) == 1 and "ha fallado" in texts[0] and "14 días" in texts[0]


def test_data_files_and_backups_are_private_whatever_the_umask(tmp_path: Path) -> None:
    from agency_site.deploy import backup

    old = os.umask(0o022)
    try:
        url = f"sqlite:///{tmp_path / 'data' / 'reflex.db'}"
        engine = database.create_engine(url, connect_timeout_s=1, statement_timeout_s=1)
        migrations.upgrade(engine)  # WAL mode: -wal and -shm files appear while in use.
        add_lead_id(LeadStore(engine), LeadKind.HERO, contact(), claim_token=None, lease=LEASE)
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT count(*) FROM leads")).one()
            files = sorted((tmp_path / "data").glob("reflex.db*"))
            names = {path.name for path in files}
            assert names >= {"reflex.db", "reflex.db-wal", "reflex.db-shm"}
            assert {stat.S_IMODE(path.stat().st_mode) for path in files} == {0o600}
        assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700
        copy = backup.backup(url, tmp_path / "backups")
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
        engine.dispose()
    finally:
        os.umask(old)


# --- Helpers -------------------------------------------------------------------------------


class _Out:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def _booking() -> dict:
    """A valid booking form for the next working day."""
    from agency_site.leads.intake import agency_today
    from agency_site.working_calendar import default_calendar

    day = default_calendar().next_working_day(agency_today() + dt.timedelta(days=1))
    return {**BOOKING_FIELDS, "date": day.isoformat(), "time": "16:00"}


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _downgrade(engine: sa.Engine, revision: str) -> None:
    from alembic.config import Config
    from alembic.runtime.environment import EnvironmentContext
    from alembic.script import ScriptDirectory

    config = Config(str(migrations.ALEMBIC_INI))
    config.set_main_option("script_location", str(migrations.ALEMBIC_DIR))
    script = ScriptDirectory.from_config(config)

    def steps(current, _context):
        return script._downgrade_revs(revision, current)

    with engine.connect() as connection:
        with EnvironmentContext(config, script, fn=steps) as environment:
            environment.configure(connection=connection, render_as_batch=True)
            with environment.begin_transaction():
                environment.run_migrations()
        connection.commit()


def _refuse_address(store: LeadStore, email: str) -> None:
    """Make the database itself refuse every lead of ``email`` (a real constraint)."""
    with store.engine.begin() as connection:
        if store.engine.dialect.name == "postgresql":
            connection.execute(
                sa.text(
                    "ALTER TABLE leads ADD CONSTRAINT refused "
                    f"CHECK (email_norm IS NULL OR email_norm <> '{email}')"
                )
            )
        else:
            connection.execute(
                sa.text(
                    "CREATE TRIGGER refused BEFORE INSERT ON leads "
                    f"WHEN NEW.email_norm = '{email}' BEGIN SELECT RAISE(ABORT, 'refused'); END"
                )
            )


def _webhook(server: HTTPServer) -> list[str]:
    """The owner's webhook (a real local HTTP server): the texts it receives."""
    texts: list[str] = []

    def handler(request: Request) -> Response:
        texts.append(request.get_json()["text"])
        return Response("ok")

    server.expect_request("/hook", method="POST").respond_with_handler(handler)
    return texts


def _monitor(intake: LeadIntake, spool: Spool | None, webhook: str) -> Monitor:
    return Monitor(
        delivery=intake.delivery,
        webhook_url=webhook,
        canary_every=dt.timedelta(minutes=15),
        retention_months=12,
        site_url="https://www.example.es",
        spool=spool,
        spool_alert_after=dt.timedelta(minutes=5),
    )


def _held(store: LeadStore, email: str) -> int:
    token = new_claim_token()
    lead_id = add_lead_id(store, LeadKind.HERO, contact(email), claim_token=token, lease=LEASE)
    assert store.mark_held(lead_id, token, "HTTP 400: The Public Key is invalid", "config-a")
    return lead_id


def _post(intake: LeadIntake, body, headers: dict | None = None, body_timeout_s: float = 5.0):
    app = create_app(
        lambda: intake,
        api_url="https://api.example.es",
        site_url="https://www.example.es",
        allowed_origins=("https://www.example.es",),
        trusted_hops=0,
        max_body_bytes=32 * 1024,
        body_timeout_s=body_timeout_s,
    )

    async def request() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.2", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="https://api.example.es") as c:
            return await c.post(
                paths.form_post("contact"),
                content=body,
                headers={"content-type": "application/x-www-form-urlencoded", **(headers or {})},
            )

    return run(request())


@pytest.mark.parametrize(
    ("written", "read"),
    [(True, SpamReason.HONEYPOT), ("too_fast", SpamReason.TOO_FAST), ("new", SpamReason.HONEYPOT)],
)
def test_a_spool_line_s_spam_mark_reads_back_as_its_reason(written: object, read) -> None:
    """Lines of the version before reasons say ``"spam": true`` (the honeypot was the only
    one); a reason a later version wrote and this one does not know stays spam."""
    line = SpooledLead("k" * 16, LeadKind.HERO, {"email": "a@b.es"}, utcnow()).line()
    record = json.loads(line) | {"spam": written}
    assert SpooledLead.parse(json.dumps(record).encode()).spam == read
    assert SpooledLead.parse(line).spam is None
    spam = SpooledLead("k" * 16, LeadKind.HERO, {}, utcnow(), spam=SpamReason.NO_MX)
    assert SpooledLead.parse(spam.line()).spam == SpamReason.NO_MX


def _all_sent(store: LeadStore) -> bool:
    leads = store.all()
    return bool(leads) and all(lead.status == LeadStatus.SENT for lead in leads)


def test_a_honeypot_lead_spooled_in_an_outage_is_drained_as_spam(
    store: LeadStore, tmp_path: Path, emailjs: HTTPServer
) -> None:
    """The spam mark travels through the spool: drained, the lead is kept as spam (never
    sent), not delivered as a real one."""
    accept_sends(emailjs)
    spool = Spool(tmp_path / "spool", "w1")
    down = intake_on(LeadStore(down_engine("sqlite", tmp_path)), spool, make_client(emailjs))
    form = {**contact("bot@example.com"), HONEYPOT_FIELD: "autofilled"}
    # Answered as a real lead spooled in the outage is.
    assert run(down.submit(LeadKind.HERO, form, "203.0.113.9")).result is Result.QUEUED
    [line] = spool.path.read_bytes().splitlines()
    assert SpooledLead.parse(line).spam == SpamReason.HONEYPOT
    intake = intake_on(store, spool, make_client(emailjs))
    assert SpoolDrain.of(intake).drain() == 1
    [lead] = store.all()
    assert (lead.status, lead.spam_reason) == (LeadStatus.SPAM, SpamReason.HONEYPOT)
    assert run(intake.delivery.retry_due()) == 0 and sent_payloads(emailjs) == []

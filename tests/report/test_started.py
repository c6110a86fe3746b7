"""Forms started (issue 43, item 2): a token request writes nothing, counts once per
address, form and day, and reaches the table through each worker's flush, once a minute
and at shutdown. Every test that takes ``db_url`` runs on SQLite and PostgreSQL."""

import asyncio
import contextlib
import datetime as dt
import ipaddress
import logging

import httpx
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agency_site import paths
from agency_site.forms.kinds import LeadKind
from agency_site.leads import runtime
from agency_site.leads.loop import Round
from agency_site.leads.ratelimit import address_key, storage_for
from agency_site.leads.spool import Spool
from agency_site.leads.store import LeadStore
from agency_site.report import tables
from agency_site.report.started import StartedCounter, agency_day
from agency_site.site_api import create_app
from tests.lead_store import new_engine
from tests.run_async import run
from tests.sql_statements import statements

SITE = "https://www.agencia.example"
NOON = dt.datetime(2026, 11, 10, 11, 0, tzinfo=dt.UTC)
FORMS = [str(kind) for kind in LeadKind]


def token_app(counter: StartedCounter, trusted_hops: int = 1):
    """The token endpoint as the site builds it (behind one proxy), told to ``counter``."""
    return create_app(
        lambda: None,  # type: ignore[arg-type,return-value]
        api_url=SITE,
        site_url=SITE,
        allowed_origins=(SITE,),
        trusted_hops=trusted_hops,
        max_body_bytes=1000,
        on_token=counter.seen,
    )


async def ask_tokens(app, requests: list[tuple[str, dict[str, str]]]) -> list[int]:
    """GET the token endpoint once per (query, headers); the status codes."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=SITE) as client:
        return [
            (await client.get(paths.FORM_TOKEN + query, headers=headers)).status_code
            for query, headers in requests
        ]


def memory_engine() -> sa.Engine:
    """A SQLite database in memory with the report's tables, one for every thread."""
    engine = sa.create_engine(
        "sqlite://", poolclass=sa.pool.StaticPool, connect_args={"check_same_thread": False}
    )
    tables.metadata.create_all(engine)
    return engine


def started_rows(engine: sa.Engine) -> set[tuple]:
    with engine.connect() as connection:
        return set(connection.execute(sa.select(tables.forms_started)))


def test_a_thousand_token_requests_from_one_address_are_one_form_started_and_no_write(
    db_url: str,
) -> None:
    """The probe of the issue: 1,000 token GETs from one address (the page's own request,
    with its Origin). Before: 1,000 UPSERTs on the leads engine and 1,000 forms started.
    Now: no statement at all while they come, one form started after the flush."""
    engine = new_engine(db_url)
    counter = StartedCounter(lambda: engine)
    page = {"Origin": SITE, "X-Forwarded-For": "203.0.113.9"}
    with statements(engine) as sent:
        codes = run(ask_tokens(token_app(counter), [("?form=quote", page)] * 1000))
    assert codes == [200] * 1000 and sent == []
    assert run(counter.flush()) == 1
    assert started_rows(engine) == {(agency_day(), "quote", 1)}
    assert run(counter.flush()) == 0  # Nothing new: nothing written.
    engine.dispose()


def test_only_a_page_s_request_for_a_known_form_counts() -> None:
    """No ``?form=``, an unknown one (no new key), another site's page, an address typed in
    the bar: a token each, no form started."""
    counter = StartedCounter(lambda: sa.create_engine("sqlite://"))
    address = {"X-Forwarded-For": "203.0.113.9"}
    requests = [
        ("", address),
        ("?form=nonsense", address),
        ("?form=" + "x" * 5000, address),
        ("?form=quote", {**address, "Origin": "https://evil.example"}),
        ("?form=quote", {**address, "Referer": "https://evil.example/page"}),
        ("?form=quote", {**address, "Sec-Fetch-Mode": "navigate", "Sec-Fetch-User": "?1"}),
    ]
    assert run(ask_tokens(token_app(counter), requests)) == [200] * len(requests)
    assert counter.pending == {}
    run(ask_tokens(token_app(counter), [("?form=booking", {**address, "Origin": SITE})]))
    assert counter.pending == {(agency_day(), "booking"): 1}


addresses = st.one_of(
    st.sampled_from(["203.0.113.9", "198.51.100.20", "2001:db8:1:2::1", "2001:db8:1:2::ff"]),
    st.ip_addresses().map(str),
)
forms = st.one_of(st.sampled_from(FORMS), st.text(max_size=20))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(addresses, forms, st.booleans()), max_size=25))
def test_the_count_is_the_distinct_addresses_per_known_form(
    requests: list[tuple[str, str, bool]],
) -> None:
    """For any token requests (any address, an IPv6 /64 once, any ``?form=``, from the
    site's page or another site's), after the flush: per known form, the distinct
    addresses of the site's own requests; no row for anything else."""
    engine = memory_engine()
    counter = StartedCounter(lambda: engine)

    async def scenario() -> list[int]:
        transport = httpx.ASGITransport(app=token_app(counter))
        async with httpx.AsyncClient(transport=transport, base_url=SITE) as client:
            return [
                (
                    await client.get(
                        paths.FORM_TOKEN,
                        params={paths.FORM_TOKEN_FORM: form},
                        headers={
                            "X-Forwarded-For": address,
                            "Origin": SITE if own else "https://evil.example",
                        },
                    )
                ).status_code
                for address, form, own in requests
            ]

    assert run(scenario()) == [200] * len(requests)
    run(counter.flush())
    expected: dict[str, set[str]] = {}
    for address, form, own in requests:
        if own and form in FORMS:
            expected.setdefault(form, set()).add(address_key(address))
    today = agency_day()
    assert started_rows(engine) == {(today, form, len(keys)) for form, keys in expected.items()}


def test_an_ipv6_network_counts_once_and_a_new_day_counts_again() -> None:
    counter = StartedCounter(lambda: sa.create_engine("sqlite://"))
    network = ipaddress.ip_network("2001:db8:7:8::/64")

    async def scenario() -> list[bool]:
        hosts = [str(network[i]) for i in (1, 2, 99)]
        seen = [await counter.seen("quote", host, NOON) for host in hosts]
        seen.append(await counter.seen("quote", hosts[0], NOON + dt.timedelta(days=1)))
        return seen

    assert run(scenario()) == [True, False, False, True]


def test_a_flood_of_new_addresses_stops_counting_at_the_day_s_bound(caplog) -> None:
    """Each worker keeps at most ``MAX_NEW_PER_DAY`` marks a day: past it, nothing counts
    (the day's figure is a floor) and one WARNING says so."""
    counter = StartedCounter(lambda: sa.create_engine("sqlite://"), max_new_per_day=3)

    async def scenario() -> list[bool]:
        return [await counter.seen("quote", f"198.51.100.{i}", NOON) for i in range(6)]

    with caplog.at_level(logging.WARNING, logger="agency_site.report.started"):
        assert run(scenario()) == [True, True, True, False, False, False]
    assert counter.pending == {(NOON.date(), "quote"): 3}
    assert caplog.text.count("more are not counted") == 1


def test_two_workers_count_an_address_once_through_redis(redis_server, db_url: str) -> None:
    """With ``REFLEX_REDIS_URL`` the marks are shared: the same address asking two workers
    (and their two flushes) is one form started."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    engine = new_engine(db_url)
    secret = lambda: b"the site's secret"  # noqa: E731
    workers = [
        StartedCounter(lambda: engine, storage_for(f"{redis_server.url}/0"), secret)
        for _ in range(2)
    ]

    async def scenario() -> list[bool]:
        seen = [await worker.seen("contact", "203.0.113.9", NOON) for worker in workers]
        seen.append(await workers[1].seen("contact", "203.0.113.10", NOON))
        for worker in workers:
            await worker.flush()
        return seen

    assert run(scenario()) == [True, False, True]
    assert started_rows(engine) == {(NOON.date(), "contact", 2)}
    engine.dispose()


def test_redis_down_falls_back_to_the_worker_s_own_marks(caplog) -> None:
    """Redis not answering: the worker marks in its memory (still once per address) and
    says so once; the token's answer never waits for it."""
    from scripts.local_servers import free_port

    counter = StartedCounter(
        lambda: sa.create_engine("sqlite://"),
        storage_for(f"redis://127.0.0.1:{free_port()}/0"),
    )

    async def scenario() -> list[bool]:
        return [await counter.seen("quote", "203.0.113.9", NOON) for _ in range(3)]

    with caplog.at_level(logging.ERROR, logger="agency_site.report.started"):
        assert run(scenario()) == [True, False, False]
    assert caplog.text.count("shared marks cannot be read") == 1


def test_a_flush_that_fails_keeps_the_counts_for_the_next(db_url: str, tmp_path) -> None:
    engine = new_engine(db_url)
    down = sa.create_engine(f"sqlite:///{tmp_path}/missing/folder/x.db")
    current = [down]
    counter = StartedCounter(lambda: current[0])

    async def scenario() -> None:
        await counter.seen("quote", "203.0.113.9", NOON)
        with pytest.raises(sa.exc.OperationalError):
            await counter.flush()
        await counter.seen("quote", "203.0.113.10", NOON)
        current[0] = engine
        assert await counter.flush() == 2

    run(scenario())
    assert started_rows(engine) == {(NOON.date(), "quote", 2)}
    engine.dispose()


def test_the_worker_flushes_every_round_and_once_more_when_it_stops(db_url: str, tmp_path) -> None:
    """The flush is a round of the worker's loops (``runtime.add_round``), started once
    the database is prepared, and its ``last`` runs when the worker stops."""
    from tests.leads.test_durable import _monitor, intake_on

    store = LeadStore(new_engine(db_url))
    intake = intake_on(store, Spool(tmp_path / "spool", "w1"))
    counter = StartedCounter(lambda: store.engine)
    flush = Round("The forms-started count", counter.flush, dt.timedelta(seconds=0.05),
                  last=counter.flush)  # fmt: skip

    async def scenario() -> tuple[set, set]:
        loops = asyncio.create_task(
            runtime.keep_leads_moving(intake, _monitor(intake, None, ""), None, (flush,))
        )
        await counter.seen("quote", "203.0.113.9", NOON)
        give_up = asyncio.get_running_loop().time() + 30  # Only ends a hang.
        while asyncio.get_running_loop().time() < give_up:
            if by_round := await asyncio.to_thread(started_rows, store.engine):
                break
            await asyncio.sleep(0.02)
        loops.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loops
        await counter.seen("booking", "203.0.113.9", NOON)  # After the last round ran.
        await runtime.last_rounds((flush,))
        return by_round, await asyncio.to_thread(started_rows, store.engine)

    by_round, at_stop = run(scenario())
    store.engine.dispose()
    assert by_round == {(NOON.date(), "quote", 1)}
    assert at_stop == {(NOON.date(), "quote", 1), (NOON.date(), "booking", 1)}


def test_the_counter_adds_its_flush_to_every_worker_s_rounds(monkeypatch) -> None:
    """``forms_started`` (which ``site_api.site_api`` calls) builds the counter and adds
    its flush to the rounds every worker runs: once a minute, and at shutdown."""
    from agency_site.report import started
    from agency_site.settings import get_settings

    monkeypatch.setattr(runtime, "_ROUNDS", {})
    counter = started.forms_started(get_settings(), lambda: sa.create_engine("sqlite://"))
    [round] = runtime._ROUNDS.values()
    assert round.every == started.FLUSH_EVERY == dt.timedelta(minutes=1)
    assert round.run == counter.flush and round.last == counter.flush

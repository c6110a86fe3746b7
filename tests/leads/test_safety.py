"""Abuse and failure: crafted payloads of any shape, a shared rate limit, a submission deadline.

The rate limit is tested against a real ``redis-server`` started on a free loopback
port for the module (never a mock): two limiters, like two backend workers, share
their counts.
"""

import asyncio
import datetime as dt
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from limits.aio.storage import MemoryStorage

from agency_site.content.form_words import COPY
from agency_site.forms.declarations import BY_KIND, HONEYPOT_FIELD
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result, Submission
from agency_site.leads.intake import LeadIntake
from agency_site.leads.ratelimit import RateLimiter, address_key, storage_for
from agency_site.leads.store import LeadStore
from agency_site.leads.validation import MAX_FIELDS, Validation, screen, validate
from scripts.local_servers import free_port
from tests.lead_store import make_delivery, new_engine
from tests.run_async import run

TODAY = dt.date(2026, 3, 10)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=50),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(), children),
    max_leaves=20,
)
# Form data as a crafted event could carry it: any keys (also non-text, as Reflex's
# form-data entries allow), any JSON values, or no mapping at all.
KEYS = st.text(max_size=80) | st.integers() | st.floats(allow_nan=False) | st.booleans()
FORMS = JSON | st.dictionaries(KEYS, JSON, max_size=20)
FIELD_NAMES = st.sampled_from(["name", "email", "phone", "date", "time", "message", HONEYPOT_FIELD])
NEAR_FORMS = st.dictionaries(FIELD_NAMES, JSON | st.text(max_size=3000))


@given(form=FORMS | NEAR_FORMS, kind=st.sampled_from(list(LeadKind)))
@settings(max_examples=400, deadline=None)
def test_validation_answers_any_payload_without_raising(form, kind: LeadKind) -> None:
    result = validate(kind, form, TODAY)
    assert isinstance(result, Validation)
    assert result.valid != bool(result.errors)
    assert set(result.errors) <= set(BY_KIND[kind].errors)


@given(form=FORMS | NEAR_FORMS, kind=st.sampled_from(list(LeadKind)))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_intake_answers_any_payload_without_raising(form, kind: LeadKind) -> None:
    intake = LeadIntake(
        _unused_store(), make_delivery(_unused_store(), None), memory_limiter(10**6)
    )
    submission = run(intake.submit(kind, form, "203.0.113.7"))
    assert isinstance(submission, Submission)
    assert submission.result in (Result.INVALID, Result.SENT, Result.STORE_FAILED)


def _unused_store() -> LeadStore:
    """A store on an empty in-memory database: storing fails (STORE_FAILED), nothing leaks."""
    return LeadStore(new_engine("sqlite://"))


def memory_limiter(per_ip: int, window_s: int = 600) -> RateLimiter:
    return RateLimiter(MemoryStorage(), per_ip=per_ip, window_s=window_s)


@pytest.mark.parametrize(
    ("form", "reason"),
    [
        (["ana@example.com"], "not a mapping but list"),
        (42, "not a mapping but int"),
        ({f"k{n}": "" for n in range(10_000)}, "10000 fields"),
        ({1: "ana@example.com"}, "a field name of type int"),
        ({"x" * 1000: ""}, "a field name of 1000 characters"),
    ],
)
def test_crafted_shapes_are_refused_whole_with_a_short_reason(form, reason: str) -> None:
    assert screen(form) == reason
    result = validate(LeadKind.BOOKING, form, TODAY)
    assert result.refused == reason and result.errors == BY_KIND[LeadKind.BOOKING].errors


def test_a_huge_field_is_wrong_before_any_character_is_read() -> None:
    # A million control characters: reading them would say "control characters".
    form = {"email": "\x00" * 1_000_000}
    assert validate(LeadKind.HERO, form, TODAY).errors == {"email": COPY.hero.fields["email"].error}
    form = {"name": "\x00" * 1_000_000}
    assert (
        validate(LeadKind.BOOKING, form, TODAY).errors["name"] == COPY.booking.fields["name"].error
    )


def test_a_crafted_submission_is_logged_in_one_short_line(caplog) -> None:
    intake = LeadIntake(_unused_store(), make_delivery(_unused_store(), None), memory_limiter(99))
    with caplog.at_level(logging.WARNING):
        result = run(intake.submit(LeadKind.HERO, {"x" * 100_000: "y"}, "\n" * 100_000))
    assert result.result is Result.INVALID
    [record] = [r for r in caplog.records if "crafted" in r.getMessage()]
    assert len(record.getMessage()) < 300 and "\n" not in record.getMessage()


def test_max_fields_leaves_room_for_every_real_field() -> None:
    assert len(BY_KIND[LeadKind.BOOKING].errors) + 1 < MAX_FIELDS


# --- Rate limit: per address, shared through Redis ---------------------------------------


def test_addresses_are_keyed_by_subscriber() -> None:
    assert address_key("203.0.113.7") == "203.0.113.7"
    assert address_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert address_key("2001:db8:1:2:3:4:5:6") == address_key("2001:db8:1:2:ffff::1")
    assert address_key("2001:db8:1:2::1") != address_key("2001:db8:1:3::1")
    assert address_key("not an ip") == "not an ip"


def test_one_address_over_its_limit_does_not_block_another() -> None:
    limiter = memory_limiter(per_ip=3)

    async def scenario() -> tuple[list[bool], list[bool]]:
        abuser = [await limiter.hit("127.0.0.2") for _ in range(5)]
        others = [await limiter.hit(f"127.0.0.{n}") for n in range(3, 8)]
        return abuser, others

    abuser, others = run(scenario())
    assert abuser == [True, True, True, False, False]
    assert all(others)


def listening(port: int, timeout_s: float) -> bool:
    """Wait until something accepts connections on 127.0.0.1:``port``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


@pytest.fixture
def redis_url(redis_server) -> str:
    """The session's real redis-server (tests/conftest.py), emptied for this test."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return f"{redis_server.url}/0"


def test_two_workers_share_the_count_through_redis(redis_url: str) -> None:
    async def scenario() -> list[bool]:
        # Two limiters with their own connections: two backend workers.
        first = RateLimiter(storage_for(redis_url), per_ip=4, window_s=600)
        second = RateLimiter(storage_for(redis_url), per_ip=4, window_s=600)
        hits = []
        for limiter in (first, second, first, second, first, second):
            hits.append(await limiter.hit("127.0.0.9"))
        hits.append(await second.hit("127.0.0.10"))  # Another address: its own count.
        return hits

    assert run(scenario()) == [True, True, True, True, False, False, True]


def test_an_unreachable_redis_lets_the_lead_through(caplog) -> None:
    limiter = RateLimiter(storage_for(f"redis://127.0.0.1:{free_port()}/0"), per_ip=1, window_s=60)
    with caplog.at_level(logging.ERROR):
        assert run(limiter.hit("127.0.0.2")) is True
    assert any("rate limit could not be checked" in r.getMessage() for r in caplog.records)


# --- The deadline: the visitor always gets an honest answer -----------------------------


class SlowStore(LeadStore):
    """A store whose database hangs for ``delay_s`` before storing."""

    def __init__(self, engine, delay_s: float) -> None:
        super().__init__(engine)
        self.delay_s = delay_s

    def add_lead(self, *args, **kwargs):
        time.sleep(self.delay_s)
        return super().add_lead(*args, **kwargs)


class HangingDelivery:
    """A configured delivery whose first attempt never returns."""

    def __init__(self, real) -> None:
        self._real = real
        self.configured = True
        self.policy = real.policy

    async def attempt(self, *args, **kwargs):
        await asyncio.sleep(3600)


def test_a_hung_database_ends_in_the_write_to_us_message(db_url: str) -> None:
    store = SlowStore(new_engine(db_url), delay_s=2)
    intake = LeadIntake(store, make_delivery(store, None), memory_limiter(9), deadline_s=0.3)
    started = time.monotonic()
    result = run(intake.submit(LeadKind.HERO, {"email": "ana@example.com"}, "127.0.0.2"))
    assert result.result is Result.STORE_FAILED
    assert time.monotonic() - started < 5  # Sanity bound only.


def test_a_hung_first_send_of_a_stored_lead_says_received(db_url: str) -> None:
    store = LeadStore(new_engine(db_url))
    delivery = HangingDelivery(make_delivery(store, None))
    # Long enough to store on a busy machine (PostgreSQL too); the send never returns.
    intake = LeadIntake(store, delivery, memory_limiter(9), deadline_s=5)
    result = run(intake.submit(LeadKind.HERO, {"email": "ana@example.com"}, "127.0.0.2"))
    assert result.result is Result.QUEUED
    assert len(store.all()) == 1


# --- The same over real sockets: several loopback source addresses, two server processes ---


def start_fallback_server(port: int, env: dict[str, str]) -> subprocess.Popen:
    """The /_site/ endpoints served by granian on 127.0.0.1:``port``."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "granian",
            "--interface",
            "asgi",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "tests.leads.fallback_server:app",
        ],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if not listening(port, 30):
        process.kill()
        pytest.fail("the fallback server did not start")
    return process


def post_from(port: int, source: str, headers: dict | None = None) -> int:
    """POST a wrong e-mail from the loopback address ``source``; the status code."""
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport) as client:
        return client.post(
            f"http://127.0.0.1:{port}/_site/forms/contact",
            content="email=x%40",
            headers={"content-type": "application/x-www-form-urlencoded", **(headers or {})},
        ).status_code


@pytest.fixture
def two_servers(db_url: str, redis_url: str) -> Iterator[tuple[int, int]]:
    """Two server processes ("workers") sharing one Redis, limit 3 per address."""
    ports = (free_port(), free_port())
    env = {
        "FALLBACK_DB_URL": db_url,
        "FALLBACK_PER_IP": "3",
        "FALLBACK_HOPS": "0",
        "FALLBACK_REDIS_URL": redis_url.replace("/0", "/1"),
    }
    processes = [start_fallback_server(port, env) for port in ports]
    yield ports
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def test_an_abuser_on_one_address_does_not_block_others_across_workers(
    two_servers: tuple[int, int],
) -> None:
    first, second = two_servers
    abuser = [post_from(port, "127.0.0.2") for port in (first, second, first, second)]
    assert abuser == [400, 400, 400, 429]  # Invalid attempts count, across both workers.
    assert post_from(second, "127.0.0.3") == 400  # Other visitors get their answer.
    assert post_from(first, "127.0.0.4") == 400


def test_behind_a_trusted_proxy_the_visitor_address_counts(db_url: str) -> None:
    port = free_port()
    env = {"FALLBACK_DB_URL": db_url, "FALLBACK_PER_IP": "2", "FALLBACK_HOPS": "1"}
    process = start_fallback_server(port, env)
    try:
        # Every request arrives from the proxy (127.0.0.1), which appends the visitor.
        abuser = [post_from(port, "127.0.0.1", {"x-forwarded-for": "127.0.0.2"}) for _ in range(3)]
        assert abuser == [400, 400, 429]
        assert post_from(port, "127.0.0.1", {"x-forwarded-for": "127.0.0.3"}) == 400
        # A forged header is the left part of the list; the proxy's entry still counts.
        forged = {"x-forwarded-for": "203.0.113.1, 127.0.0.2"}
        assert post_from(port, "127.0.0.1", forged) == 429
    finally:
        process.terminate()
        process.wait(timeout=10)

"""Proof of work only when suspect (docs/leads.md "Spam", ``leads/spam/challenge.py``): the
ALTCHA challenge a soft-flagged or rate-limited submission is asked to solve, its
verification, and the release of the quarantined lead, once, whatever the order of the
solved resubmissions and `leads not-spam`."""

import datetime as dt
import json
import uuid
from pathlib import Path

import altcha
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from limits.aio.storage import MemoryStorage
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.forms.declarations import (
    CHALLENGE_FIELD,
    FORM_TOKEN_FIELD,
    HONEYPOT_FIELD,
    IDEMPOTENCY_FIELD,
)
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result
from agency_site.leads.intake import LeadIntake
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.spam.address_check import AddressScreen
from agency_site.leads.spam.challenge import PAYLOAD_MAX, Challenges, challenge_key
from agency_site.leads.spam.screen import SpamScreen, quarantine_note
from agency_site.leads.spool import Spool
from agency_site.leads.spool_drain import SpoolDrain
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import LeadStore
from agency_site.site_api import _STATUS
from tests.emailjs_fake import accept_sends, make_client, sent_payloads
from tests.lead_store import make_delivery
from tests.leads.test_durable import down_engine, limiter
from tests.leads.test_site_api import site_app
from tests.leads.test_spam import SECRET, Clock, tokens_at
from tests.run_async import run

# Tiny in tests: the Python solver finds the counter in a few hashes.
MAX_NUMBER = 20
EXPIRY = dt.timedelta(minutes=10)
IP = "203.0.113.5"


def challenges(secrets: tuple[str, ...] = (SECRET,), clock=None) -> Challenges:
    return Challenges(secrets, MAX_NUMBER, EXPIRY, **({"clock": clock} if clock else {}))


def solve(challenge: str) -> str:
    """What the widget sends once it has solved ``challenge`` (the lib's own solver)."""
    parsed = altcha.Challenge.from_dict(json.loads(challenge))
    solution = altcha.solve_challenge(parsed, timeout=10)
    assert solution is not None
    return altcha.Payload(parsed, solution).to_base64()


def new_key() -> str:
    return uuid.uuid4().hex


# --- The challenge -----------------------------------------------------------------------


def test_a_challenge_solved_for_its_submission_verifies() -> None:
    made = challenges()
    key = new_key()
    challenge = json.loads(made.issue(key))
    params = challenge["parameters"]
    # The widget v3's format: ALTCHA v2, its default PBKDF2 (a worker it has), signed, bound.
    assert (params["algorithm"], params["data"], len(challenge["signature"])) == (
        "PBKDF2/SHA-256",
        {"key": key},
        64,
    )
    assert made.verify(solve(json.dumps(challenge)), key)


def test_a_payload_of_another_key_another_submission_expired_or_malformed_is_refused() -> None:
    key = new_key()
    payload = solve(challenges().issue(key))
    assert not challenges(("x" * 43,)).verify(payload, key)  # Another site's key.
    assert not challenges().verify(payload, new_key())  # Solved for another submission.
    past = Clock(1_000_000_000.0)  # Issued long ago: expired now.
    assert not challenges().verify(solve(challenges(clock=past).issue(key)), key)
    for junk in ("", "abc", "e30=", None, 42, "A" * (PAYLOAD_MAX + 1)):
        assert not challenges().verify(junk, key)
    # A rotation: the first secret signs, any verifies.
    assert challenges((SECRET, "o" * 43)).verify(payload, key)
    assert challenge_key(SECRET) != challenge_key("o" * 43)


@given(counter=st.integers(-1, 2**33), derived=st.text(max_size=80))
@settings(max_examples=50, deadline=None)
def test_a_forged_solution_of_a_real_challenge_is_refused(counter: int, derived: str) -> None:
    key = new_key()
    challenge = altcha.Challenge.from_dict(json.loads(challenges().issue(key)))
    forged = altcha.Payload(challenge, altcha.Solution(counter, derived)).to_base64()
    right = altcha.solve_challenge(challenge)
    assert right is not None
    expected = counter == right.counter and derived == right.derived_key
    assert challenges().verify(forged, key) is expected


# --- At intake ---------------------------------------------------------------------------


def intake_with(
    store: LeadStore,
    emailjs: HTTPServer | None,
    clock: Clock,
    *,
    per_ip: int = 50,
    challenge: bool = True,
) -> LeadIntake:
    client = make_client(emailjs) if emailjs is not None else None
    limiter = RateLimiter(MemoryStorage(), per_ip=per_ip, window_s=600)
    screen = SpamScreen(
        tokens=tokens_at(clock),
        addresses=AddressScreen(),
        challenges=challenges() if challenge else None,
    )
    return LeadIntake(store, make_delivery(store, client), limiter, screen=screen)


def form(email: str, key: str, **extra: str) -> dict[str, str]:
    return {"email": email, HONEYPOT_FIELD: "", IDEMPOTENCY_FIELD: key, **extra}


def submit(intake: LeadIntake, data: dict[str, str], ip: str = IP):
    return run(intake.submit(LeadKind.HERO, data, ip))


def delivered_to(emailjs: HTTPServer, email: str) -> int:
    return sum(
        1 for sent in sent_payloads(emailjs) if sent["template_params"].get("from_email") == email
    )


def test_a_too_fast_submission_is_kept_as_spam_challenged_then_solved_and_delivered(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    clock = Clock()
    intake = intake_with(store, emailjs, clock)
    key = new_key()
    token = intake.screen.tokens.issue()
    clock.now += 1  # Sooner than a person types.
    data = form("ana@example.com", key, **{FORM_TOKEN_FIELD: token})
    answer = submit(intake, data)
    assert answer.result is Result.CHALLENGE and answer.challenge
    [lead] = store.all()
    assert (lead.status, lead.spam_reason) == (LeadStatus.SPAM, SpamReason.TOO_FAST)
    assert sent_payloads(emailjs) == []

    solved = submit(intake, data | {CHALLENGE_FIELD: solve(answer.challenge)})
    assert solved.result is Result.SENT
    assert [(lead.status, lead.spam_reason) for lead in store.all()] == [
        (LeadStatus.SENT, SpamReason.TOO_FAST)  # The reason stays: why it was asked.
    ]
    assert delivered_to(emailjs, "ana@example.com") == 1


def test_an_unsolved_or_foreign_payload_leaves_the_lead_in_quarantine(store: LeadStore) -> None:
    intake = intake_with(store, None, Clock())
    key, other = new_key(), new_key()
    first = submit(intake, form("bot@example.com", key))  # No token.
    assert first.result is Result.CHALLENGE
    for payload in ("", "bogus", solve(challenges().issue(other))):
        again = submit(intake, form("bot@example.com", key, **{CHALLENGE_FIELD: payload}))
        assert again.result is Result.CHALLENGE
    assert [lead.status for lead in store.all()] == [LeadStatus.SPAM]


@pytest.mark.parametrize("reason", [SpamReason.HONEYPOT, SpamReason.DISPOSABLE])
def test_a_hard_reason_is_never_challenged_and_a_solution_does_not_release_it(
    store: LeadStore, reason: SpamReason
) -> None:
    clock = Clock()
    intake = intake_with(store, None, clock)
    key = new_key()
    token = intake.screen.tokens.issue()
    clock.now += 10  # A person's pace: only the hard reason holds.
    email = "bot@mailinator.com" if reason is SpamReason.DISPOSABLE else "bot@example.com"
    trap = "http://x" if reason is SpamReason.HONEYPOT else ""
    data = form(email, key, **{FORM_TOKEN_FIELD: token, HONEYPOT_FIELD: trap})
    assert submit(intake, data).result is Result.QUEUED  # Answered as real, silently.
    payload = solve(challenges().issue(key))  # Even a solution the bot got elsewhere.
    assert submit(intake, data | {CHALLENGE_FIELD: payload}).result is Result.QUEUED
    assert [(lead.status, lead.spam_reason) for lead in store.all()] == [(LeadStatus.SPAM, reason)]


def test_with_the_challenge_off_a_suspect_lead_is_answered_as_before(store: LeadStore) -> None:
    intake = intake_with(store, None, Clock(), challenge=False)
    assert submit(intake, form("bot@example.com", new_key())).result is Result.QUEUED
    assert [lead.status for lead in store.all()] == [LeadStatus.SPAM]


def test_a_rate_limited_valid_submission_is_challenged_not_stored_then_taken_when_solved(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    clock = Clock()
    intake = intake_with(store, emailjs, clock, per_ip=1)
    token = intake.screen.tokens.issue()
    clock.now += 10
    first = form("ana@example.com", new_key(), **{FORM_TOKEN_FIELD: token})
    assert submit(intake, first).result is Result.SENT
    second = form("bea@example.com", new_key(), **{FORM_TOKEN_FIELD: token})
    answer = submit(intake, second)
    assert answer.result is Result.CHALLENGE
    assert len(store.all()) == 1  # The limiter exists to stop floods: nothing stored.
    invalid = form("not-an-address", new_key(), **{FORM_TOKEN_FIELD: token})
    assert submit(intake, invalid).result is Result.RATE_LIMITED  # Nothing to challenge.

    solved = second | {CHALLENGE_FIELD: solve(answer.challenge)}
    assert submit(intake, solved).result is Result.SENT
    assert submit(intake, solved).result is Result.SENT  # A replay: the same lead.
    assert [lead.status for lead in store.all()] == [LeadStatus.SENT, LeadStatus.SENT]
    assert delivered_to(emailjs, "bea@example.com") == 1


# Steps after a soft-flagged submission: its solved resubmission, `leads not-spam ID`.
SOLVE, NOT_SPAM = "solve", "not-spam"


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.sampled_from((SOLVE, NOT_SPAM)), min_size=1, max_size=4))
def test_whatever_the_order_of_solves_and_not_spam_the_lead_is_delivered_once(
    store: LeadStore, emailjs: HTTPServer, steps: list[str]
) -> None:
    accept_sends(emailjs)
    intake = intake_with(store, emailjs, Clock())
    email = f"ana-{new_key()[:8]}@example.com"
    data = form(email, new_key())  # No token: soft.
    answer = submit(intake, data)
    assert answer.result is Result.CHALLENGE
    lead = intake.store.by_key(data[IDEMPOTENCY_FIELD])
    assert lead is not None and lead.id is not None
    payload = solve(answer.challenge)
    for step in steps:
        if step == SOLVE:
            assert submit(intake, data | {CHALLENGE_FIELD: payload}).result in (
                Result.SENT,
                Result.QUEUED,
            )
        else:
            store.release_spam(lead.id)
        run(intake.delivery.retry_due())
    assert delivered_to(emailjs, email) == 1
    assert store.get(lead.id).status == LeadStatus.SENT


# --- Through the site API ----------------------------------------------------------------

FORM_TYPE = {"content-type": "application/x-www-form-urlencoded"}
JSON = {"accept": "application/json"}


def test_the_http_fallback_gets_the_challenge_as_json_and_its_solution_delivers(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    intake = intake_with(store, emailjs, Clock())
    app = site_app(intake)
    data = form("ana@example.com", new_key())

    async def fallback() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.2", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="https://api.example.es") as c:
            url = paths.form_post("contact")
            body = str(httpx.QueryParams(data))
            first = await c.post(url, content=body, headers=FORM_TYPE | JSON)
            challenge = json.dumps(first.json()["challenge"])
            solved = str(httpx.QueryParams(data | {CHALLENGE_FIELD: solve(challenge)}))
            return [first, await c.post(url, content=solved, headers=FORM_TYPE | JSON)]

    first, second = run(fallback())
    assert (first.status_code, first.json()["result"]) == (_STATUS[Result.CHALLENGE], "challenge")
    assert first.headers["cache-control"] == "no-store"
    assert first.json()["challenge"]["parameters"]["data"] == {"key": data[IDEMPOTENCY_FIELD]}
    assert (second.status_code, second.json()) == (200, {"result": "sent", "errors": {}})
    assert delivered_to(emailjs, "ana@example.com") == 1


def test_the_page_without_javascript_shows_the_widget_and_keeps_the_submission_s_key(
    store: LeadStore,
) -> None:
    intake = intake_with(store, None, Clock())
    data = form("bot@example.com", new_key())

    async def post() -> httpx.Response:
        transport = httpx.ASGITransport(app=site_app(intake), client=("127.0.0.2", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="https://api.example.es") as c:
            body = str(httpx.QueryParams(data))
            return await c.post(paths.form_post("contact"), content=body, headers=FORM_TYPE)

    answer = run(post())
    page = answer.text
    assert answer.status_code == _STATUS[Result.CHALLENGE]
    assert "<altcha-widget" in page and f'name="{CHALLENGE_FIELD}"' in page
    assert f'name="{IDEMPOTENCY_FIELD}" value="{data[IDEMPOTENCY_FIELD]}"' in page
    assert 'value="bot@example.com"' in page  # What was typed, kept.
    assert [lead.status for lead in store.all()] == [LeadStatus.SPAM]


def test_the_challenge_settings_are_documented_and_default_on() -> None:
    from agency_site.settings import LeadsSettings

    leads = LeadsSettings(_env_file=None)
    assert leads.spam_challenge is True
    assert (leads.spam_challenge_max_number, leads.spam_challenge_expiry_seconds) == (5_000, 600)


def test_a_crafted_payload_is_still_invalid_with_the_challenge_on(store: LeadStore) -> None:
    intake = intake_with(store, None, Clock())
    assert submit(intake, ["ana@example.com"]).result is Result.INVALID  # type: ignore[arg-type]
    assert store.all() == []


def test_leads_spam_says_which_were_challenged_and_never_solved() -> None:
    assert quarantine_note("too_fast", True) == "spam: too_fast, challenged, not solved"
    assert quarantine_note("no_token", False) == "spam: no_token"  # The challenge off.
    assert quarantine_note("honeypot", True) == "spam: honeypot"  # Never challenged.
    assert quarantine_note(None, True) == "spam: honeypot"  # Rows from before reasons.


def test_in_an_outage_a_soft_flagged_lead_is_spooled_as_spam_and_not_challenged(
    store: LeadStore, tmp_path: Path
) -> None:
    """A challenge could release nothing before the drain: the lead is answered as any
    spooled one, and drained into quarantine (`leads not-spam` then releases it)."""
    spool = Spool(tmp_path / "spool", "w1")
    down_store = LeadStore(down_engine("sqlite", tmp_path))
    screen = SpamScreen(tokens=tokens_at(Clock()), challenges=challenges())
    down = LeadIntake(
        down_store, make_delivery(down_store, None), limiter(), 4.0, spool, screen=screen
    )
    answer = submit(down, form("ana@example.com", new_key()))  # No token: soft.
    assert (answer.result, answer.challenge) == (Result.QUEUED, "")
    up = LeadIntake(store, make_delivery(store, None), limiter(), 4.0, spool, screen=screen)
    assert SpoolDrain.of(up).drain() == 1
    assert [(lead.status, lead.spam_reason) for lead in store.all()] == [
        (LeadStatus.SPAM, SpamReason.NO_TOKEN)
    ]

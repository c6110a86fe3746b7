"""Spam with no third party (docs/leads.md "Spam"): each check, the quarantine it leads
to (stored, answered as real, never sent, released by `leads not-spam`), and the
forms' time trap through the site API as a browser and a bot meet it."""

import datetime as dt
import logging
import time
from pathlib import Path

import dns.exception
import dns.resolver
import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from limits.aio.storage import MemoryStorage
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.forms.declarations import FORM_TOKEN_FIELD, HONEYPOT_FIELD
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result
from agency_site.leads.intake import LeadIntake
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.site_secret import FORM_TOKEN, derived
from agency_site.leads.spam.address_check import AddressScreen, ascii_domain, disposable, mx_lookup
from agency_site.leads.spam.form_token import FILE_NAME, MAX_AGE, FormTokens, token_keys
from agency_site.leads.spam.screen import SpamScreen
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import LeadStore
from agency_site.settings import BookingSettings, DeploySettings, Settings, load_settings
from tests.emailjs_fake import accept_sends, make_client, sent_payloads
from tests.lead_store import make_delivery
from tests.leads.test_site_api import site_app
from tests.run_async import run

SECRET, OLD_SECRET = "s" * 43, "o" * 43
MIN_AGE = dt.timedelta(seconds=3)
SITE, API = "https://www.example.es", "https://api.example.es"
# What a browser sends with a person's click on a form's submit button.
NAVIGATION = {"sec-fetch-mode": "navigate", "sec-fetch-user": "?1", "sec-fetch-dest": "document"}


class Clock:
    """A clock the test moves."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def tokens_at(clock: Clock, secrets: tuple[str, ...] = (SECRET,)) -> FormTokens:
    return FormTokens(secrets, MIN_AGE, clock=clock)


# --- The token -------------------------------------------------------------------------


@given(age_s=st.floats(0, 3 * MAX_AGE.total_seconds(), allow_nan=False))
def test_a_token_holds_from_the_least_age_to_a_day_and_is_suspect_otherwise(age_s: float) -> None:
    clock = Clock()
    token = tokens_at(clock).issue()
    clock.now += age_s
    reason = tokens_at(clock).check(token)
    age = dt.timedelta(seconds=age_s)
    # The token keeps milliseconds: an age within one of a bound may fall either side.
    near = dt.timedelta(milliseconds=1)
    if abs(age - MIN_AGE) < near or abs(age - MAX_AGE) < near:
        return
    expected = (
        SpamReason.TOO_FAST
        if age < MIN_AGE
        else SpamReason.TOKEN_EXPIRED
        if age > MAX_AGE
        else None
    )
    assert reason == expected


@given(token=st.one_of(st.text(max_size=300), st.integers(), st.lists(st.text(), max_size=3)))
def test_anything_but_a_token_of_ours_is_missing_or_forged(token: object) -> None:
    reason = tokens_at(Clock()).check(token)
    assert reason == (SpamReason.NO_TOKEN if not token else SpamReason.BAD_TOKEN)


def test_a_token_of_another_secret_or_salt_is_forged_one_of_a_rotated_secret_holds() -> None:
    clock = Clock()
    old = tokens_at(clock, (OLD_SECRET,)).issue()
    stranger = FormTokens(("x" * 43,), MIN_AGE, clock=clock).issue()
    clock.now += 10
    rotated = tokens_at(clock, (SECRET, OLD_SECRET))
    assert rotated.check(old) is None  # Signed before the rotation: still holds.
    assert rotated.check(stranger) == SpamReason.BAD_TOKEN
    assert tokens_at(clock).check(old) == SpamReason.BAD_TOKEN  # The old secret removed.
    forged = tokens_at(clock).issue()
    assert tokens_at(clock).check(forged[:-2] + ("A" if forged[-2] != "A" else "B") + "x")


def settings_in(folder: Path, link_secret: str = "") -> Settings:
    booking = BookingSettings(_env_file=None, link_secret=link_secret)
    deploy = DeploySettings(_env_file=None, data_dir=str(folder))
    return load_settings().model_copy(update={"booking": booking, "deploy": deploy})


def test_the_tokens_key_is_the_sites_shared_one_else_kept_on_this_host(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Hosts of one site share BOOKING_LINK_SECRET (a token fetched from one holds on
    another): the tokens' key is derived from it, newest first, then the secrets themselves
    for the transition; without it each host keeps its own site secret, made once; none to
    be had turns the trap off (no lead is taken for spam for want of a secret)."""
    shared = token_keys(settings_in(tmp_path, f"{SECRET},{OLD_SECRET}"))
    assert shared == (
        derived(SECRET, FORM_TOKEN),
        derived(OLD_SECRET, FORM_TOKEN),
        SECRET,
        OLD_SECRET,
    )
    assert list(tmp_path.iterdir()) == []
    (kept,) = token_keys(settings_in(tmp_path))
    assert kept == derived((tmp_path / "site-secret").read_text().strip(), FORM_TOKEN)
    assert token_keys(settings_in(tmp_path)) == (kept,)  # The same, start after start.
    (tmp_path / "site-secret").write_text("short\n")
    with caplog.at_level(logging.ERROR):
        assert token_keys(settings_in(tmp_path)) == ()
    assert "time trap is OFF" in caplog.text and "short" not in caplog.text


def test_a_token_of_this_host_s_former_secret_holds_during_the_transition(tmp_path: Path) -> None:
    """A page opened before the upgrade carries a token signed with the host's own
    ``form-token-secret``: it still holds, and new tokens are signed with the derived key."""
    (tmp_path / FILE_NAME).write_text(OLD_SECRET + "\n")
    clock = Clock(1_000.0)
    before = FormTokens([OLD_SECRET], dt.timedelta(seconds=3), clock=clock).issue()
    clock.now += 10
    now = FormTokens(token_keys(settings_in(tmp_path)), dt.timedelta(seconds=3), clock=clock)
    assert now.check(before) is None
    assert (
        FormTokens([OLD_SECRET], dt.timedelta(seconds=3), clock=clock).check(now.issue())
        == SpamReason.BAD_TOKEN
    )


# --- The quarantine at intake ----------------------------------------------------------


def screened_intake(store: LeadStore, emailjs: HTTPServer | None, clock: Clock) -> LeadIntake:
    client = make_client(emailjs) if emailjs is not None else None
    limiter = RateLimiter(MemoryStorage(), per_ip=50, window_s=600)
    screen = SpamScreen(tokens=tokens_at(clock))
    return LeadIntake(store, make_delivery(store, client), limiter, screen=screen)


def hero(email: str, **extra: str) -> dict[str, str]:
    return {"email": email, HONEYPOT_FIELD: "", **extra}


@pytest.mark.parametrize(
    ("token_age_s", "reason"),
    [(None, SpamReason.NO_TOKEN), (1.0, SpamReason.TOO_FAST), (2 * 86_400.0, "token_expired")],
)
def test_a_suspect_token_is_quarantined_answered_as_real_never_sent_then_released(
    store: LeadStore, emailjs: HTTPServer, token_age_s: float | None, reason: SpamReason
) -> None:
    accept_sends(emailjs)
    clock = Clock()
    intake = screened_intake(store, emailjs, clock)
    extra = {}
    if token_age_s is not None:
        extra[FORM_TOKEN_FIELD] = intake.screen.tokens.issue()
        clock.now += token_age_s
    answer = run(intake.submit(LeadKind.HERO, hero("bot@example.com", **extra), "203.0.113.5"))
    assert answer.result is Result.SENT  # What a real lead sent at once is told.
    [lead] = store.all()
    assert (lead.status, lead.spam_reason) == (LeadStatus.SPAM, reason)
    assert run(intake.delivery.retry_due()) == 0 and sent_payloads(emailjs) == []

    assert store.release_spam(lead.id)  # `leads not-spam ID`.
    assert run(intake.delivery.retry_due()) == 1
    [sent] = sent_payloads(emailjs)
    assert sent["template_params"]["from_email"] == "bot@example.com"


def test_a_person_s_token_delivers_and_so_does_a_browser_s_post_with_no_script(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    clock = Clock()
    intake = screened_intake(store, emailjs, clock)
    token = intake.screen.tokens.issue()
    clock.now += 3.5
    form = hero("ana@example.com", **{FORM_TOKEN_FIELD: token})
    assert run(intake.submit(LeadKind.HERO, form, "203.0.113.5")).result is Result.SENT
    no_js = hero("bea@example.com")
    assert run(intake.submit(LeadKind.HERO, no_js, "203.0.113.6", no_script=True)).result is (
        Result.SENT
    )
    assert {lead.status for lead in store.all()} == {LeadStatus.SENT}
    assert [lead.spam_reason for lead in store.all()] == [None, None]


def test_a_screen_that_fails_never_keeps_a_lead_from_the_agency(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)

    class Broken(SpamScreen):
        async def reason(self, fields, form_data, *, no_script):
            raise RuntimeError("a check's bug")

    limiter = RateLimiter(MemoryStorage(), per_ip=5, window_s=600)
    intake = LeadIntake(store, make_delivery(store, make_client(emailjs)), limiter, screen=Broken())
    assert run(intake.submit(LeadKind.HERO, hero("ana@example.com"), "1.2.3.4")).result is (
        Result.SENT
    )
    assert store.all()[0].status == LeadStatus.SENT


def test_the_honeypot_is_the_first_reason_checked(store: LeadStore) -> None:
    intake = screened_intake(store, None, Clock())
    form = {"email": "bot@example.com", HONEYPOT_FIELD: "http://x"}  # And no token.
    assert run(intake.submit(LeadKind.HERO, form, "1.2.3.4")).result is Result.QUEUED
    assert store.all()[0].spam_reason == SpamReason.HONEYPOT


# --- Through the site API --------------------------------------------------------------


def api(intake: LeadIntake, tokens: FormTokens | None) -> httpx.AsyncClient:
    app = site_app(intake, get_tokens=lambda: tokens)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.2", 50000))
    return httpx.AsyncClient(transport=transport, base_url=API)


FORM_TYPE = {"content-type": "application/x-www-form-urlencoded"}
JSON = {"accept": "application/json"}


def test_the_token_endpoint_hands_out_fresh_tokens_the_fallback_s_post_carries(
    store: LeadStore,
) -> None:
    clock = Clock()
    intake = screened_intake(store, None, clock)

    async def visit() -> list[httpx.Response]:
        async with api(intake, intake.screen.tokens) as client:
            fetched = await client.get(paths.FORM_TOKEN)
            assert fetched.headers["cache-control"] == "no-store"
            token = fetched.json()["token"]
            clock.now += 5  # The visitor types.
            with_token = httpx.QueryParams(hero("ana@example.com", **{FORM_TOKEN_FIELD: token}))
            bot = httpx.QueryParams(hero("bot@example.com"))
            return [
                await client.post(
                    paths.form_post("contact"), content=str(body), headers=FORM_TYPE | JSON
                )
                for body in (with_token, bot)
            ]

    answers = run(visit())
    assert [answer.json()["result"] for answer in answers] == ["queued", "queued"]  # Alike.
    by_email = {lead.fields["email"]: lead for lead in store.all()}
    assert by_email["ana@example.com"].status == LeadStatus.QUEUED
    assert by_email["bot@example.com"].spam_reason == SpamReason.NO_TOKEN


def test_the_no_javascript_paths_post_without_a_script_and_their_page_carries_a_token(
    store: LeadStore,
) -> None:
    """The prerendered form posted with JavaScript off (a person's click: the browser's
    navigation headers) cannot carry a token; the backend's own form page carries one."""
    clock = Clock()
    intake = screened_intake(store, None, clock)

    async def visit() -> tuple[httpx.Response, str]:
        async with api(intake, intake.screen.tokens) as client:
            prerendered = await client.post(
                paths.form_post("contact"),
                content=str(httpx.QueryParams(hero("nojs@example.com"))),
                headers=FORM_TYPE | NAVIGATION,
            )
            page = (await client.get(paths.form_post("contact"))).text
            return prerendered, page

    prerendered, page = run(visit())
    assert prerendered.status_code == 303
    assert store.all()[0].status == LeadStatus.QUEUED
    token = page.split(f'name="{FORM_TOKEN_FIELD}" value="')[1].split('"')[0]
    clock.now += 4
    assert intake.screen.tokens.check(token) is None


def test_with_the_time_trap_off_the_endpoint_hands_out_no_token(store: LeadStore) -> None:
    async def fetch() -> httpx.Response:
        async with api(screened_intake(store, None, Clock()), None) as client:
            return await client.get(paths.FORM_TOKEN)

    assert run(fetch()).json() == {"token": None}


# --- The address -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("email", "throwaway"),
    [
        ("bot@mailinator.com", True),
        ("bot@MAILINATOR.com", True),
        ("bot@inbox.mailinator.com", True),  # Under a listed domain.
        ("ana@gmail.com", False),
        ("ana@example.com", False),
        ("ana@ejemplo.españa.es", False),  # An IDN domain is read in its ASCII form.
    ],
)
def test_a_throwaway_mailbox_domain_is_disposable(email: str, throwaway: bool) -> None:
    assert disposable(ascii_domain(email)) is throwaway


class FakeResolver:
    """dnspython's resolver as ``email-validator`` calls it, answering from a table."""

    def __init__(self, answers: dict[str, Exception | list]) -> None:
        self.answers, self.asked = answers, []

    def resolve(self, domain: str, rdtype: str):
        self.asked.append((domain, rdtype))
        answer = self.answers.get(f"{domain} {rdtype}", dns.resolver.NoAnswer())
        if isinstance(answer, Exception):
            raise answer
        return answer


class Mx:
    def __init__(self, preference: int, exchange: str) -> None:
        self.preference, self.exchange = preference, exchange


@pytest.mark.parametrize(
    ("answers", "delivers"),
    [
        ({"example.es MX": [Mx(10, "mx.example.es.")]}, True),
        ({"nope.es MX": dns.resolver.NXDOMAIN()}, False),  # No such domain.
        ({"null.es MX": [Mx(0, ".")]}, False),  # RFC 7505: takes no e-mail.
        ({"slow.es MX": dns.exception.Timeout()}, None),  # DNS slow: not suspect.
        ({"down.es MX": dns.resolver.NoNameservers()}, None),  # DNS down: not suspect.
        ({"odd.es MX": RuntimeError("a resolver's bug")}, None),
    ],
)
def test_the_mx_lookup_takes_only_a_definite_answer_for_a_no(
    monkeypatch: pytest.MonkeyPatch, answers: dict, delivers: bool | None
) -> None:
    resolver = FakeResolver(answers)
    monkeypatch.setattr(dns.resolver, "Resolver", lambda: resolver)
    domain = next(iter(answers)).split()[0]
    assert mx_lookup()(domain) is delivers


def test_the_address_screen_caches_each_domain_and_never_blocks_on_unknowns() -> None:
    asked: list[str] = []
    answers = {"example.es": True, "nope.es": False, "down.es": None}

    def lookup(domain: str) -> bool | None:
        asked.append(domain)
        return answers[domain]

    screen = AddressScreen(lookup)
    for _ in range(3):
        assert run(screen.check("ana@example.es")) is None
        assert run(screen.check("bot@nope.es")) == SpamReason.NO_MX
        assert run(screen.check("eve@down.es")) is None
    assert asked == ["example.es", "nope.es", "down.es"]  # Once each.
    assert run(screen.check("bot@mailinator.com")) == SpamReason.DISPOSABLE
    assert "mailinator.com" not in asked  # Disposable: no lookup spent.
    assert run(AddressScreen().check("bot@nope.es")) is None  # LEADS_CHECK_MX off.


def test_a_disposable_or_undeliverable_address_is_quarantined_after_a_good_token(
    store: LeadStore,
) -> None:
    clock = Clock()
    limiter = RateLimiter(MemoryStorage(), per_ip=50, window_s=600)
    screen = SpamScreen(tokens_at(clock), AddressScreen(lambda domain: domain != "nope.es"))
    intake = LeadIntake(store, make_delivery(store, None), limiter, screen=screen)
    token = screen.tokens.issue()
    clock.now += 10
    for email in ("bot@mailinator.com", "bot@nope.es", "ana@example.es"):
        form = hero(email, **{FORM_TOKEN_FIELD: token})
        assert run(intake.submit(LeadKind.HERO, form, "203.0.113.5")).result is Result.QUEUED
    reasons = {lead.fields["email"]: lead.spam_reason for lead in store.all()}
    assert reasons == {
        "bot@mailinator.com": SpamReason.DISPOSABLE,
        "bot@nope.es": SpamReason.NO_MX,
        "ana@example.es": None,
    }


def test_a_lookup_slower_than_its_share_of_the_deadline_lets_the_lead_through(
    store: LeadStore,
) -> None:
    def hanging(domain: str) -> bool:
        time.sleep(1.0)
        return False

    limiter = RateLimiter(MemoryStorage(), per_ip=5, window_s=600)
    screen = SpamScreen(addresses=AddressScreen(hanging))
    intake = LeadIntake(store, make_delivery(store, None), limiter, 2.0, screen=screen)

    async def timed() -> tuple[Result, float]:
        started = time.monotonic()
        answer = await intake.submit(LeadKind.HERO, hero("ana@example.es"), "1.2.3.4")
        return answer.result, time.monotonic() - started

    result, took = run(timed())
    assert result is Result.QUEUED and took < 0.9  # A quarter of the deadline, then on.
    assert store.all()[0].status == LeadStatus.QUEUED

"""`python -m scripts.spam_bots` against the site API in process (a temporary leads
database, the real intake and its checks): every bot but the patient one is quarantined
for its own reason, those the time trap caught are challenged too (and solve nothing), the
patient one (a person's pace) is delivered unchallenged, and nothing is lost. (The headless
browser needs the built pages: tests/e2e/test_spam_challenge.py plays it.)"""

import asyncio
import datetime as dt

import httpx
from limits.aio.storage import MemoryStorage

from agency_site.leads.intake import LeadIntake
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.spam.address_check import AddressScreen
from agency_site.leads.spam.challenge import Challenges
from agency_site.leads.spam.form_token import FormTokens
from agency_site.leads.spam.screen import SpamScreen
from agency_site.leads.store import LeadStore
from agency_site.site_api import create_app
from scripts.spam_bots import (
    CHALLENGED,
    DELIVERED,
    MISSING,
    QUARANTINED,
    REFUSED,
    play,
    table,
)
from tests.lead_store import make_delivery
from tests.run_async import run

API = "https://api.example.es"


def test_the_bots_are_quarantined_and_the_patient_visitor_delivered(store: LeadStore) -> None:
    now = [1_800_000_000.0]
    tokens = FormTokens(("s" * 43,), dt.timedelta(seconds=3), clock=lambda: now[0])
    challenges = Challenges(("s" * 43,), 20, dt.timedelta(minutes=10))
    screen = SpamScreen(tokens, AddressScreen(), challenges)
    limiter = RateLimiter(MemoryStorage(), per_ip=20, window_s=600)
    intake = LeadIntake(store, make_delivery(store, None), limiter, screen=screen)
    app = create_app(
        lambda: intake,
        api_url=API,
        site_url="https://www.example.es",
        allowed_origins=("https://www.example.es",),
        trusted_hops=0,
        max_body_bytes=32 * 1024,
        get_tokens=lambda: tokens,
    )

    async def sleep(seconds: float) -> None:  # The bots' waits, on the tokens' clock.
        now[0] += seconds
        await asyncio.sleep(0)

    async def bots() -> dict:
        transport = httpx.ASGITransport(app=app, client=("198.51.100.9", 50000))
        async with httpx.AsyncClient(transport=transport, base_url=API) as client:
            return await play(client, store.engine, rounds=2, wait_s=3.5, sleep=sleep)

    tallies = run(bots())
    outcomes = {name: dict(tally.outcomes) for name, tally in tallies.items()}
    reasons = {name: dict(tally.reasons) for name, tally in tallies.items()}
    assert outcomes == {
        "json-poster": {QUARANTINED: 2},
        "fast-filler": {QUARANTINED: 2},
        "every-field": {QUARANTINED: 2},
        "disposable": {QUARANTINED: 2},
        "patient": {DELIVERED: 2},
    }
    assert reasons == {
        "json-poster": {"no_token": 2},
        "fast-filler": {"too_fast": 2},
        "every-field": {"honeypot": 2},
        "disposable": {"disposable": 2},
        "patient": {},
    }
    challenged = {name: tally.challenged for name, tally in tallies.items()}
    assert challenged == {
        "json-poster": 2,
        "fast-filler": 2,
        "every-field": 0,
        "disposable": 0,
        "patient": 0,
    }
    printed = table(tallies)
    assert printed.splitlines()[0].split()[:6] == [
        "BOT",
        QUARANTINED.upper(),
        DELIVERED.upper(),
        REFUSED.upper(),
        MISSING.upper(),
        CHALLENGED.upper(),
    ]
    assert "json-poster" in printed and "no_token 2" in printed
    print(printed)  # The table of docs/leads.md.

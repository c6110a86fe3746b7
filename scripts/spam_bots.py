"""The spam-bot harness: the usual bots against a running site, and what became of them.

    make spam-bots                                     # the site of `make run`, its database
    .venv/bin/python -m scripts.spam_bots --url http://localhost:8000 --rounds 3

Each bot posts the Home form (``/_site/forms/contact``, the HTTP path every bot can take)
as bots do; the answer a bot gets says nothing (a quarantined lead is answered as a real
one), so what became of each submission is read from the leads database the site writes
(``--db``, default ``REFLEX_DB_URL``): **quarantined** (status ``spam``, with its reason),
**delivered** (stored for the agency: queued, sending or sent) or **refused** (answered
with an error, nothing stored); and how many were **challenged** (answered with an ALTCHA
proof of work, ``leads/spam/challenge.py``, which none of these bots solves: the
quarantined lead stays there). One table, a line per bot:

- ``json-poster``: posts the form's fields as a script does, with no token;
- ``fast-filler``: fetches the form's token, then posts at once;
- ``every-field``: waits like a person, but fills every field, the hidden one too;
- ``disposable``: waits like a person, with a throwaway-mailbox address;
- ``patient``: fetches the token when it "focuses" the form, waits the least time a
  person takes (``LEADS_SPAM_MIN_SECONDS``) and posts: delivered, as a real visitor is;
- ``headless-browser`` (with ``--site``, the pages' URL): a real Chromium (Playwright, the
  browser tests' ``CHROMIUM_PATH``) opens Home, fills the visible field, waits 5 s and
  sends, as a person does: delivered, never challenged. The time trap cannot stop it;
  the address checks and the rate limit can.

The addresses are ``spam-bot+<run>-<bot>-<n>@example.com`` (the disposable one at
mailinator.com): erase them with ``leads erase``. Every submission counts toward the
rate limit (``LEADS_RATE_LIMIT_PER_IP``, 20 per 10 minutes by default).
"""

import argparse
import asyncio
import sys
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import sqlalchemy as sa
from sqlmodel import Session, col, select

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agency_site import paths  # noqa: E402
from agency_site.forms.declarations import FORM_TOKEN_FIELD, HONEYPOT_FIELD  # noqa: E402
from agency_site.forms.kinds import LeadKind  # noqa: E402
from agency_site.leads.models import Lead, email_key  # noqa: E402
from agency_site.leads.statuses import LeadStatus  # noqa: E402

KIND = LeadKind.HERO
QUARANTINED, DELIVERED, REFUSED, MISSING = "quarantined", "delivered", "refused", "missing"
OUTCOMES = (QUARANTINED, DELIVERED, REFUSED, MISSING)
CHALLENGED = "challenged"  # Answered with a proof of work to solve (besides its outcome).
HEADLESS = "headless-browser"
HEADLESS_WAIT_S = 5.0
# What a person's form carries besides the address (the form's page's language).
LANGUAGE = {"language": "es"}

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Bot:
    """One kind of bot: whether it fetches the token, how long it waits after it, what it fills."""

    name: str
    fetches_token: bool
    waits: bool  # Waits LEADS_SPAM_MIN_SECONDS (and a little) after the token.
    domain: str = "example.com"
    fills_honeypot: bool = False


BOTS = (
    Bot("json-poster", fetches_token=False, waits=False),
    Bot("fast-filler", fetches_token=True, waits=False),
    Bot("every-field", fetches_token=True, waits=True, fills_honeypot=True),
    Bot("disposable", fetches_token=True, waits=True, domain="mailinator.com"),
    Bot("patient", fetches_token=True, waits=True),
)


def address(run_id: str, bot: Bot, n: int) -> str:
    """The address of the ``n``-th submission of ``bot`` in this run."""
    return f"spam-bot+{run_id}-{bot.name}-{n}@{bot.domain}"


@dataclass
class Tally:
    """What became of one bot's submissions."""

    outcomes: Counter = field(default_factory=Counter)
    reasons: Counter = field(default_factory=Counter)
    challenged: int = 0


async def submit(
    client: httpx.AsyncClient, bot: Bot, email: str, wait_s: float, sleep: Sleep
) -> str:
    """One submission of ``bot``: the site's answer (``sent``, ``queued``, ``challenge``...;
    what became of it is read from the database)."""
    form = {"email": email, HONEYPOT_FIELD: "", **LANGUAGE}
    if bot.fetches_token:
        answer = await client.get(paths.FORM_TOKEN, headers={"Accept": "application/json"})
        form[FORM_TOKEN_FIELD] = answer.json().get("token") or ""
    if bot.waits:
        await sleep(wait_s)
    if bot.fills_honeypot:
        form[HONEYPOT_FIELD] = "https://cheap-pills.example"
    answer = await client.post(
        paths.form_post(KIND),
        data=form,
        headers={"Accept": "application/json"},
    )
    return str(answer.json().get("result", ""))


def stored_answer(answer: str) -> bool:
    """Whether the site's answer says the submission was stored (a challenge: only when
    its lead waits in quarantine, which the database tells)."""
    return answer in ("sent", "queued")


def headless_submit(site_url: str, email: str, wait_s: float = HEADLESS_WAIT_S) -> str:
    """A headless Chromium sends Home's form as a person does: opens the page, fills the
    visible field, waits ``wait_s``, clicks send; the result the form shows."""
    from playwright.sync_api import sync_playwright

    from agency_site.content.form_words import COPY
    from scripts.production_site import CHROMIUM_ARGS, chromium_path

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(site_url.rstrip("/") + paths.HOME)
            page.locator("html[data-hydrated='true']").wait_for(state="attached", timeout=30_000)
            form = page.locator("#hero-capture-form")
            form.get_by_label(COPY.hero.fields["email"].label).fill(email)
            page.wait_for_timeout(wait_s * 1000)
            form.locator("button[type=submit]").click()
            # Sent, or stored with the e-mail still to go (a site with no EmailJS), or asked
            # for a proof of work.
            sent, queued = (
                form.get_by_text(COPY.hero.success),
                form.get_by_text(COPY.notices.queued),
            )
            widget = form.locator("altcha-widget")
            sent.or_(queued).or_(widget).first.wait_for(timeout=30_000)
            if widget.count():
                return "challenge"
            return "queued" if queued.count() else "sent"
        finally:
            browser.close()


def fate(engine: sa.Engine, email: str, stored: bool) -> tuple[str, str]:
    """What became of the submission of ``email``: its outcome, and its spam reason."""
    query = select(Lead).where(col(Lead.email_norm) == email_key(email))
    with Session(engine) as session:
        lead = session.exec(query).first()
    if lead is None:
        return (MISSING if stored else REFUSED), ""
    if lead.status == LeadStatus.SPAM:
        return QUARANTINED, lead.spam_reason or ""
    return DELIVERED, ""


async def play(
    client: httpx.AsyncClient,
    engine: sa.Engine,
    *,
    rounds: int = 1,
    wait_s: float = 3.5,
    sleep: Sleep = asyncio.sleep,
    run_id: str | None = None,
    site_url: str | None = None,
) -> dict[str, Tally]:
    """Every bot ``rounds`` times against the site behind ``client`` (and, with
    ``site_url``, the headless browser against its pages); each one's tally."""
    run_id = run_id or uuid.uuid4().hex[:8]
    tallies = {bot.name: Tally() for bot in BOTS}
    if site_url:
        tallies[HEADLESS] = Tally()
    for n in range(rounds):
        for bot in BOTS:
            email = address(run_id, bot, n)
            try:
                answer = await submit(client, bot, email, wait_s, sleep)
            except (httpx.HTTPError, ValueError):
                answer = ""
            count(tallies[bot.name], engine, email, answer)
        if site_url:
            email = f"spam-bot+{run_id}-{HEADLESS}-{n}@example.com"
            answer = await asyncio.to_thread(headless_submit, site_url, email)
            count(tallies[HEADLESS], engine, email, answer)
    return tallies


def count(tally: Tally, engine: sa.Engine, email: str, answer: str) -> None:
    """Add what became of the submission of ``email`` (answered ``answer``) to ``tally``."""
    outcome, reason = fate(engine, email, stored_answer(answer))
    tally.outcomes[outcome] += 1
    tally.challenged += answer == "challenge"
    if reason:
        tally.reasons[reason] += 1


def table(tallies: dict[str, Tally]) -> str:
    """The tallies as a table: a line per bot, a column per outcome and how many were
    challenged, then the reasons."""
    columns = (*OUTCOMES, CHALLENGED)
    lines = [f"{'BOT':16} " + " ".join(f"{c.upper():>11}" for c in columns) + "  REASONS"]
    for name, tally in tallies.items():
        counts = " ".join(f"{tally.outcomes[o]:>11}" for o in OUTCOMES)
        counts += f" {tally.challenged:>11}"
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(tally.reasons.items())) or "-"
        lines.append(f"{name:16} {counts}  {reasons}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from agency_site.leads.runtime import database_engine
    from agency_site.reflex_ext.internals import get_config
    from agency_site.settings import get_settings

    parser = argparse.ArgumentParser(prog="python -m scripts.spam_bots", description=__doc__)
    parser.add_argument(
        "--url", default=get_config().api_url, help="the site's backend (REFLEX_API_URL)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="submissions per bot")
    parser.add_argument(
        "--site",
        help="the pages' URL (REFLEX_DEPLOY_URL): adds the headless browser (Playwright, "
        "Chromium: CHROMIUM_PATH)",
        default=None,
    )
    parser.add_argument(
        "--db", help="the leads database the site writes (default: REFLEX_DB_URL)", default=None
    )
    args = parser.parse_args(argv)
    engine = sa.create_engine(args.db) if args.db else database_engine()
    wait_s = get_settings().leads.spam_min_seconds + 0.5

    async def run() -> dict[str, Tally]:
        async with httpx.AsyncClient(base_url=args.url.rstrip("/"), timeout=30) as client:
            return await play(client, engine, rounds=args.rounds, wait_s=wait_s, site_url=args.site)

    tallies = asyncio.run(run())
    print(table(tallies))
    lost = sum(tally.outcomes[MISSING] for tally in tallies.values())
    people = [tallies[name] for name in ("patient", HEADLESS) if name in tallies]
    delivered = all(t.outcomes[DELIVERED] == args.rounds and not t.challenged for t in people)
    return 1 if lost or not delivered else 0


if __name__ == "__main__":
    sys.exit(main())

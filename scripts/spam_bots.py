"""The spam-bot harness: the usual bots against a running site, and what became of them.

    make spam-bots                                     # the site of `make run`, its database
    .venv/bin/python -m scripts.spam_bots --url http://localhost:8000 --rounds 3

Each bot posts the Home form (``/_site/forms/contact``, the HTTP path every bot can take)
as bots do; the answer a bot gets says nothing (a quarantined lead is answered as a real
one), so what became of each submission is read from the leads database the site writes
(``--db``, default ``REFLEX_DB_URL``): **quarantined** (status ``spam``, with its reason),
**delivered** (stored for the agency: queued, sending or sent) or **refused** (answered
with an error, nothing stored). One table, a line per bot:

- ``json-poster``: posts the form's fields as a script does, with no token;
- ``fast-filler``: fetches the form's token, then posts at once;
- ``every-field``: waits like a person, but fills every field, the hidden one too;
- ``disposable``: waits like a person, with a throwaway-mailbox address;
- ``patient``: fetches the token when it "focuses" the form, waits the least time a
  person takes (``LEADS_SPAM_MIN_SECONDS``) and posts, as a headless browser would:
  delivered, as a real visitor is.

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
from agency_site.leads.kinds import LeadStatus  # noqa: E402
from agency_site.leads.models import Lead, email_key  # noqa: E402

KIND = LeadKind.HERO
QUARANTINED, DELIVERED, REFUSED, MISSING = "quarantined", "delivered", "refused", "missing"
OUTCOMES = (QUARANTINED, DELIVERED, REFUSED, MISSING)
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


async def submit(
    client: httpx.AsyncClient, bot: Bot, email: str, wait_s: float, sleep: Sleep
) -> bool:
    """One submission of ``bot``; whether the site stored it (its answer says no more)."""
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
    return answer.status_code == 200 and answer.json().get("result") in ("sent", "queued")


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
) -> dict[str, Tally]:
    """Every bot ``rounds`` times against the site behind ``client``; each one's tally."""
    run_id = run_id or uuid.uuid4().hex[:8]
    tallies = {bot.name: Tally() for bot in BOTS}
    for n in range(rounds):
        for bot in BOTS:
            email = address(run_id, bot, n)
            try:
                stored = await submit(client, bot, email, wait_s, sleep)
            except (httpx.HTTPError, ValueError):
                stored = False
            outcome, reason = fate(engine, email, stored)
            tallies[bot.name].outcomes[outcome] += 1
            if reason:
                tallies[bot.name].reasons[reason] += 1
    return tallies


def table(tallies: dict[str, Tally]) -> str:
    """The tallies as a table: a line per bot, a column per outcome, then the reasons."""
    lines = [f"{'BOT':12} " + " ".join(f"{o.upper():>11}" for o in OUTCOMES) + "  REASONS"]
    for name, tally in tallies.items():
        counts = " ".join(f"{tally.outcomes[o]:>11}" for o in OUTCOMES)
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(tally.reasons.items())) or "-"
        lines.append(f"{name:12} {counts}  {reasons}")
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
        "--db", help="the leads database the site writes (default: REFLEX_DB_URL)", default=None
    )
    args = parser.parse_args(argv)
    engine = sa.create_engine(args.db) if args.db else database_engine()
    wait_s = get_settings().leads.spam_min_seconds + 0.5

    async def run() -> dict[str, Tally]:
        async with httpx.AsyncClient(base_url=args.url.rstrip("/"), timeout=30) as client:
            return await play(client, engine, rounds=args.rounds, wait_s=wait_s)

    tallies = asyncio.run(run())
    print(table(tallies))
    lost = sum(tally.outcomes[MISSING] for tally in tallies.values())
    patient = tallies["patient"].outcomes
    return 1 if lost or patient[DELIVERED] != args.rounds else 0


if __name__ == "__main__":
    sys.exit(main())

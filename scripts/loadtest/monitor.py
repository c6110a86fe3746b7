"""The monitor run (``--fault monitor-held-lead``): an owner's monitor beside the visitors.

A lead is held (as after EmailJS refused the configuration: its canary due only
later), so ``/_site/leads/health`` answers 503; nginx (the stack's, or one started from the
configuration ``make stack`` generated and every visitor of the round goes through
it, each from its own loopback address (nginx limits connections and backend
requests per address), while a poller GETs ``/_site/leads/health`` through nginx every
second. nginx must pass the 503 on and never take a backend out for it: the
visitors see 0 errors and every poll answers 503.
"""

import asyncio
import contextlib
import datetime as dt
from collections import Counter

import aiohttp

from agency_site.paths import LEADS_HEALTH
from scripts.loadtest import web_servers
from scripts.loadtest.topology import StackInfo

MONITOR_FAULT = "monitor-held-lead"
POLL_EVERY_S = 1.0
POLLER_ADDRESS = "127.0.9.1"
HELD_EMAIL = "monitor-held@example.com"


def hold_lead(db_url: str) -> int:
    """A held lead (as after a refusal of the configuration), its canary postponed."""
    import sqlalchemy as sa
    from sqlmodel import Session

    from agency_site.leads.models import Lead, LeadStatus
    from agency_site.leads.monitor import CANARY
    from agency_site.leads.store import LeadStore

    engine = sa.create_engine(db_url)
    with Session(engine) as session:
        lead = Lead(kind="contact", fields={"email": HELD_EMAIL}, status=LeadStatus.HELD)
        session.add(lead)
        session.commit()
        lead_id = lead.id
    LeadStore(engine).postpone_job(CANARY, dt.timedelta(minutes=15))
    engine.dispose()
    return lead_id


def release_lead(db_url: str, lead_id: int) -> None:
    """Remove the held lead again; the canary due at once."""
    import sqlalchemy as sa

    from agency_site.leads.monitor import CANARY
    from agency_site.leads.store import LeadStore

    engine = sa.create_engine(db_url)
    with engine.begin() as connection:
        connection.execute(sa.text("DELETE FROM leads WHERE id = :id"), {"id": lead_id})
    LeadStore(engine).postpone_job(CANARY, dt.timedelta(0))
    engine.dispose()


class Monitor:
    """nginx in front of the stack's backends, a held lead and the poller."""

    def __init__(self, stack: StackInfo, db_url: str) -> None:
        self.stack, self.db_url = stack, db_url
        self.statuses: Counter = Counter()
        self.nginx: web_servers.WebServer | None = None
        self.lead_id: int | None = None
        self.stop = asyncio.Event()
        self.task: asyncio.Task | None = None

    async def start(self, note) -> str:
        """Hold a lead, start nginx and the poller; the URL the visitors use."""
        self.lead_id = await asyncio.to_thread(hold_lead, self.db_url)
        note(f"lead {self.lead_id} held (canary postponed): {LEADS_HEALTH} answers 503")
        self.nginx = await asyncio.to_thread(web_servers.start, "nginx", self.stack)
        url = self.nginx.url
        note(
            f"nginx on {url} (pid {self.nginx.pids()[0]}); a monitor polls {LEADS_HEALTH} every 1 s"
        )
        self.task = asyncio.create_task(self.poll(url))
        return url

    async def poll(self, url: str) -> None:
        """GET the leads' health every second until stopped; count the answers."""
        connector = aiohttp.TCPConnector(local_addr=(POLLER_ADDRESS, 0))
        timeout = aiohttp.ClientTimeout(total=10)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            while not self.stop.is_set():
                try:
                    async with session.get(url + LEADS_HEALTH) as response:
                        await response.read()
                        self.statuses[str(response.status)] += 1
                except (aiohttp.ClientError, OSError, TimeoutError) as error:
                    self.statuses[type(error).__name__] += 1
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), POLL_EVERY_S)

    async def finish(self, note) -> None:
        """Stop the poller and nginx (by pid), release the lead, restore the configuration."""
        self.stop.set()
        if self.task is not None:
            await self.task
        if self.nginx is not None:
            await asyncio.to_thread(web_servers.stop, self.nginx)
        if self.lead_id is not None:
            await asyncio.to_thread(release_lead, self.db_url, self.lead_id)
        note(f"monitor polls: {dict(self.statuses)}; the held lead removed")

    def misses(self) -> list[str]:
        """Every poll must have answered 503 (the lead held), none failed."""
        other = {k: n for k, n in self.statuses.items() if k != "503"}
        if not self.statuses:
            return ["the monitor made no poll"]
        return [f"monitor polls not answered 503: {other}"] if other else []

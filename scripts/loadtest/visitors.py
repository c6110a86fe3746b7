"""One round of the load: readers and bookers as tabs on the site, plus the RSS sampler."""

import asyncio
import contextlib
import datetime as dt
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

import aiohttp

from agency_site.content.forms import AGENCY_TIME_ZONE, TIME_SLOTS
from scripts.loadtest.protocol import BuildInfo, Counters, Tab, VisitorError

SCHEDULE = "/schedule"


def booking_date(now: dt.datetime | None = None) -> str:
    """The next weekday at least two days ahead, in the agency's time zone (ISO)."""
    day = (now or dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE))).date() + dt.timedelta(days=2)
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day.isoformat()


def booker_email(run_id: str, n: int) -> str:
    """The distinct address of booker ``n`` of run ``run_id``."""
    return f"loadtest+{run_id}-{n}@example.com"


def booking_fields(run_id: str, n: int, date: str) -> dict[str, str]:
    """A valid booking of booker ``n``."""
    return {
        "name": f"Visitante de carga {n}",
        "email": booker_email(run_id, n),
        "phone": "+34 600 000 000",
        "date": date,
        "time": TIME_SLOTS[n % len(TIME_SLOTS)],
        "message": f"Reserva de la prueba de carga {run_id}, visitante {n}.",
        "website": "",
    }


def percentiles(values: list[float]) -> dict[str, float | None]:
    """p50/p95/p99/max in milliseconds (None without values)."""
    if not values:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "max": None}
    ms = sorted(v * 1000 for v in values)
    cuts = [ms[0]] * 99 if len(ms) == 1 else statistics.quantiles(ms, n=100, method="inclusive")
    return {"n": len(ms), "p50": cuts[49], "p95": cuts[94], "p99": cuts[98], "max": ms[-1]}


@dataclass
class RoundPlan:
    """What one round does."""

    url: str
    readers: int
    bookings: int
    ramp_s: float  # readers connect spread over this
    over_s: float  # bookings spread over this
    hold_s: float  # everyone stays connected this long after the last action
    navs: int  # client-side navigations per reader
    pages: list[str]
    run_id: str
    timeout_s: float = 30.0


@dataclass
class RoundStats:
    """What the visitors saw in one round."""

    connected: int = 0
    peak_connected: int = 0
    connect_failures: int = 0
    visitor_errors: dict[str, int] = field(default_factory=dict)
    hydrate_s: list[float] = field(default_factory=list)
    navigate_s: list[float] = field(default_factory=list)
    booking_s: list[float] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)
    outcome_by_email: dict[str, str] = field(default_factory=dict)
    submitted: list[str] = field(default_factory=list)  # e-mails whose submit was sent
    active_s: float = 0.0

    def error(self, what: str) -> None:
        """Count an error by its kind."""
        kind = what.split(":")[0]
        self.visitor_errors[kind] = self.visitor_errors.get(kind, 0) + 1


class RssSampler:
    """Peak resident memory of processes and all their descendants (psutil).

    ``pid`` is one process, or a function giving the processes now (the stack's
    backends, whose pids change when one is restarted).
    """

    def __init__(self, pid: int | Callable[[], list[int]] | None, every_s: float = 0.25) -> None:
        self.pid = pid
        self.every_s = every_s
        self.peak = 0
        self.samples: list[tuple[float, int]] = []

    def _sum(self, measure) -> float | None:
        """``measure(process)`` summed over the tree (None without a pid or a process)."""
        if self.pid is None:
            return None
        import psutil

        procs = []
        for pid in self.pid() if callable(self.pid) else [self.pid]:
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(pid)
                procs += [root, *root.children(recursive=True)]
        if not procs:
            return None
        total = 0
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                total += measure(proc)
        return total

    def sample(self) -> int | None:
        """The summed RSS of the tree now, in bytes."""
        return self._sum(lambda proc: proc.memory_info().rss)

    def cpu_seconds(self) -> float | None:
        """User + system CPU time the tree has used so far."""
        return self._sum(lambda proc: sum(proc.cpu_times()[:2]))

    async def run(self, stop: asyncio.Event) -> None:
        """Sample until ``stop`` is set."""
        start = time.monotonic()
        while not stop.is_set():
            rss = await asyncio.to_thread(self.sample)
            if rss is not None:
                self.peak = max(self.peak, rss)
                self.samples.append((time.monotonic() - start, rss))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.every_s)


async def run_round(
    plan: RoundPlan,
    build: BuildInfo,
    counters: Counters,
    at_peak: Callable[[int], Awaitable[None]] | None = None,
) -> RoundStats:
    """Drive the round's readers and bookers; return what they saw.

    ``at_peak(connected)`` runs while every visitor is still connected, before they leave.
    """
    stats = RoundStats()
    rng = random.Random(plan.run_id)
    date = booking_date()
    tabs: list[Tab] = []
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    session = aiohttp.ClientSession(connector=connector)

    def new_tab() -> Tab:
        tab = Tab(plan.url, build, session, counters, timeout=plan.timeout_s)
        tabs.append(tab)
        return tab

    async def opened(tab: Tab, path: str) -> bool:
        try:
            stats.hydrate_s.append(await tab.open(path))
        except VisitorError as error:
            if str(error).startswith("connect failed"):
                stats.connect_failures += 1
            else:
                stats.error(f"hydrate: {error}")
            await tab.close()
            return False
        stats.connected += 1
        stats.peak_connected = max(stats.peak_connected, stats.connected)
        return True

    async def reader(i: int) -> None:
        await asyncio.sleep(plan.ramp_s * i / max(plan.readers, 1))
        tab = new_tab()
        pages = [p for p in plan.pages if p != SCHEDULE] or plan.pages
        if not await opened(tab, rng.choice(pages)):
            return
        for _ in range(plan.navs):
            await asyncio.sleep(rng.uniform(0.5, 2.0))
            try:
                stats.navigate_s.append(await tab.navigate(rng.choice(plan.pages)))
            except VisitorError as error:
                stats.error(f"navigate: {error}")
                break

    async def booker(n: int) -> None:
        await asyncio.sleep(plan.over_s * n / max(plan.bookings, 1))
        tab = new_tab()
        if not await opened(tab, SCHEDULE):
            return
        fields = booking_fields(plan.run_id, n, date)
        stats.submitted.append(fields["email"])
        try:
            outcome, elapsed = await tab.book(fields)
        except VisitorError as error:
            stats.error(f"booking: {error}")
            outcome = "no answer"
        else:
            stats.booking_s.append(elapsed)
        stats.outcomes[outcome] = stats.outcomes.get(outcome, 0) + 1
        stats.outcome_by_email[fields["email"]] = outcome

    started = time.monotonic()
    try:
        await asyncio.gather(
            *(reader(i) for i in range(plan.readers)),
            *(booker(n) for n in range(plan.bookings)),
        )
        await asyncio.sleep(plan.hold_s)
        stats.active_s = time.monotonic() - started
        if at_peak is not None:
            await at_peak(stats.connected)
    finally:
        await asyncio.gather(*(tab.close() for tab in tabs), return_exceptions=True)
        stats.connected = 0
        await session.close()
    return stats

"""One round of the load: readers and bookers on the site, plus the RSS sampler.

A reader loads a page over HTTP and follows client-side links (``readers.py``: no
websocket); with h2load the bulk of them are h2load clients (``static_load.py``) and
a few Python readers time whole page loads. A booker loads /schedule the same way,
then connects the websocket and books (``protocol.py``). ``socket_readers`` is the
worst case of a site whose every tab opens the socket: readers connect, hydrate and
navigate over it and stay connected.
"""

import asyncio
import contextlib
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from scripts.loadtest import static_load
from scripts.loadtest.bookers import (
    HTTP,
    SLOTS,
    book_in_browser,
    booking_fields,
    post_booking,
)
from scripts.loadtest.protocol import BuildInfo, Counters, Tab, VisitorError
from scripts.loadtest.readers import ACCEPT_ENCODING, ReaderModel
from scripts.loadtest.static_load import StaticResult

SCHEDULE = "/schedule"
BROWSER_CONNECTIONS = 6
ERROR_EXAMPLES = 3  # messages kept per kind of error
H2LOAD_VISITS = 4  # distinct visits (Home and 3 other landings) the h2load readers share
# A browser's headers; its user agent a browser's too, so the owner's report counts a reader
# as a visit (aiohttp's own is a tool's: agency_site/report/visitors.py).
BROWSER_HEADERS = {
    "Accept-Encoding": ACCEPT_ENCODING,
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64; agency-loadtest reader) Firefox/128.0",
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
    ramp_s: float  # readers arrive spread over this
    over_s: float  # bookings spread over this
    hold_s: float  # tabs with a websocket stay connected this long after the last action
    navs: int  # client-side navigations per reader
    pages: list[str]
    run_id: str
    model: ReaderModel
    timeout_s: float = 30.0
    socket_readers: bool = False  # the worst case: every reader opens the websocket
    probes: int = 0  # with h2load: this many of the readers are Python readers that time pages
    workdir: Path | None = None  # h2load's scripts and logs (h2load drives the rest)
    http_share: float = 0.0  # this share of the bookers posts the no-JavaScript form
    origin: str = ""  # the site's origin, the pages' Origin header (default: ``url``'s)
    distinct_addresses: bool = False  # each visitor from its own 127.x address
    utm: str = ""  # the readers' landing query (``--utm``): utm_source=...&utm_medium=...

    def books_over_http(self, n: int) -> bool:
        """Whether booker ``n`` posts the form over HTTP (the share spread evenly)."""
        return int((n + 1) * self.http_share) > int(n * self.http_share)

    def address(self, n: int) -> str | None:
        """Visitor ``n``'s own loopback address (per-address proxy limits), or None."""
        if not self.distinct_addresses:
            return None
        return f"127.0.{n // 250 + 10}.{n % 250 + 1}"

    @staticmethod
    def visit_of(pages: list[str], navs: int, rng: random.Random, landing: str = "") -> list[str]:
        """A reader's route paths: where it lands (a page other than the form's), then
        ``navs`` client-side navigations to any page."""
        landing = landing or rng.choice([p for p in pages if p != SCHEDULE] or pages)
        return [landing, *(rng.choice(pages) for _ in range(navs))]

    def visit(self, rng: random.Random) -> list[str]:
        """A reader's route paths, as ``visit_of``."""
        return self.visit_of(self.pages, self.navs, rng)


@dataclass
class RoundStats:
    """What the visitors saw in one round."""

    connected: int = 0
    peak_connected: int = 0
    connect_failures: int = 0
    visitor_errors: dict[str, int] = field(default_factory=dict)
    error_examples: dict[str, list[str]] = field(default_factory=dict)  # the first few of a kind
    page_load_s: list[float] = field(default_factory=list)  # readers' HTML + its files
    nav_fetch_s: list[float] = field(default_factory=list)  # a navigation's new modules
    booker_page_s: list[float] = field(default_factory=list)  # /schedule's HTML + files
    http_requests: int = 0  # by the Python visitors
    hydrate_s: list[float] = field(default_factory=list)
    navigate_s: list[float] = field(default_factory=list)
    booking_s: list[float] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)
    outcome_by_email: dict[str, str] = field(default_factory=dict)
    paths: dict[str, int] = field(default_factory=dict)  # socket, http, socket→http
    fallback_reasons: dict[str, int] = field(default_factory=dict)  # why socket→http
    http_retries: int = 0  # HTTP posts sent again after no JSON answer (same key)
    submitted: list[str] = field(default_factory=list)  # e-mails whose submit was sent
    active_s: float = 0.0
    static: StaticResult | None = None  # the h2load readers

    def error(self, what: str) -> None:
        """Count an error by its kind."""
        kind = what.split(":")[0]
        self.visitor_errors[kind] = self.visitor_errors.get(kind, 0) + 1
        examples = self.error_examples.setdefault(kind, [])
        if len(examples) < ERROR_EXAMPLES:
            examples.append(what[:200])

    def reader_errors(self) -> int:
        """Errors of readers: Python ones and h2load's failed or non-2xx requests."""
        mine = sum(n for kind, n in self.visitor_errors.items() if kind.startswith("reader"))
        return mine + (self.static.failed + self.static.not_2xx if self.static else 0)


async def fetch_files(
    session: aiohttp.ClientSession, url: str, files: list[str], stats: RoundStats
) -> float:
    """GET ``files`` in parallel (the session's connector caps it, like a browser's 6 per
    host); seconds until the last arrived. VisitorError on a failure or a non-200."""

    async def get(path: str) -> None:
        try:
            async with session.get(url + path, headers=BROWSER_HEADERS) as response:
                await response.read()
                stats.http_requests += 1
                if response.status != 200:
                    raise VisitorError(f"HTTP {response.status} for {path}")
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            raise VisitorError(f"fetch failed: {path}: {type(error).__name__}") from error

    started = time.perf_counter()
    await asyncio.gather(*(get(path) for path in files))
    return time.perf_counter() - started


async def load_page(
    session: aiohttp.ClientSession, url: str, files: list[str], stats: RoundStats
) -> float:
    """A full page load: the HTML (``files[0]``), then the files it names; seconds."""
    html_s = await fetch_files(session, url, files[:1], stats)
    return html_s + await fetch_files(session, url, files[1:], stats)


def browser_session(timeout_s: float, address: str | None = None) -> aiohttp.ClientSession:
    """One visitor's HTTP client: its own connections, at most 6 (Chromium's per host),
    from ``address`` when given."""
    local = (address, 0) if address else None
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=BROWSER_CONNECTIONS, local_addr=local),
        auto_decompress=False,
        timeout=aiohttp.ClientTimeout(total=timeout_s),
    )


class RssSampler:
    """Peak resident memory and open files of processes and all their descendants (psutil).

    ``pid`` is one process, or a function giving the processes now (the stack's
    backends, whose pids change when one is restarted).
    """

    def __init__(self, pid: int | Callable[[], list[int]] | None, every_s: float = 0.25) -> None:
        self.pid = pid
        self.every_s = every_s
        self.peak = 0
        self.fds_peak = 0
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

    def fds(self) -> int | None:
        """Open file descriptors of the tree now."""
        return self._sum(lambda proc: proc.num_fds())

    async def run(self, stop: asyncio.Event) -> None:
        """Sample until ``stop`` is set."""
        start = time.monotonic()
        while not stop.is_set():
            rss, fds = await asyncio.to_thread(lambda: (self.sample(), self.fds()))
            if rss is not None:
                self.peak = max(self.peak, rss)
                self.samples.append((time.monotonic() - start, rss))
            self.fds_peak = max(self.fds_peak, fds or 0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.every_s)


class Round:
    """The visitors of one round and what they saw."""

    def __init__(self, plan: RoundPlan, build: BuildInfo, counters: Counters) -> None:
        self.plan, self.build, self.counters = plan, build, counters
        self.stats = RoundStats()
        self.rng = random.Random(plan.run_id)
        self.tabs: list[Tab] = []
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

    async def opened(self, path: str, role: str) -> Tab | None:
        """A new tab whose websocket is connected and hydrated on ``path`` (or None)."""
        tab = Tab(self.plan.url, self.build, self.session, self.counters, self.plan.timeout_s)
        self.tabs.append(tab)
        try:
            self.stats.hydrate_s.append(await tab.open(path))
        except VisitorError as error:
            if str(error).startswith("connect failed"):
                self.stats.connect_failures += 1
            self.stats.error(f"{role} hydrate: {error}")
            await tab.close()
            return None
        self.stats.connected += 1
        self.stats.peak_connected = max(self.stats.peak_connected, self.stats.connected)
        return tab

    async def reader(self, i: int) -> None:
        """A reader over HTTP: a full page load, then client-side navigations; no socket."""
        plan, stats = self.plan, self.stats
        await asyncio.sleep(plan.ramp_s * i / max(plan.readers, 1))
        steps = plan.model.visit(plan.visit(self.rng))
        landing, *files = steps[0]
        first = [f"{landing}?{plan.utm}" if plan.utm else landing, *files]
        async with browser_session(plan.timeout_s, plan.address(i)) as session:
            try:
                stats.page_load_s.append(await load_page(session, plan.url, first, stats))
            except VisitorError as error:
                stats.error(f"reader page: {error}")
                return
            for files in steps[1:]:
                await asyncio.sleep(self.rng.uniform(0.5, 2.0))
                try:
                    stats.nav_fetch_s.append(await fetch_files(session, plan.url, files, stats))
                except VisitorError as error:
                    stats.error(f"reader navigation: {error}")
                    return

    async def socket_reader(self, i: int) -> None:
        """The worst case: a reader whose tab connects, hydrates and navigates over the socket."""
        await asyncio.sleep(self.plan.ramp_s * i / max(self.plan.readers, 1))
        paths = self.plan.visit(self.rng)
        tab = await self.opened(paths[0], "reader")
        for path in paths[1:] if tab else []:
            await asyncio.sleep(self.rng.uniform(0.5, 2.0))
            try:
                self.stats.navigate_s.append(await tab.navigate(path))
            except VisitorError as error:
                self.stats.error(f"reader navigate: {error}")
                break

    async def booker(self, n: int) -> None:
        """Loads /schedule over HTTP, then books: over the websocket (connected as on a
        form's focus) with the page's HTTP fallback, or posting the no-JavaScript form."""
        plan, stats = self.plan, self.stats
        await asyncio.sleep(plan.over_s * n / max(plan.bookings, 1))
        session = browser_session(plan.timeout_s, plan.address(plan.readers + n))
        async with session:
            try:
                files = plan.model.page(SCHEDULE)
                stats.booker_page_s.append(await load_page(session, plan.url, files, stats))
            except VisitorError as error:
                stats.error(f"booker page: {error}")
                return
            fields = booking_fields(plan.run_id, n, SLOTS.take())
            stats.submitted.append(fields["email"])
            try:
                outcome, path = await self.book(session, fields, plan.books_over_http(n))
            except VisitorError as error:
                stats.error(f"booking: {error}")
                outcome, path = "no answer", "none"
        stats.outcomes[outcome] = stats.outcomes.get(outcome, 0) + 1
        stats.outcome_by_email[fields["email"]] = outcome
        stats.paths[path] = stats.paths.get(path, 0) + 1

    async def book(
        self, session: aiohttp.ClientSession, fields: dict[str, str], over_http: bool
    ) -> tuple[str, str]:
        """One booking, timed: (the outcome shown, the path it took)."""
        plan, stats = self.plan, self.stats
        origin = plan.origin or plan.url
        if over_http:
            started = time.perf_counter()
            outcome, tries = await post_booking(session, plan.url, origin, fields)
            stats.booking_s.append(time.perf_counter() - started)
            stats.http_retries += tries - 1
            return outcome, HTTP
        # The websocket from the visitor's own address when it has one, else shared.
        own = session if plan.distinct_addresses else self.session
        tab = Tab(plan.url, self.build, own, self.counters, plan.timeout_s)
        self.tabs.append(tab)
        booked = await book_in_browser(tab, session, origin, fields)
        stats.booking_s.append(booked.elapsed_s)
        stats.http_retries += max(booked.tries - 1, 0)
        if booked.hydrate_s is not None:
            stats.hydrate_s.append(booked.hydrate_s)
        if booked.why:
            reason = booked.why.split(":")[0].split(" within")[0]
            stats.fallback_reasons[reason] = stats.fallback_reasons.get(reason, 0) + 1
        else:
            stats.connected += 1
            stats.peak_connected = max(stats.peak_connected, stats.connected)
        if own is session:  # its session closes with the booker
            await tab.close()
        return booked.outcome, booked.path

    def visitors(self) -> list[Awaitable[None]]:
        """Every visitor of the round (the h2load readers apart)."""
        plan = self.plan
        if plan.socket_readers:
            readers = [self.socket_reader(i) for i in range(plan.readers)]
        else:
            # With h2load, the probes are spread over the ramp like the readers they sample.
            python_readers = plan.probes if plan.workdir else plan.readers
            spread = plan.readers / max(python_readers, 1)
            readers = [self.reader(round(i * spread)) for i in range(python_readers)]
        return [*readers, *(self.booker(n) for n in range(plan.bookings))]

    def static_readers(self) -> list[Awaitable[StaticResult]]:
        """The h2load readers (none without a workdir for them)."""
        plan = self.plan
        count = plan.readers - plan.probes
        if plan.socket_readers or plan.workdir is None or count <= 0:
            return []
        rng = random.Random(f"{plan.run_id}-h2load")
        others = [p for p in plan.pages if p not in ("/", SCHEDULE)]
        landings = ["/", *rng.sample(others, min(H2LOAD_VISITS - 1, len(others)))]
        visits = [
            plan.model.visit(plan.visit_of(plan.pages, plan.navs, rng, landing))
            for landing in landings
        ]
        args = (plan.url, count, plan.ramp_s, plan.timeout_s, plan.workdir)
        return [static_load.run(visits, *args)]

    async def close(self) -> None:
        """Every tab leaves; the HTTP session closes."""
        await asyncio.gather(*(tab.close() for tab in self.tabs), return_exceptions=True)
        self.stats.connected = 0
        await self.session.close()


async def run_round(
    plan: RoundPlan,
    build: BuildInfo,
    counters: Counters,
    at_peak: Callable[[int], Awaitable[None]] | None = None,
) -> RoundStats:
    """Drive the round's readers and bookers; return what they saw.

    ``at_peak(connected)`` runs while every visitor is still connected, before they leave.
    """
    visitors = Round(plan, build, counters)
    started = time.monotonic()
    try:
        static = visitors.static_readers()
        results = await asyncio.gather(*static, *visitors.visitors())
        if static:
            visitors.stats.static = results[0]
        await asyncio.sleep(plan.hold_s)
        visitors.stats.active_s = time.monotonic() - started
        if at_peak is not None:
            await at_peak(visitors.stats.connected)
    finally:
        await visitors.close()
    return visitors.stats

"""One measured round: the visitors, the gauges beside them, the ledger after, the verdict."""

import asyncio
import contextlib
import os
import time

from scripts.loadtest import heap
from scripts.loadtest.cli import (
    MAX_BOOKING_P95_MS,
    MAX_PAGE_P95_MS,
    MAX_RSS_PER_TAB_KIB,
    RSS_CHECK_MIN_TABS,
    UNCONFIRMED_FAULTS,
)
from scripts.loadtest.ledger import STORED_OUTCOMES, reconcile
from scripts.loadtest.monitor import MONITOR_FAULT, Monitor
from scripts.loadtest.protocol import BuildInfo, Counters
from scripts.loadtest.saturation import CpuTimeline
from scripts.loadtest.topology import ConnectionSampler, Injector
from scripts.loadtest.visitors import RoundPlan, RoundStats, RssSampler, percentiles, run_round


class Gauges:
    """What is sampled beside the visitors: the backend, the web server in front (Caddy or
    nginx), Redis and PostgreSQL."""

    def __init__(self, ctx: dict) -> None:
        self.backend = RssSampler(ctx["pid"])
        stack = ctx.get("stack")
        front = ctx.get("web_server")
        self.server = RssSampler(front.pids if front else None)
        self.connections = (
            ConnectionSampler(stack.redis_url, ctx["db_url"]) if stack is not None else None
        )
        self.timeline = CpuTimeline(_cpu_groups(ctx))
        self.stop = asyncio.Event()
        self.tasks: list[asyncio.Task] = []

    def start(self) -> None:
        """Note the baselines and start sampling."""
        self.rss0, self.load0 = self.backend.sample(), os.getloadavg()[0]
        self.cpu0 = {"backend": self.backend.cpu_seconds(), "server": self.server.cpu_seconds()}
        self.gen0, self.wall0 = time.process_time(), time.monotonic()
        samplers = [self.backend, self.server, self.connections, self.timeline]
        self.tasks = [asyncio.create_task(s.run(self.stop)) for s in samplers if s is not None]

    async def finish(self) -> dict:
        """Stop sampling; the figures of the round."""
        self.stop.set()
        await asyncio.gather(*self.tasks)
        wall = time.monotonic() - self.wall0

        def spent(name: str, sampler: RssSampler) -> float | None:
            before, after = self.cpu0[name], sampler.cpu_seconds()
            # A backend killed during the round took its CPU time with it.
            ok = None not in (before, after) and after >= before
            return after - before if ok else None

        connections = self.connections
        return {
            "backend_rss_baseline": self.rss0,
            "backend_rss_peak": self.backend.peak or None,
            "backend_cpu_s": spent("backend", self.backend),
            "server_cpu_s": spent("server", self.server),
            "server_fds_peak": self.server.fds_peak or None,
            "loadgen_cpu_s": time.process_time() - self.gen0,
            "loadgen_wall_s": wall,
            "load_average_1m": [self.load0, os.getloadavg()[0]],
            "cpus": os.cpu_count(),
            "redis_connections_peak": connections.redis_peak if connections else None,
            "postgres_connections_peak": connections.postgres_peak if connections else None,
            "connection_sampler_errors": len(connections.errors) if connections else 0,
            "cpu_timeline": self.timeline.as_dict(),
        }


def _cpu_groups(ctx: dict) -> dict:
    """The processes followed second by second (``saturation.py``; h2load and the
    generator are added there): the web server, the backends, PostgreSQL and Redis."""
    front, stack, pid = ctx.get("web_server"), ctx.get("stack"), ctx["pid"]
    groups = {"backends": pid if callable(pid) else lambda: [pid] if pid else []}
    if front is not None:
        groups = {front.name: front.pids, **groups}
    if stack is not None:
        groups["backends"] = stack.pids
        groups |= {name: lambda name=name: stack.pids(name) for name in ("postgres", "redis")}
    return groups


async def _with_fault(args, ctx: dict, plan: RoundPlan, build, counters, at_peak) -> tuple:
    """Run the visitors with the fault (which always ends: the killed backend comes back,
    the stopped server starts again, the proxy passes websockets again)."""
    fault_log: list[str] = []
    if not args.fault:
        return await run_round(plan, build, counters, at_peak), fault_log, []
    injector = Injector(args.fault, ctx["emailjs_port"], fault_log)
    monitor = Monitor(ctx["stack"], ctx["db_url"]) if args.fault == MONITOR_FAULT else None
    task = None
    try:
        await injector.before()
        if monitor is not None:
            plan.url = await monitor.start(injector.note)
        task = asyncio.create_task(injector.during(args.fault_at))
        stats = await run_round(plan, build, counters, at_peak)
        await task  # e.g. the killed backend is still starting
    finally:
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await task
        if monitor is not None:
            await monitor.finish(injector.note)
        await injector.after()
    return stats, fault_log, monitor.misses() if monitor else []


async def _ledger(args, ctx: dict, plan: RoundPlan, stats: RoundStats) -> tuple:
    """The bookings matched against the leads table and the fake's log (after a fault,
    once the retry loop has sent what it left queued, up to ``--settle``)."""
    delivered = (200, "dropped") if args.fault == "emailjs-drop" else (200,)
    prefix = f"loadtest+{plan.run_id}-"

    def now():
        return reconcile(
            ctx["db_url"], ctx["fake_log"], prefix, stats.submitted,
            stats.outcome_by_email, delivered,
        )  # fmt: skip

    ledger = await asyncio.to_thread(now)
    if not args.fault:
        return ledger, None
    settle0 = time.monotonic()
    # Until every booking is stored (a spooled one reaches the table when the drain runs)
    # and every stored one is sent.
    while ledger.lost or ledger.leads_by_status.keys() - {"sent"} or ledger.undelivered:
        if time.monotonic() - settle0 > args.settle:
            return ledger, None
        await asyncio.sleep(2)
        ledger = await asyncio.to_thread(now)
    return ledger, time.monotonic() - settle0


async def _heap_hooks(ctx: dict, plan: RoundPlan, gauges: Gauges):
    """With --tracemalloc: a heap snapshot now and one with every tab connected."""
    heap_dir = ctx.get("heap_dir")
    if heap_dir is None:
        return None
    await heap.snapshot(heap_dir, f"{plan.run_id}-before")
    rss_before = gauges.backend.sample()

    async def at_peak(connected: int) -> None:
        ctx["heap_rss"] = (rss_before, gauges.backend.sample(), connected)
        await heap.snapshot(heap_dir, f"{plan.run_id}-connected")

    return at_peak


async def _heap_growth(ctx: dict, plan: RoundPlan) -> dict | None:
    if ctx.get("heap_dir") is None or "heap_rss" not in ctx:
        return None
    rss0, rss1, connected = ctx.pop("heap_rss")
    names = (f"{plan.run_id}-before", f"{plan.run_id}-connected")
    growth = await asyncio.to_thread(heap.worker_growth, ctx["heap_dir"], *names, connected)
    if growth is not None and rss0 and rss1:
        growth["rss_kib_per_tab"] = (rss1 - rss0) / max(connected, 1) / 1024
    return growth


async def measure_round(args, plan: RoundPlan, build: BuildInfo, ctx: dict) -> dict:
    """Run one round with the gauges beside it; its figures and verdict as a dict."""
    gauges = Gauges(ctx)
    counters = Counters()
    at_peak = await _heap_hooks(ctx, plan, gauges)
    gauges.start()
    try:
        stats, fault_log, fault_found = await _with_fault(args, ctx, plan, build, counters, at_peak)
    finally:
        figures = await gauges.finish()
    ledger, settled_s = await _ledger(args, ctx, plan, stats)
    result = round_figures(plan, stats, counters, figures)
    result.update(
        ledger=ledger.as_dict(), fault=args.fault, fault_log=fault_log, settled_s=settled_s,
        paths=stats.paths, fallback_reasons=stats.fallback_reasons,
        http_retries=stats.http_retries,
        stack=bool(ctx.get("stack")), heap=await _heap_growth(ctx, plan),
        readers_via="socket" if plan.socket_readers else "h2load" if plan.workdir else "python",
    )  # fmt: skip
    result["misses"] = fault_found + misses(args, result, ledger, stats)
    result["step_ok"] = not result["misses"]  # the knee is the last step meeting the targets
    return result


def round_figures(plan: RoundPlan, stats: RoundStats, counters: Counters, figures: dict) -> dict:
    """The round's figures, JSON-ready."""
    static = stats.static
    peak, base = figures["backend_rss_peak"], figures["backend_rss_baseline"]
    growth = peak - base if peak and base else None
    tabs = stats.peak_connected
    active = stats.active_s or figures["loadgen_wall_s"]
    return {
        **figures,
        "run_id": plan.run_id, "readers": plan.readers, "bookings": plan.bookings,
        "ramp_s": plan.ramp_s, "over_s": plan.over_s, "hold_s": plan.hold_s, "navs": plan.navs,
        "probes": plan.probes if plan.workdir else None,
        "peak_connected": tabs, "connect_failures": stats.connect_failures,
        "visitor_errors": stats.visitor_errors, "error_examples": stats.error_examples,
        "reader_errors": stats.reader_errors(),
        "events_sent": counters.sent, "messages_received": counters.received,
        "active_s": active, "http_requests_python": stats.http_requests,
        "http_requests": stats.http_requests + (static.requests if static else 0),
        "page_load_ms": percentiles(stats.page_load_s),
        "nav_fetch_ms": percentiles(stats.nav_fetch_s),
        "booker_page_ms": percentiles(stats.booker_page_s),
        "hydrate_ms": percentiles(stats.hydrate_s),
        "navigate_ms": percentiles(stats.navigate_s),
        "booking_ms": percentiles(stats.booking_s),
        "outcomes": stats.outcomes,
        "h2load": None if static is None else {
            "readers": static.readers, "requests": static.requests,
            "succeeded": static.succeeded, "failed": static.failed, "not_2xx": static.not_2xx,
            "request_ms": percentiles(static.request_s), "cpu_s": static.cpu_s,
            "errors": static.errors,
        },
        "backend_rss_growth": growth,
        "backend_rss_per_tab": growth / tabs if growth and tabs and growth > 0 else None,
        "backend_mib_per_1000_readers_at_most": (
            max(growth, 0) / 1048576 / plan.readers * 1000
            if growth is not None and plan.readers else None
        ),
    }  # fmt: skip


def misses(args, r: dict, ledger, stats: RoundStats) -> list[str]:
    """The targets this round missed (a fault round: honest outcomes and delivery)."""
    if args.fault:
        return fault_misses(args.fault, ledger, r["settled_s"], args.settle, stats)
    found = []
    if r["reader_errors"]:
        found.append(f"{r['reader_errors']} reader error(s)")
    if r["h2load"] and r["h2load"]["errors"]:
        found.append("h2load: " + "; ".join(r["h2load"]["errors"]))
    booker_errors = sum(n for k, n in stats.visitor_errors.items() if not k.startswith("reader"))
    if booker_errors:
        found.append(f"{booker_errors} booker error(s)")
    not_sent = sum(n for outcome, n in stats.outcomes.items() if outcome != "sent")
    if not_sent:
        found.append(f"{not_sent} booking(s) not shown 'sent'")
    found += ledger_misses(ledger)
    for key, limit, what in (
        ("booking_ms", MAX_BOOKING_P95_MS, "booking"),
        ("page_load_ms", MAX_PAGE_P95_MS, "reader page load"),
    ):
        if r[key]["n"] and r[key]["p95"] > limit:
            found.append(f"{what} p95 {r[key]['p95']:.0f} ms > {limit:.0f} ms")
    per_tab = r["backend_rss_per_tab"]
    checked = r["readers_via"] == "socket" and not r["stack"] and per_tab is not None
    checked = checked and r["peak_connected"] >= RSS_CHECK_MIN_TABS
    if checked and per_tab / 1024 > MAX_RSS_PER_TAB_KIB:
        found.append(f"backend RSS {per_tab / 1024:.0f} KiB/tab > {MAX_RSS_PER_TAB_KIB:.0f}")
    return found


def ledger_misses(ledger) -> list[str]:
    """Lost, duplicated or undelivered bookings."""
    found = []
    if ledger.lost:
        found.append(f"{ledger.lost} booking(s) lost (no lead row)")
    if ledger.duplicate_leads or ledger.duplicate_emails:
        found.append(
            f"duplicates: {ledger.duplicate_leads} lead(s), {ledger.duplicate_emails} e-mail(s)"
        )
    if ledger.missing_emails:
        found.append(f"{ledger.missing_emails} e-mail(s) missing at the fake EmailJS")
    return found


def fault_misses(
    fault: str, ledger, settled_s: float | None, settle: float, stats: RoundStats
) -> list[str]:
    """A fault round's verdict: no visitor error, every booker told "received" (none
    told ``store_failed``, none without an answer), no booking lost, every stored booking
    delivered once (a second copy only after a lost answer, marked as a resend)."""
    found = [f"{n} {kind} error(s)" for kind, n in sorted(stats.visitor_errors.items())]
    h2load = stats.static
    if h2load is not None and h2load.failed + h2load.not_2xx:
        found.append(f"{h2load.failed + h2load.not_2xx} h2load reader request(s) failed")
    not_received = {o: n for o, n in stats.outcomes.items() if o not in STORED_OUTCOMES}
    if not_received:
        found.append(f"bookers not told 'received': {not_received}")
    if ledger.lost:
        found.append(f"{ledger.lost} booking(s) lost (no lead row)")
    if ledger.lies:
        found.append(f"{ledger.lies} visitor(s) told 'received' with no lead stored")
    if ledger.duplicate_leads:
        found.append(f"{ledger.duplicate_leads} duplicated lead row(s)")
    if ledger.silent_duplicates:
        found.append(f"{ledger.silent_duplicates} duplicated e-mail(s) not marked as a resend")
    if ledger.duplicate_emails and fault not in UNCONFIRMED_FAULTS:
        found.append(f"{ledger.duplicate_emails} duplicated e-mail(s)")
    if settled_s is None:
        found.append(
            f"not all delivered after {settle:.0f} s: {ledger.undelivered} undelivered, "
            f"leads {ledger.leads_by_status}"
        )
    return found

"""Load test of the site's websocket backend: simulated tabs over Reflex's own protocol.

    make loadtest                                          # the target: 1,000 readers + 200 bookings
    make loadtest LOADTEST_ARGS="--readers 0 --bookings 1"  # one booking alone
    make loadtest LOADTEST_ARGS="--step 1000,2000,4000"     # grow the readers until it breaks
    .venv/bin/python scripts/loadtest.py --url http://127.0.0.1:8000 \\
        --db-url postgresql+psycopg://... --emailjs-port 8765 --backend-pid 1234
    make loadtest LOADTEST_ARGS="--stack"                   # a running `make stack`: 2,000 + 400
    make loadtest LOADTEST_ARGS="--stack --fault kill-backend"  # a fault, then exactly-once check

By default (``--start-single``) it builds and starts the production site exactly
like ``reflex run --env prod --single-port`` on a free port, with a temporary SQLite
database, the form rate limits raised (they must not be what is measured) and
EmailJS pointed at a fake on loopback (``scripts/loadtest/fake_emailjs.py``,
started here), then stops both by pid. With ``--url`` it drives a site that is
already running (loopback only) and starts just the fake on ``--emailjs-port``:
that site must be configured with ``EMAILJS_API_BASE=http://127.0.0.1:PORT``, the
EMAILJS_* ids and raised ``LEADS_RATE_LIMIT_PER_CLIENT``/``LEADS_RATE_LIMIT_PER_IP``.

Visitors (protocol in ``scripts/loadtest/protocol.py``):
- readers load a page (websocket connect carrying the hydrate), follow ``--navs``
  links (client-side navigations) and stay connected until the round ends;
- bookers load /schedule, submit a valid booking with their own e-mail
  (``loadtest+<run>-<n>@example.com``) and wait for the outcome the page would show.

It prints one table per round, checks the targets below and writes
``bench-results/loadtest-<timestamp>.json``; the exit status is 1 when a target is
missed. It is a benchmark, not part of ``make test``: run it on an idle machine.

``--stack`` drives a running ``make stack`` (Caddy, 2 backends x 2 workers, Redis,
PostgreSQL): URL, database and the fake EmailJS's port come from ``.stack/``, RSS
is summed over every backend worker, and the peak Redis and PostgreSQL client
connections are sampled. ``--fault MODE`` adds one fault mid-round
(``scripts/loadtest/topology.py``), then waits for the retry loop and checks that
every stored booking was delivered exactly once and that no visitor was told
"received" for a booking that was not stored.
"""

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.loadtest import heap  # noqa: E402
from scripts.loadtest.ledger import reconcile  # noqa: E402
from scripts.loadtest.protocol import BuildInfo, Counters, Tab  # noqa: E402
from scripts.loadtest.topology import (  # noqa: E402
    FAULTS,
    ConnectionSampler,
    StackInfo,
    inject,
)
from scripts.loadtest.visitors import (  # noqa: E402
    RoundPlan,
    RssSampler,
    percentiles,
    run_round,
)
from tests.e2e.conftest import free_port, start_site, stop_site, wait_until_up  # noqa: E402

RESULTS_DIR = ROOT / "bench-results"
FAKE_EMAILJS = ROOT / "scripts" / "loadtest" / "fake_emailjs.py"

# Targets of one backend process (issue 13).
TARGET_READERS, TARGET_BOOKINGS, TARGET_WINDOW_S = 1000, 200, 10.0
MAX_P95_MS = 250.0
MAX_RSS_PER_TAB_KIB = 150.0
RSS_CHECK_MIN_TABS = 100  # fewer tabs make the per-tab figure noise
STEP_MAX_P95_MS = 1000.0  # stepping stops past this (or at the first error)
# Targets of the production topology (make stack: 2 backends x 2 workers), issue 13.
STACK_READERS, STACK_BOOKINGS, STACK_WINDOW_S = 2000, 400, 20.0
# A fault round: fewer readers, bookings spread so some are in flight during the fault.
FAULT_READERS, FAULT_BOOKINGS, FAULT_WINDOW_S = 100, 200, 30.0

# Faults after which EmailJS may have an e-mail nobody heard about: a resend (marked as
# such) is the honest limit of at-least-once delivery without an idempotency key.
UNCONFIRMED_FAULTS = ("emailjs-drop", "kill-while-sending", "kill-backend")

# Bounds: the load stays finite whatever the arguments say.
MAX_READERS, MAX_BOOKINGS, MAX_SECONDS, MAX_STEPS = 5000, 2000, 120.0, 6
RAISED_LIMITS = {"LEADS_RATE_LIMIT_PER_IP": "1000000"}
MEMPROBE = ROOT / "scripts" / "loadtest" / "memprobe"
EMAILJS_IDS = {
    "EMAILJS_SERVICE_ID": "service_loadtest",
    "EMAILJS_PUBLIC_KEY": "public_loadtest",
    "EMAILJS_PRIVATE_KEY": "private_loadtest",
    "EMAILJS_CONTACT_TEMPLATE_ID": "template_contact_loadtest",
    "EMAILJS_BOOKING_TEMPLATE_ID": "template_booking_loadtest",
}
FALLBACK_PAGES = ["/", "/about", "/case-studies", "/careers", "/contact", "/schedule"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--url", help="a running site (loopback only); default: start one")
    parser.add_argument(
        "--start-single",
        action="store_true",
        help="build and start `reflex run --env prod --single-port` here (default without --url)",
    )
    parser.add_argument(
        "--stack", action="store_true", help="drive the running `make stack` (.stack/)"
    )
    parser.add_argument(
        "--fault", choices=FAULTS, help="with --stack: one fault mid-round, then check delivery"
    )
    parser.add_argument("--fault-at", type=float, default=5.0, help="the fault starts at (s)")
    parser.add_argument(
        "--settle", type=float, default=240.0, help="with --fault: wait for delivery up to (s)"
    )
    parser.add_argument("--readers", type=int, help=f"default {TARGET_READERS}")
    parser.add_argument("--bookings", type=int, help=f"default {TARGET_BOOKINGS}")
    parser.add_argument("--over", type=float, help="bookings spread over (s)")
    parser.add_argument("--ramp", type=float, help="readers connect over (s)")
    parser.add_argument("--hold", type=float, default=5.0, help="all stay connected after (s)")
    parser.add_argument("--navs", type=int, default=3, help="client-side navigations per reader")
    parser.add_argument("--step", help="e.g. 1000,2000,4000: grow the readers until it breaks")
    parser.add_argument("--timeout", type=float, default=30.0, help="wait for an answer (s)")
    parser.add_argument("--db-url", help="the site's REFLEX_DB_URL (with --url)")
    parser.add_argument("--emailjs-port", type=int, help="port of the fake EmailJS")
    parser.add_argument("--backend-pid", type=int, help="backend process for RSS (with --url)")
    parser.add_argument("--web-dir", type=Path, default=ROOT / ".web", help="the site's build")
    parser.add_argument("--py-spy", type=Path, help="record the backend with py-spy to this file")
    parser.add_argument(
        "--tracemalloc",
        action="store_true",
        help="(single process) where each tab's memory goes: Python's heap before the visitors\n"
        "and with all connected, by package (slows the backend: not for the targets)",
    )
    args = parser.parse_args(argv)
    if args.fault and not args.stack:
        parser.error("--fault needs --stack")
    if args.tracemalloc and (args.stack or args.url):
        parser.error("--tracemalloc starts its own single-process site")
    if args.stack and (args.url or args.start_single):
        parser.error("--stack excludes --url and --start-single")
    if args.url and args.start_single:
        parser.error("--url and --start-single exclude each other")
    readers, bookings, window = (
        (FAULT_READERS, FAULT_BOOKINGS, FAULT_WINDOW_S)
        if args.fault
        else (STACK_READERS, STACK_BOOKINGS, STACK_WINDOW_S)
        if args.stack
        else (TARGET_READERS, TARGET_BOOKINGS, TARGET_WINDOW_S)
    )
    args.readers = readers if args.readers is None else args.readers
    args.bookings = bookings if args.bookings is None else args.bookings
    args.over = window if args.over is None else args.over
    args.ramp = min(window, 10.0 if args.fault else window) if args.ramp is None else args.ramp
    args.start_single = not (args.url or args.stack)
    steps = [int(s) for s in args.step.split(",")] if args.step else [args.readers]
    if len(steps) > MAX_STEPS or any(not 0 <= s <= MAX_READERS for s in steps):
        parser.error(f"at most {MAX_STEPS} steps of 0..{MAX_READERS} readers")
    args.steps = steps
    if not 0 <= args.bookings <= MAX_BOOKINGS:
        parser.error(f"--bookings must be 0..{MAX_BOOKINGS}")
    for name in ("over", "ramp", "hold", "timeout", "fault_at"):
        if not 0 <= getattr(args, name) <= MAX_SECONDS:
            parser.error(f"--{name.replace('_', '-')} must be 0..{MAX_SECONDS:.0f} s")
    if not 0 <= args.settle <= 600:
        parser.error("--settle must be 0..600 s")
    if args.url:
        host = urlsplit(args.url).hostname or ""
        if host not in ("localhost", "127.0.0.1", "::1") and not host.startswith("127."):
            parser.error("--url must be a loopback address")
        if not args.db_url:
            parser.error("--url needs --db-url (the site's REFLEX_DB_URL)")
        if not args.emailjs_port:
            parser.error("--url needs --emailjs-port (where the site sends its e-mails)")
    return args


def start_fake(port: int, log_path: Path) -> subprocess.Popen:
    """Start the fake EmailJS on 127.0.0.1:``port``, logging to ``log_path``."""
    process = subprocess.Popen(
        [sys.executable, str(FAKE_EMAILJS), "--port", str(port), "--log", str(log_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    if not wait_until_up(f"http://127.0.0.1:{port}/_health", process, 20):
        stop_process(process)
        raise SystemExit(f"The fake EmailJS did not start on port {port}.")
    return process


def stop_process(
    process: subprocess.Popen | None, sig: int = signal.SIGTERM, grace_s: float = 10
) -> None:
    """Stop a process this script started, by its pid (SIGKILL after ``grace_s``)."""
    if process is None or process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def start_py_spy(pid: int, out: Path) -> subprocess.Popen:
    """Record the backend tree with py-spy (collapsed stacks) until SIGINT."""
    py_spy = Path(sys.executable).with_name("py-spy")
    return subprocess.Popen(
        [
            str(py_spy),
            "record",
            "--pid",
            str(pid),
            "--subprocesses",
            "--format",
            "raw",
            "--rate",
            "100",
            "--nonblocking",
            "-o",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def site_pages(web_dir: Path) -> list[str]:
    """The site's page paths, from the build's routes.json."""
    routes = web_dir / "routes.json"
    if not routes.exists():
        return FALLBACK_PAGES
    names = json.loads(routes.read_text())
    return [
        "/" if name == "index" else f"/{name}" for name in names if name not in ("404", "[404]")
    ]


def fmt_ms(value: float | None) -> str:
    """Milliseconds for the table."""
    return "-" if value is None else f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"


def fmt_pct(p: dict) -> str:
    """p50/p95/p99/max for the table."""
    if not p["n"]:
        return "-"
    return " / ".join(fmt_ms(p[k]) for k in ("p50", "p95", "p99", "max"))


def kib(value: float | None) -> str:
    """Bytes as KiB or MiB."""
    if value is None:
        return "not measured"
    return f"{value / 1048576:.1f} MiB" if value >= 1048576 else f"{value / 1024:.0f} KiB"


async def warm_up(url: str, build: BuildInfo) -> None:
    """One tab loads Home, so the first measured visitor does not pay the start-up."""
    import aiohttp

    async with aiohttp.ClientSession() as session:
        tab = Tab(url, build, session, Counters())
        await tab.open("/")
        await tab.close()


async def measure_round(args, plan: RoundPlan, build: BuildInfo, ctx: dict) -> dict:
    """Run one round with the RSS sampler beside it; its figures as a dict."""
    sampler = RssSampler(ctx["pid"])
    baseline = sampler.sample()
    backend_cpu0 = sampler.cpu_seconds()
    load_before = os.getloadavg()[0]
    stop = asyncio.Event()
    sampling = [asyncio.create_task(sampler.run(stop))]
    connections = None
    if ctx.get("stack"):
        connections = ConnectionSampler(ctx["stack"].redis_url, ctx["db_url"])
        sampling.append(asyncio.create_task(connections.run(stop)))
    fault_log: list[str] = []
    fault = None
    if args.fault:
        fault = asyncio.create_task(
            inject(args.fault, args.fault_at, ctx["emailjs_port"], fault_log)
        )
    counters = Counters()
    heap_dir = ctx.get("heap_dir")
    at_peak = None
    if heap_dir is not None:
        await heap.snapshot(heap_dir, f"{plan.run_id}-before")
        rss_before_heap = sampler.sample()

        async def at_peak(connected: int) -> None:
            ctx["heap_rss"] = (rss_before_heap, sampler.sample(), connected)
            await heap.snapshot(heap_dir, f"{plan.run_id}-connected")

    cpu0, wall0 = time.process_time(), time.monotonic()
    try:
        stats = await run_round(plan, build, counters, at_peak)
        if fault is not None:
            await fault  # e.g. the killed backend is still starting
    finally:
        stop.set()
        await asyncio.gather(*sampling)
        if fault is not None and not fault.done():
            # Even when the round failed, the fault ends: the killed backend comes back.
            with contextlib.suppress(Exception):
                await fault
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    backend_cpu1 = sampler.cpu_seconds()
    backend_cpu = backend_cpu1 - backend_cpu0 if None not in (backend_cpu0, backend_cpu1) else None
    if backend_cpu is not None and backend_cpu < 0:
        backend_cpu = None  # a backend killed during the round took its CPU time with it
    prefix = f"loadtest+{plan.run_id}-"
    # With the drop fault the provider has the e-mails whose answer was lost.
    delivered = (200, "dropped") if args.fault == "emailjs-drop" else (200,)

    def ledger_now():
        return reconcile(
            ctx["db_url"],
            ctx["fake_log"],
            prefix,
            stats.submitted,
            stats.outcome_by_email,
            delivered,
        )

    ledger = await asyncio.to_thread(ledger_now)
    settled_s = None
    if args.fault:
        # The retry loop (LEADS_RETRY_*) sends what the fault left queued.
        settle0 = time.monotonic()
        while ledger.leads_by_status.keys() - {"sent"} or ledger.undelivered:
            if time.monotonic() - settle0 > args.settle:
                break
            await asyncio.sleep(2)
            ledger = await asyncio.to_thread(ledger_now)
        else:
            settled_s = time.monotonic() - settle0
    peak = sampler.peak or None
    per_tab = (
        (peak - baseline) / stats.peak_connected
        if peak and baseline and stats.peak_connected and peak > baseline
        else None
    )
    heap_growth = None
    if heap_dir is not None and "heap_rss" in ctx:
        rss0, rss1, connected = ctx.pop("heap_rss")
        heap_growth = await asyncio.to_thread(
            heap.worker_growth,
            heap_dir,
            f"{plan.run_id}-before",
            f"{plan.run_id}-connected",
            connected,
        )
        if heap_growth is not None and rss0 and rss1:
            heap_growth["rss_kib_per_tab"] = (rss1 - rss0) / max(connected, 1) / 1024
    active = stats.active_s or wall
    not_sent = sum(n for outcome, n in stats.outcomes.items() if outcome != "sent")
    booking = percentiles(stats.booking_s)
    hydrate = percentiles(stats.hydrate_s)
    result = {
        "run_id": plan.run_id,
        "readers": plan.readers,
        "bookings": plan.bookings,
        "ramp_s": plan.ramp_s,
        "over_s": plan.over_s,
        "hold_s": plan.hold_s,
        "navs": plan.navs,
        "peak_connected": stats.peak_connected,
        "connect_failures": stats.connect_failures,
        "visitor_errors": stats.visitor_errors,
        "events_sent": counters.sent,
        "messages_received": counters.received,
        "events_sent_per_s": counters.sent / active,
        "messages_received_per_s": counters.received / active,
        "active_s": active,
        "hydrate_ms": hydrate,
        "navigate_ms": percentiles(stats.navigate_s),
        "booking_ms": booking,
        "outcomes": stats.outcomes,
        "ledger": ledger.as_dict(),
        "backend_rss_baseline": baseline,
        "backend_rss_peak": peak,
        "backend_rss_per_tab": per_tab,
        "heap": heap_growth,
        "backend_cpu_s": backend_cpu,
        "redis_connections_peak": connections.redis_peak if connections else None,
        "postgres_connections_peak": connections.postgres_peak if connections else None,
        "connection_sampler_errors": len(connections.errors) if connections else 0,
        "fault": args.fault,
        "stack": bool(ctx.get("stack")),
        "fault_log": fault_log,
        "settled_s": settled_s,
        "loadgen_cpu_s": cpu,
        "load_average_1m": [load_before, os.getloadavg()[0]],
        "cpus": os.cpu_count(),
        "loadgen_wall_s": wall,
    }
    misses = []
    if args.fault:
        result["misses"] = fault_misses(args.fault, ledger, settled_s, args.settle)
        result["step_ok"] = not result["misses"]
        return result
    if stats.connect_failures:
        misses.append(f"{stats.connect_failures} connect failure(s)")
    if stats.visitor_errors:
        misses.append(f"visitor errors {stats.visitor_errors}")
    if not_sent:
        misses.append(f"{not_sent} booking(s) not shown 'sent'")
    if ledger.lost:
        misses.append(f"{ledger.lost} booking(s) lost (no lead row)")
    if ledger.duplicate_leads or ledger.duplicate_emails:
        misses.append(
            f"duplicates: {ledger.duplicate_leads} lead(s), {ledger.duplicate_emails} e-mail(s)"
        )
    if ledger.missing_emails:
        misses.append(f"{ledger.missing_emails} e-mail(s) missing at the fake EmailJS")
    if booking["n"] and booking["p95"] > MAX_P95_MS:
        misses.append(f"booking p95 {booking['p95']:.0f} ms > {MAX_P95_MS:.0f} ms")
    rss_checked = (
        not ctx.get("stack") and per_tab is not None and stats.peak_connected >= RSS_CHECK_MIN_TABS
    )
    if rss_checked and per_tab / 1024 > MAX_RSS_PER_TAB_KIB:
        misses.append(f"backend RSS {per_tab / 1024:.0f} KiB/tab > {MAX_RSS_PER_TAB_KIB:.0f}")
    result["misses"] = misses
    worst_p95 = max(
        [p["p95"] for p in (booking, hydrate) if p["n"]],
        default=0.0,
    )
    errors = stats.connect_failures + sum(stats.visitor_errors.values()) + not_sent + ledger.lost
    result["step_ok"] = errors == 0 and worst_p95 <= STEP_MAX_P95_MS
    return result


def fault_misses(fault: str, ledger, settled_s: float | None, settle: float) -> list[str]:
    """A fault round's verdict: honest outcomes and every stored booking delivered once."""
    misses = []
    if ledger.lies:
        misses.append(f"{ledger.lies} visitor(s) told 'received' with no lead stored")
    if ledger.duplicate_leads:
        misses.append(f"{ledger.duplicate_leads} duplicated lead row(s)")
    if ledger.silent_duplicates:
        misses.append(f"{ledger.silent_duplicates} duplicated e-mail(s) not marked as a resend")
    if ledger.duplicate_emails and fault not in UNCONFIRMED_FAULTS:
        misses.append(f"{ledger.duplicate_emails} duplicated e-mail(s)")
    if settled_s is None:
        misses.append(
            f"not all delivered after {settle:.0f} s: {ledger.undelivered} undelivered, "
            f"leads {ledger.leads_by_status}"
        )
    return misses


def print_round(r: dict, title: str) -> None:
    """The table of one round."""
    ledger = r["ledger"]
    rows = [
        ("Visitors connected (peak)", f"{r['peak_connected']}"),
        ("Connect failures", f"{r['connect_failures']}"),
        ("Visitor errors", json.dumps(r["visitor_errors"]) if r["visitor_errors"] else "0"),
        (
            "Events sent / messages received",
            f"{r['events_sent_per_s']:.0f}/s / {r['messages_received_per_s']:.0f}/s "
            f"({r['events_sent']} / {r['messages_received']} in {r['active_s']:.1f} s)",
        ),
        ("Hydrate p50/p95/p99/max", fmt_pct(r["hydrate_ms"])),
        ("Navigation p50/p95/p99/max", fmt_pct(r["navigate_ms"])),
        ("Booking submit→outcome p50/p95/p99/max", fmt_pct(r["booking_ms"])),
        ("Outcomes", ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items())) or "-"),
        (
            "Leads stored",
            f"{ledger['leads_stored']} "
            + (
                "("
                + ", ".join(f"{k} {v}" for k, v in sorted(ledger["leads_by_status"].items()))
                + ")"
                if ledger["leads_by_status"]
                else ""
            ),
        ),
        (
            "E-mails received by the fake",
            f"{ledger['emails_received']} (of {ledger['send_attempts']} requests)",
        ),
        (
            "Duplicates (leads / e-mails / e-mails not marked)",
            f"{ledger['duplicate_leads']} / {ledger['duplicate_emails']}"
            f" / {ledger['silent_duplicates']}",
        ),
        ("Lost (submitted, no lead row)", f"{ledger['lost']}"),
        ("Told 'received' with no lead row (lies)", f"{ledger['lies']}"),
        ("Stored leads with no e-mail received", f"{ledger['undelivered']}"),
        ("Missing e-mails", f"{ledger['missing_emails']}"),
        ("Unexpected leads/e-mails", f"{ledger['unexpected']}"),
        (
            "Backend RSS baseline → peak",
            f"{kib(r['backend_rss_baseline'])} → {kib(r['backend_rss_peak'])}",
        ),
        ("Backend RSS per connected tab", kib(r["backend_rss_per_tab"])),
        *(
            [
                (
                    "Peak connections Redis / PostgreSQL",
                    f"{r['redis_connections_peak']} / {r['postgres_connections_peak']}"
                    + (
                        f" ({r['connection_sampler_errors']} samples failed)"
                        if r["connection_sampler_errors"]
                        else ""
                    ),
                )
            ]
            if r.get("redis_connections_peak") is not None
            else []
        ),
        *(
            [
                ("Fault", f"{r['fault']}: " + "; ".join(r["fault_log"])),
                (
                    "All delivered after the round",
                    "no" if r["settled_s"] is None else f"in {r['settled_s']:.0f} s",
                ),
            ]
            if r.get("fault")
            else []
        ),
        (
            "Backend CPU (process tree)",
            "not measured"
            if r["backend_cpu_s"] is None
            else f"{r['backend_cpu_s']:.1f} s in {r['loadgen_wall_s']:.1f} s "
            f"({100 * r['backend_cpu_s'] / max(r['loadgen_wall_s'], 1e-9):.0f}% of a core)",
        ),
        (
            "Load generator CPU",
            f"{r['loadgen_cpu_s']:.1f} s in {r['loadgen_wall_s']:.1f} s "
            f"({100 * r['loadgen_cpu_s'] / max(r['loadgen_wall_s'], 1e-9):.0f}% of a core)",
        ),
        (
            "Machine load average (1 min) before → after",
            f"{r['load_average_1m'][0]:.1f} → {r['load_average_1m'][1]:.1f} on {r['cpus']} CPUs",
        ),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"\n{title}")
    print("-" * (width + 40))
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    print("-" * (width + 40))
    if r.get("heap"):
        print_heap(r["heap"])
    if r["misses"]:
        print("MISSED: " + "; ".join(r["misses"]))
    elif r.get("fault"):
        print(
            "Fault survived: no visitor told 'received' without a stored lead, no duplicated "
            "lead, every stored booking delivered"
            + (
                f" (with {r['ledger']['duplicate_emails']} duplicated e-mail(s), each marked as a"
                " resend: at-least-once)"
                if r["ledger"]["duplicate_emails"]
                else " exactly once"
            )
        )
    elif r.get("stack"):
        print(
            f"Targets met: 0 errors, 0 lost, 0 duplicated, booking p95 ≤ {MAX_P95_MS:.0f} ms "
            "(production topology)"
        )
    else:
        print(
            f"Targets met: 0 errors, 0 lost, 0 duplicated, booking p95 ≤ {MAX_P95_MS:.0f} ms, "
            f"≤ {MAX_RSS_PER_TAB_KIB:.0f} KiB backend RSS per tab"
            + (
                ""
                if r["peak_connected"] >= RSS_CHECK_MIN_TABS
                else f" (RSS per tab checked from {RSS_CHECK_MIN_TABS} tabs)"
            )
        )


def print_heap(h: dict) -> None:
    """Where the worker's memory per connected tab went (tracemalloc)."""
    print(
        f"Worker memory per connected tab ({h['tabs']} tabs): RSS "
        f"{h.get('rss_kib_per_tab', 0):.0f} KiB, of it Python's traced heap "
        f"{h['traced_kib_per_tab']:.0f} KiB (RSS here includes tracemalloc's own records);"
        " by the package that allocated it:"
    )
    for name, kib_per_tab in h["by_owner_kib_per_tab"]:
        print(f"  {kib_per_tab:8.1f} KiB  {name}")
    print("  biggest single places:")
    for name, kib_per_tab in h["by_site_kib_per_tab"]:
        print(f"  {kib_per_tab:8.1f} KiB  {name}")


async def run_all(args, ctx: dict, build: BuildInfo) -> list[dict]:
    """Every round (one, or one per step until the knee)."""
    await warm_up(ctx["url"], build)
    await asyncio.sleep(1)
    stamp = dt.datetime.now(dt.UTC).strftime("%H%M%S")
    rounds = []
    for i, readers in enumerate(args.steps):
        plan = RoundPlan(
            url=ctx["url"],
            readers=readers,
            bookings=args.bookings,
            ramp_s=args.ramp,
            over_s=args.over,
            hold_s=args.hold,
            navs=args.navs,
            pages=ctx["pages"],
            run_id=f"{stamp}s{i}",
            timeout_s=args.timeout,
        )
        title = (
            f"Round {i + 1}/{len(args.steps)}: {readers} readers (ramp {args.ramp:.0f} s, "
            f"{args.navs} navigations each) + {args.bookings} bookings over {args.over:.0f} s, "
            f"hold {args.hold:.0f} s — {ctx['url']}"
        )
        print(f"\n{title} ...", flush=True)
        result = await measure_round(args, plan, build, ctx)
        rounds.append(result)
        print_round(result, title)
        if len(args.steps) > 1 and not result["step_ok"]:
            break
        if i + 1 < len(args.steps):
            await asyncio.sleep(5)  # let the backend forget the closed tabs
    return rounds


def main(argv: list[str] | None = None) -> int:
    """Start what is needed, run the rounds, report; 1 when a target is missed."""
    args = parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="loadtest-"))
    fake = server = spy = None
    stack = StackInfo.load() if args.stack else None
    if stack and not stack.emailjs_port:
        print(
            "The stack was not started with EMAILJS_API_BASE=http://127.0.0.1:<port> "
            "(the fake EmailJS): see the README's load-test section.",
            file=sys.stderr,
        )
        return 3
    try:
        port = stack.emailjs_port if stack else args.emailjs_port or free_port()
        fake_log = workdir / "emailjs.jsonl"
        fake = start_fake(port, fake_log)
        print(f"Fake EmailJS: http://127.0.0.1:{port} (pid {fake.pid}), log {fake_log}")
        if args.start_single:
            overrides = {
                "EMAILJS_API_BASE": f"http://127.0.0.1:{port}",
                **EMAILJS_IDS,
                **RAISED_LIMITS,
            }
            if args.tracemalloc:
                overrides["PYTHONPATH"] = os.pathsep.join(
                    filter(None, [str(MEMPROBE), os.environ.get("PYTHONPATH")])
                )
                overrides["LOADTEST_TRACEMALLOC_DIR"] = str(workdir / "heap")
                print("tracemalloc on in the backend: latencies of this run are not the targets'")
            print(
                "Starting the production site (reflex run --env prod --single-port), "
                "rate limits raised so they are not what is measured: "
                + " ".join(f"{k}={v}" for k, v in RAISED_LIMITS.items()),
                flush=True,
            )
            try:
                server = start_site(overrides, workdir)
            except BaseException as error:  # pytest.exit raises its own exception
                print(f"The site did not start: {error}", file=sys.stderr)
                return 3
            url = server.url.replace("localhost", "127.0.0.1")
            db_url = server.env["REFLEX_DB_URL"]
            pid = server.process.pid
            print(f"Site: {url} (pid {pid}), database {db_url}")
        elif stack:
            url, db_url, pid = stack.url, stack.db_url, stack.pids
            print(f"Stack: {url} (every backend worker's RSS; Redis and PostgreSQL sampled)")
        else:
            url, db_url, pid = args.url.rstrip("/"), args.db_url, args.backend_pid
            print(
                f"Site: {url} (not started here; it must run with "
                + " ".join(f"{k} raised" for k in RAISED_LIMITS)
                + f" and EMAILJS_API_BASE=http://127.0.0.1:{port})"
            )
        build = BuildInfo.from_web_dir(args.web_dir)
        if build.state_schema is None:
            print(f"No build in {args.web_dir}: hydrating without state schema and hashes.")
        if args.py_spy and isinstance(pid, int):
            spy = start_py_spy(pid, args.py_spy)
            print(f"py-spy recording pid {pid} (and children) to {args.py_spy}")
        ctx = {
            "url": url,
            "db_url": db_url,
            "pid": pid,
            "fake_log": fake_log,
            "heap_dir": workdir / "heap" if args.tracemalloc else None,
            "pages": site_pages(args.web_dir),
            "stack": stack,
            "emailjs_port": port,
        }
        rounds = asyncio.run(run_all(args, ctx, build))
    finally:
        stop_process(spy, signal.SIGINT, 30)  # py-spy writes its file on SIGINT
        if server is not None:
            stop_site(server)
        stop_process(fake)

    knee = None
    if len(args.steps) > 1:
        passing = [r["readers"] for r in rounds if r["step_ok"]]
        knee = passing[-1] if passing else 0
        print(
            f"\nStepping: last step with no error and p95 ≤ {STEP_MAX_P95_MS:.0f} ms: "
            f"{knee} readers"
            + ("" if len(passing) < len(rounds) else " (never broke within the steps)")
        )
    RESULTS_DIR.mkdir(exist_ok=True)
    out = RESULTS_DIR / f"loadtest-{dt.datetime.now(dt.UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_text(
        json.dumps(
            {
                "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
                "url": ctx["url"],
                "started_site": args.start_single,
                "raised_limits": RAISED_LIMITS if args.start_single else None,
                "targets": {
                    "readers": TARGET_READERS,
                    "bookings": TARGET_BOOKINGS,
                    "window_s": TARGET_WINDOW_S,
                    "booking_p95_ms": MAX_P95_MS,
                    "rss_per_tab_kib": MAX_RSS_PER_TAB_KIB,
                },
                "rounds": rounds,
                "knee_readers": knee,
            },
            indent=2,
        )
    )
    print(f"\nResults: {out.relative_to(ROOT)}")
    return 1 if rounds and rounds[0]["misses"] else 0


if __name__ == "__main__":
    sys.exit(main())

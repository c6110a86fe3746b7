"""`python -m scripts.loadtest`: start what is needed, run the rounds, report (the package's
docstring says what it does; ``cli.py`` holds the options)."""

import asyncio
import datetime as dt
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.loadtest import static_load, web_servers  # noqa: E402
from scripts.loadtest.cli import check_machine, parse_args, probes_for  # noqa: E402
from scripts.loadtest.protocol import BuildInfo, Counters, Tab  # noqa: E402
from scripts.loadtest.readers import ReaderModel  # noqa: E402
from scripts.loadtest.report import print_round, stepping_summary, targets_text  # noqa: E402
from scripts.loadtest.rounds import measure_round  # noqa: E402
from scripts.loadtest.topology import StackInfo  # noqa: E402
from scripts.loadtest.visitors import RoundPlan  # noqa: E402
from scripts.local_servers import free_port  # noqa: E402
from scripts.production_site import start_site, stop_site, wait_until_up  # noqa: E402

RESULTS_DIR = ROOT / "bench-results"
FAKE_EMAILJS = ROOT / "scripts" / "loadtest" / "fake_emailjs.py"
MEMPROBE = ROOT / "scripts" / "loadtest" / "memprobe"
# Every simulated visitor comes from loopback: the per-address limits would stop them all.
RAISED_LIMITS = {
    "LEADS_RATE_LIMIT_PER_IP": "1000000",
    "BOOKING_MAX_PENDING_PER_NETWORK": "0",
    "BOOKING_MAX_PENDING_PER_EMAIL": "0",
    # The bookers post at once, with no form token: the time trap would quarantine them all.
    "LEADS_SPAM_TIME_TRAP": "false",
}
EMAILJS_IDS = {
    "EMAILJS_SERVICE_ID": "service_loadtest",
    "EMAILJS_PUBLIC_KEY": "public_loadtest",
    "EMAILJS_PRIVATE_KEY": "private_loadtest",
    "EMAILJS_CONTACT_TEMPLATE_ID": "template_contact_loadtest",
    "EMAILJS_BOOKING_TEMPLATE_ID": "template_booking_loadtest",
}
FALLBACK_PAGES = ["/", "/about", "/case-studies", "/careers", "/contact", "/schedule"]


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
    """Record the backend tree with py-spy (raw stacks) until SIGINT."""
    py_spy = Path(sys.executable).with_name("py-spy")
    command = [str(py_spy), "record", "--pid", str(pid), "--subprocesses", "--format", "raw"]
    command += ["--rate", "100", "--nonblocking", "-o", str(out)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def site_pages(web_dir: Path) -> list[str]:
    """The site's page paths, from the build's routes.json."""
    routes = web_dir / "routes.json"
    if not routes.exists():
        return FALLBACK_PAGES
    names = json.loads(routes.read_text())
    return [
        "/" if name == "index" else f"/{name}" for name in names if name not in ("404", "[404]")
    ]


async def warm_up(url: str, build: BuildInfo) -> None:
    """One tab loads Home, so the first measured visitor does not pay the start-up."""
    import aiohttp

    async with aiohttp.ClientSession() as session:
        tab = Tab(url, build, session, Counters())
        await tab.open("/")
        await tab.close()


def reader_model(url: str, pages: list[str]) -> ReaderModel:
    """Every page's files and the route modules, read once from the running site."""
    model = ReaderModel(url.rstrip("/") + "/")
    for path in pages:
        model.page(path)
    files = {f for steps in model.pages.values() for f in steps}
    print(f"Reader model: {len(pages)} pages, {len(model.routes)} routes, {len(files)} files")
    sample = model.visit(RoundPlan.visit_of(pages, 3, random.Random(0)))
    print("  e.g. " + " → ".join(f"{len(step)} files" for step in sample))
    return model


def plan_round(args, ctx: dict, index: int, readers: int, stamp: str) -> RoundPlan:
    """The plan of step ``index``."""
    workdir = ctx["workdir"] / f"h2load-{index}" if args.h2load else None
    if workdir is not None:
        workdir.mkdir(exist_ok=True)
    return RoundPlan(
        url=ctx["url"], readers=readers, bookings=args.bookings, ramp_s=args.ramp,
        over_s=args.over, hold_s=args.hold, navs=args.navs, pages=ctx["pages"],
        run_id=f"{stamp}s{index}", model=ctx["model"], timeout_s=args.timeout,
        socket_readers=args.socket_readers, probes=probes_for(args, readers), workdir=workdir,
        http_share=args.http_share, origin=ctx["origin"],
        # Through a web server every visitor comes from its own address, as on the internet:
        # nginx limits connections and backend requests per address (Caddy does not).
        distinct_addresses=args.distinct_addresses or "web_server" in ctx, utm=args.utm,
    )  # fmt: skip


async def run_all(args, ctx: dict, build: BuildInfo) -> list[dict]:
    """Every round (one, or one per step until the knee)."""
    await warm_up(ctx["url"], build)
    await asyncio.sleep(1)
    stamp = dt.datetime.now(dt.UTC).strftime("%H%M%S")
    rounds = []
    for i, readers in enumerate(args.steps):
        plan = plan_round(args, ctx, i, readers, stamp)
        title = (
            f"Round {i + 1}/{len(args.steps)}: {readers} readers (ramp {args.ramp:.0f} s, "
            f"{args.navs} navigations each) + {args.bookings} bookings over {args.over:.0f} s"
            f" — {ctx['url']}"
        )
        print(f"\n{title} ...", flush=True)
        result = await measure_round(args, plan, build, ctx)
        front = ctx.get("web_server")
        result["server"] = front.name if front else None
        rounds.append(result)
        print_round(result, title)
        if len(args.steps) > 1 and not result["step_ok"]:
            break
        if i + 1 < len(args.steps):
            await asyncio.sleep(5)  # let the backend forget the closed tabs
    return rounds


def start_single(args, port: int, workdir: Path) -> tuple:
    """The production site started here: (server, url, db_url, pid)."""
    overrides = {"EMAILJS_API_BASE": f"http://127.0.0.1:{port}", **EMAILJS_IDS, **RAISED_LIMITS}
    if args.tracemalloc:
        path = filter(None, [str(MEMPROBE), os.environ.get("PYTHONPATH")])
        overrides["PYTHONPATH"] = os.pathsep.join(path)
        overrides["LOADTEST_TRACEMALLOC_DIR"] = str(workdir / "heap")
        print("tracemalloc on in the backend: latencies of this run are not the targets'")
    limits = " ".join(f"{k}={v}" for k, v in RAISED_LIMITS.items())
    print(f"Starting the production site (reflex run --env prod --single-port), {limits}")
    try:
        server = start_site(overrides, workdir)
    except BaseException as error:  # pytest.exit raises its own exception
        raise SystemExit(f"The site did not start: {error}") from error
    url = server.url.replace("localhost", "127.0.0.1")
    print(f"Site: {url} (pid {server.process.pid}), database {server.env['REFLEX_DB_URL']}")
    return server, url, server.env["REFLEX_DB_URL"], server.process.pid


def target_site(args, stack: StackInfo | None, port: int, workdir: Path) -> tuple:
    """Where the load goes: (server started here or None, url, db_url, backend pid(s))."""
    if args.start_single:
        return start_single(args, port, workdir)
    if stack:
        print(f"Stack: {stack.url} (every backend worker's RSS, the web server, Redis, PostgreSQL)")
        return None, stack.url.replace("localhost", "127.0.0.1"), stack.db_url, stack.pids
    print(f"Site: {args.url} (not started here: it must send e-mail to 127.0.0.1:{port})")
    return None, args.url.rstrip("/"), args.db_url, args.backend_pid


def through(name: str, args, ctx: dict, build: BuildInfo) -> list[dict]:
    """The rounds with the web server ``name`` in front of the stack's backends."""
    front = web_servers.start(name, ctx["stack"])
    print(f"\nWeb server: {name} on {front.url} (pids {front.pids()})")
    try:
        # The stack's own server is the site (its configured origin); one beside it is a name
        # of it.
        origin = ctx["stack"].url if front.process is None else front.url
        model = reader_model(front.url, ctx["pages"])
        ctx.update(url=front.url, web_server=front, origin=origin, model=model)
        return asyncio.run(run_all(args, ctx, build))
    finally:
        web_servers.stop(front)


def write_results(args, ctx: dict, rounds: list[dict], knees: dict[str, int] | None) -> Path:
    """The run as JSON under bench-results/."""
    RESULTS_DIR.mkdir(exist_ok=True)
    out = RESULTS_DIR / f"loadtest-{dt.datetime.now(dt.UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    settings = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
    body = {"args": settings, "url": ctx["url"], "rounds": rounds, "knee_readers": knees}
    out.write_text(json.dumps(body, indent=2))
    return out


def run(args, stack: StackInfo | None, workdir: Path) -> tuple[dict, list[dict]]:
    """Start the fake (and the site), run the rounds, stop what was started."""
    fake = server = spy = None
    try:
        port = stack.emailjs_port if stack else args.emailjs_port or free_port()
        fake_log = workdir / "emailjs.jsonl"
        fake = start_fake(port, fake_log)
        print(f"Fake EmailJS: http://127.0.0.1:{port} (pid {fake.pid}), log {fake_log}")
        server, url, db_url, pid = target_site(args, stack, port, workdir)
        build = BuildInfo.from_web_dir(args.web_dir)
        if build.state_schema is None:
            print(f"No build in {args.web_dir}: hydrating without state schema and hashes.")
        if args.py_spy and isinstance(pid, int):
            spy = start_py_spy(pid, args.py_spy)
        pages = site_pages(args.web_dir)
        ctx = {
            "url": url, "db_url": db_url, "pid": pid, "fake_log": fake_log, "stack": stack,
            "heap_dir": workdir / "heap" if args.tracemalloc else None, "pages": pages,
            "emailjs_port": port, "workdir": workdir, "origin": stack.url if stack else url,
        }  # fmt: skip
        if stack is None:
            ctx["model"] = reader_model(url, pages)
            return ctx, asyncio.run(run_all(args, ctx, build))
        names = [name or web_servers.stack_server(stack) for name in args.servers]
        return ctx, [r for name in names for r in through(name, args, ctx, build)]
    finally:
        stop_process(spy, signal.SIGINT, 30)  # py-spy writes its file on SIGINT
        if server is not None:
            stop_site(server)
        stop_process(fake)


def main(argv: list[str] | None = None) -> int:
    """Run the rounds and report; 1 when a target is missed, 3 when it could not run."""
    args = parse_args(argv)
    lacking = check_machine(args, h2load_installed=static_load.available())
    if lacking:
        print(lacking, file=sys.stderr)
        return 3
    stack = StackInfo.load() if args.stack else None
    if stack and not stack.emailjs_port:
        print("The stack was not started with EMAILJS_API_BASE=http://127.0.0.1:<port> "
              "(the fake EmailJS): see docs/loadtest.md.", file=sys.stderr)  # fmt: skip
        return 3
    print(targets_text())
    ctx, rounds = run(args, stack, Path(tempfile.mkdtemp(prefix="loadtest-")))
    knees = None
    if len(args.steps) > 1 or len(args.servers) > 1:
        knees, lines = stepping_summary(rounds)
        print("\n" + "\n".join(lines))
    out = write_results(args, ctx, rounds, knees)
    print(f"\nResults: {out.relative_to(ROOT)}")
    # Each web server's first round and last (the knee's step after it may miss: stepping).
    ends = [
        r
        for name in args.servers
        for r in _ends([r for r in rounds if r.get("server") in (name, None)])
    ]
    return 1 if any(r["misses"] for r in ends) else 0


def _ends(rounds: list[dict]) -> list[dict]:
    return rounds[:1] + rounds[-1:]


if __name__ == "__main__":
    sys.exit(main())

"""A web server's CPU per response on the reader model's requests, without the stack.

    .venv/bin/python -m scripts.loadtest.server_cost --root www/ --server caddy
    .venv/bin/python -m scripts.loadtest.server_cost --root www/ --server nginx --runs 5
    .venv/bin/python -m scripts.loadtest.server_cost --root www/ --config my.Caddyfile
    .venv/bin/python -m scripts.loadtest.server_cost --root www/ --pprof caddy.pb.gz

``--root`` is an exported site (``frontend.zip`` unpacked; its pages must name their
files on loopback, as an export made for ``http://localhost:<port>`` does). The server
is started here on a free loopback port from the file the deploy code renders for a
local site (``agency_site/deploy/caddy.py`` or ``nginx.py``: every header, the access
log, the precompressed siblings, the not-found pages; backends that nobody reaches) or
from ``--config`` (a Caddyfile to compare, e.g. the rendered one edited: its site
address ``http://:<port>`` and its ``admin`` address are replaced by free ones). Then each run sends
``--readers`` h2load readers (``static_load.py``: one HTTP/1.1 connection each, the
reader model's page load and three navigations, created ``--rate`` a second) and reads
the server's CPU time (user + system, ``/proc/<pid>/stat``, every process of it) before
and after: CPU per response, and its peak RSS (``VmHWM``). Caddy's Go runtime gets what
a prepared host's ``caddy.service`` gets (``CADDY_ENVIRONMENT``), or ``--env``.

``--pprof FILE`` (Caddy) also records a CPU profile of one run through Caddy's admin
endpoint (Go's ``/debug/pprof/profile``): read it with ``go tool pprof -top FILE``.
docs/loadtest.md ("Where Caddy's time goes") has the figures this measured.
"""

import argparse
import asyncio
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts import local_servers  # noqa: E402
from scripts.loadtest import static_load  # noqa: E402
from scripts.loadtest.readers import ReaderModel  # noqa: E402
from scripts.loadtest.visitors import H2LOAD_VISITS, SCHEDULE, RoundPlan  # noqa: E402
from scripts.prepare_host import CADDY_ENVIRONMENT  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Files of an export that are no page a reader lands on.
NOT_PAGES = ("404", "__spa-fallback")


@dataclass
class Started:
    """A web server started here."""

    process: subprocess.Popen
    url: str
    admin: str = ""  # Caddy's admin endpoint (host:port)
    model_url: str = ""  # Where the reader model is read over HTTP/1.1 (default: ``url``)


def tree(pid: int) -> list[int]:
    """``pid`` and its children (nginx's workers)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return [pid, *children]


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of ``pids`` (``/proc/<pid>/stat`` fields 14 and 15)."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / CLOCK_TICKS


def peak_rss_mib(pids: list[int]) -> float:
    """The summed peak resident memory (``VmHWM``) of ``pids``, in MiB."""
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                total += int(line.split()[1])
    return total / 1024


def _topology(root: Path, port: int, log: Path, admin: str):
    from agency_site.deploy.topology import from_settings
    from agency_site.settings import get_settings

    os.environ.update(
        REFLEX_DEPLOY_URL=f"http://localhost:{port}",
        REFLEX_API_URL=f"http://localhost:{port}",
        DEPLOY_BACKENDS=f"127.0.0.1:{local_servers.free_port()}",
        DEPLOY_ACCESS_LOG=str(log),
    )
    get_settings.cache_clear()
    return from_settings(get_settings(), static_root=str(root), caddy_admin=admin)


def start_caddy(
    root: Path, work: Path, config: Path | None, env: dict[str, str], h2c: bool = False
) -> Started:
    """Caddy from the rendered Caddyfile (or ``config``) on a free port, admin on another
    (``h2c``: HTTP/2 in clear text accepted too)."""
    from agency_site.deploy import caddy

    port, admin = local_servers.free_port(), f"127.0.0.1:{local_servers.free_port()}"
    log = work / "access.log"
    if config is None:
        text = caddy.caddyfile(_topology(root, port, log, admin))
    else:
        text = re.sub(r"http://:\d+", f"http://:{port}", config.read_text())
        text = re.sub(r"(?m)^(\s*admin) \S+$", rf"\1 {admin}", text)
    if h2c:
        text = text.replace("\tservers {\n", "\tservers {\n\t\tprotocols h1 h2 h2c\n", 1)
    (work / "Caddyfile").write_text(text)
    process = subprocess.Popen(
        ["caddy", "run", "--config", str(work / "Caddyfile"), "--adapter", "caddyfile"],
        env={
            **os.environ,
            **CADDY_ENVIRONMENT,
            **env,
            "XDG_DATA_HOME": str(work),
            "XDG_CONFIG_HOME": str(work),
            "HOME": str(work),
        },
        stdout=(work / "caddy.log").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    local_servers.wait_for_port(port)
    return Started(process, f"http://127.0.0.1:{port}", admin)


def start_nginx(root: Path, work: Path, workers: str, h2c: bool = False) -> Started:
    """nginx from the rendered server block on a free port, ``workers`` worker processes
    (``h2c``: HTTP/2 in clear text only on that port)."""
    from agency_site.deploy import nginx

    port = local_servers.free_port()
    prefix = work / "nginx"
    prefix.mkdir(exist_ok=True)
    topology = _topology(root, port, prefix / "access.log", "off")
    site = nginx.server_block(topology)
    model_port = local_servers.free_port()
    if h2c:  # nginx speaks h2c only on a port of its own: the model is read on another.
        site = site.replace(f"listen {port} ", f"listen {model_port};\n    listen {port} http2 ", 1)
    (prefix / "agency_site.conf").write_text(site)
    main = nginx.standalone_config(str(prefix)).replace(
        "worker_processes auto;", f"worker_processes {workers};"
    )
    (prefix / "nginx.conf").write_text(main)
    process = subprocess.Popen(
        ["nginx", "-c", str(prefix / "nginx.conf"), "-p", str(prefix), "-g", "daemon off;"],
        start_new_session=True,
    )
    local_servers.wait_for_port(port)
    model = f"http://127.0.0.1:{model_port}" if h2c else ""
    return Started(process, f"http://127.0.0.1:{port}", model_url=model)


def pages_of(root: Path) -> list[str]:
    """The default language's page paths of an export (``about.html`` → ``/about``)."""
    names = sorted(p.name.removesuffix(".html") for p in root.glob("*.html"))
    return ["/" if name == "index" else f"/{name}" for name in names if name not in NOT_PAGES]


def visits(url: str, pages: list[str]) -> list[list[list[str]]]:
    """The load test's h2load visits (Home and three other landings, three navigations)."""
    model = ReaderModel(url + "/")
    rng = random.Random("server-cost")
    others = [p for p in pages if p not in ("/", SCHEDULE)]
    landings = ["/", *rng.sample(others, min(H2LOAD_VISITS - 1, len(others)))]
    return [model.visit(RoundPlan.visit_of(pages, 3, rng, landing)) for landing in landings]


def _record_profile(admin: str, seconds: int, out: Path) -> threading.Thread:
    def fetch() -> None:
        url = f"http://{admin}/debug/pprof/profile?seconds={seconds}"
        with urllib.request.urlopen(url, timeout=seconds + 30) as answer:
            out.write_bytes(answer.read())

    thread = threading.Thread(target=fetch)
    thread.start()
    return thread


def measure(
    started: Started, steps, readers: int, rate: int, work: Path, h2c: bool = False
) -> dict:
    """One run: the readers through the server, its CPU and peak RSS around them."""
    pids = tree(started.process.pid)
    before, wall = cpu_seconds(pids), time.monotonic()
    ramp = readers / rate
    result = asyncio.run(static_load.run(steps, started.url, readers, ramp, 30.0, work, h2c))
    cpu = cpu_seconds(pids) - before
    return {
        "requests": result.requests,
        "failed": result.failed + result.not_2xx,
        "cpu_ms_per_response": 1000 * cpu / max(result.requests, 1),
        "cpu_share": cpu / (time.monotonic() - wall),
        "peak_rss_mib": peak_rss_mib(pids),
        "load_1m": os.getloadavg()[0],
        "h2load_cpu_s": result.cpu_s,
    }


def main(argv: list[str] | None = None) -> int:
    """Start the server, warm it, run the readers ``--runs`` times, print a line per run."""
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--root", type=Path, required=True, help="the exported site, unpacked")
    cli.add_argument("--server", choices=("caddy", "nginx"), default="caddy")
    cli.add_argument("--config", type=Path, help="a Caddyfile instead of the rendered one")
    cli.add_argument("--readers", type=int, default=4000, help="h2load readers per run")
    cli.add_argument("--rate", type=int, default=500, help="readers created per second")
    cli.add_argument("--runs", type=int, default=3)
    cli.add_argument("--workers", default="1", help="nginx's worker_processes (1: per core)")
    cli.add_argument("--env", action="append", default=[], help="NAME=VALUE for Caddy")
    cli.add_argument("--pprof", type=Path, help="Caddy: a CPU profile of the first run")
    cli.add_argument("--label", default="", help="a name for the printed lines")
    cli.add_argument("--h2c", action="store_true", help="HTTP/2 in clear text, not HTTP/1.1")
    args = cli.parse_args(argv)
    root = args.root.resolve()
    env = dict(item.split("=", 1) for item in args.env)
    work = Path(tempfile.mkdtemp(prefix="server-cost-"))
    work.chmod(0o755)
    if args.server == "caddy":
        started = start_caddy(root, work, args.config, env, args.h2c)
    else:
        started = start_nginx(root, work, args.workers, args.h2c)
    label = args.label or (args.config.name if args.config else args.server)
    try:
        steps = visits(started.model_url or started.url, pages_of(root))
        requests = sum(len(files) for step in steps for files in step) / len(steps)
        print(f"{label}: {started.url}, {requests:.1f} requests a reader", flush=True)
        measure(started, steps, min(args.readers, 500), args.rate, work, args.h2c)  # warm
        for run in range(args.runs):
            profile = None
            if args.pprof and run == 0 and started.admin:
                seconds = max(int(args.readers / args.rate), 1)
                profile = _record_profile(started.admin, seconds, args.pprof)
            r = measure(started, steps, args.readers, args.rate, work, args.h2c)
            if profile is not None:
                profile.join()
            print(
                f"{label} run {run + 1}: {r['requests']} requests ({r['failed']} failed), "
                f"{r['cpu_ms_per_response']:.4f} ms CPU per response, "
                f"{100 * r['cpu_share']:.0f}% of a core, peak RSS {r['peak_rss_mib']:.0f} MiB, "
                f"load {r['load_1m']:.2f}",
                flush=True,
            )
    finally:
        local_servers.stop_pid(started.process.pid)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

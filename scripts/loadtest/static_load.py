"""Readers driven by ``h2load`` (Debian's nghttp2-client), a compiled HTTP load tool.

A Python generator on this box cannot issue the ~17,000 requests per second of
10,000 readers in 20 s, so the bulk of the readers are h2load clients fed the
reader model's own request lists (``readers.py``): one client is one reader on one
HTTP/1.1 connection, created at a fixed rate over the ramp, fetching its page's HTML
and files and then, after a pause, each navigation's new route modules
(``--timing-script-file``: offsets in ms, then the URI). One h2load process per
distinct visit (landing page and navigations), the readers shared among them.
"""

import asyncio
import math
import re
import resource
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from scripts.loadtest.readers import ACCEPT_ENCODING

H2LOAD = "h2load"
NAV_PAUSE_MS = 1000.0  # a reader reads this long before each client-side navigation
RATE_PERIOD_S = 0.1
_COUNTS = re.compile(
    r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
    r"(\d+) failed, (\d+) errored, (\d+) timeout"
)
_STATUS = re.compile(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx")


def available() -> bool:
    """Whether h2load is installed (``apt-get install nghttp2-client``)."""
    return shutil.which(H2LOAD) is not None


@dataclass
class StaticResult:
    """What the h2load readers did, summed over the processes."""

    readers: int = 0
    requests: int = 0
    succeeded: int = 0
    failed: int = 0  # failed + errored + timeout, as h2load counts them
    not_2xx: int = 0
    request_s: list[float] = field(default_factory=list)
    cpu_s: float = 0.0
    errors: list[str] = field(default_factory=list)

    def add(self, output: str, log: Path) -> None:
        """Add one process's summary (stdout) and its per-request log."""
        counts, status = _COUNTS.search(output), _STATUS.search(output)
        if not counts or not status:
            self.errors.append(output.strip()[-300:] or "h2load printed nothing")
            return
        total, _, _, ok, failed, errored, timeout = map(int, counts.groups())
        self.requests += total
        self.succeeded += ok
        self.failed += failed + errored + timeout
        self.not_2xx += sum(map(int, status.groups()[1:]))
        for line in log.read_text().splitlines() if log.exists() else []:
            parts = line.split("\t")
            if len(parts) >= 3 and parts[1] != "-1":
                self.request_s.append(int(parts[2]) / 1e6)


def timing_script(steps: list[list[str]], base_url: str, pause_ms: float = NAV_PAUSE_MS) -> str:
    """h2load's timing script of one visit: the page load at once, each navigation later."""
    lines = []
    for n, files in enumerate(steps):
        lines += [f"{n * pause_ms:.3f}\t{base_url}{path}" for path in files]
    return "\n".join(lines) + "\n"


def command(
    script: Path, requests: int, log: Path, clients: int, ramp_s: float, timeout_s: float,
    h2c: bool = False,
) -> list[str]:  # fmt: skip
    """One h2load process: ``clients`` readers created evenly over ``ramp_s``, each
    making the ``requests`` of the timing script (over HTTP/1.1, or ``h2c``: HTTP/2 in
    clear text, one stream at a time as a page's requests in order)."""
    periods = max(ramp_s / RATE_PERIOD_S, 1.0)
    rate = max(math.ceil(clients / periods), 1)
    return [
        H2LOAD,
        *([] if h2c else ["--h1"]),
        "--threads=1",
        f"--clients={clients}",
        f"--rate={rate}",
        f"--rate-period={RATE_PERIOD_S * 1000:.0f}ms",
        "--max-concurrent-streams=1",
        f"--timing-script-file={script}",
        f"--requests={requests}",  # with a timing script: per client
        f"--header=accept-encoding: {ACCEPT_ENCODING}",
        f"--connection-inactivity-timeout={timeout_s:.0f}",
        f"--log-file={log}",
    ]


async def run(
    visits: list[list[list[str]]], base_url: str, readers: int, ramp_s: float, timeout_s: float,
    workdir: Path, h2c: bool = False,
) -> StaticResult:  # fmt: skip
    """Drive ``readers`` h2load readers, shared among ``visits``; their summed result."""
    result = StaticResult(readers=readers)
    shares = [readers // len(visits) + (i < readers % len(visits)) for i in range(len(visits))]
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    jobs = []
    for i, (steps, clients) in enumerate(zip(visits, shares, strict=True)):
        if clients:
            script, log = workdir / f"h2load-{i}.tsv", workdir / f"h2load-{i}.log"
            script.write_text(timing_script(steps, base_url))
            log.unlink(missing_ok=True)  # h2load appends
            requests = sum(map(len, steps))
            cmd = command(script, requests, log, clients, ramp_s, timeout_s, h2c)
            jobs.append((cmd, log))
    procs = [
        await asyncio.create_subprocess_exec(
            *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        for cmd, _ in jobs
    ]
    outputs = await asyncio.gather(*(p.communicate() for p in procs))
    for (out, _), (_, log) in zip(outputs, jobs, strict=True):
        result.add(out.decode(errors="replace"), log)
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    result.cpu_s = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return result

"""Lighthouse benchmark of the production build: one table, non-zero exit on a missed budget.

    make bench                                   # every route, 3 runs each
    make bench BENCH_ARGS="--routes / /about --runs 1"
    make bench BENCH_ARGS="--idle-load 1.5"      # each route waits for a quiet machine
    make bench BENCH_ARGS="--routes / --baseline 9dc082f"   # Home's JS against another build
    .venv/bin/python -m scripts.bench --help

Builds and serves the site exactly like ``reflex run --env prod --frontend-port PORT``
(the browser tests' server), runs Lighthouse (mobile preset, simulated
throttling) with Debian's Chromium over each route, keeps the median of the
runs and checks the budgets below. Reports land in bench-results/.

Then what a reader of Home downloads (``desk_check``): Home loaded in Chromium, and its hero
form used (the token, the websocket's chunk), must fetch nothing of the owner's desk
(``paths.DESK``, pages the backend renders: no URL under it, no body naming it, none of its
static files), and no file of the build may name it. With ``--baseline REF`` the same reader's
scripts are compared with those of REF's build (a worktree of that commit, served the same
way): as many scripts, the same bytes within the noise of Reflex's build-time stamp.
"""

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from agency_site import paths
from agency_site.desk import static as desk_static
from agency_site.forms.declarations import HERO
from agency_site.routes import ROUTES
from scripts import node_tools
from scripts.production_site import (
    CHROMIUM_ARGS,
    SiteServer,
    chromium_path,
    headless_shell_path,
    own_web_workdir,
    start_site,
    stop_site,
)

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "bench-results"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync --no-first-run --disable-quic"
)

# Budgets: category scores (0-100) for every route; bytes and CLS as noted.
MIN_SCORES = {"performance": 100, "accessibility": 100, "best-practices": 100, "seo": 100}
# Home's first load: JavaScript as Lighthouse counts it (bytes transferred, headers
# included, brotli where the browser takes it), and how many scripts it requests.
HOME_MAX_JS_BYTES = 150 * 1024
HOME_MAX_JS_REQUESTS = 15
HOME_MAX_CSS_BYTES = 20 * 1024  # gzip size
MAX_CLS = 0.01
ATTEMPTS = 3
# A quiet machine (``--idle-load``): its 1-minute load average polled this often, this long.
IDLE_POLL_S = 60
IDLE_MAX_WAIT_S = 40 * 60
# Two builds of the same code differ in Reflex's build time, written into a shared chunk
# (same length) and so into the hashed names of the files importing it: the raw bytes of
# Home's scripts are equal, their brotli sizes move by about 80 bytes (docs/architecture.md,
# the desk's measures). Allowed between a build and its baseline:
BASELINE_RAW_NOISE = 16
BASELINE_BROTLI_NOISE = 256


@dataclass
class Result:
    """Median Lighthouse figures of one route, and the machine's load when it was measured."""

    path: str
    scores: dict[str, float]
    fcp_ms: float
    lcp_ms: float
    tbt_ms: float
    cls: float
    js_bytes: int
    css_bytes: int
    js_gzip: int
    css_gzip: int
    js_requests: int
    load: float = 0.0  # 1-minute load average when its first run started.

    def misses(self) -> list[str]:
        """The budgets this route misses."""
        missed = [
            f"{self.path}: {name} {self.scores[name]:.0f} < {minimum}"
            for name, minimum in MIN_SCORES.items()
            if self.scores[name] < minimum
        ]
        if self.cls > MAX_CLS:
            missed.append(f"{self.path}: CLS {self.cls:.3f} > {MAX_CLS}")
        if self.path == paths.HOME:
            if self.js_bytes > HOME_MAX_JS_BYTES:
                missed.append(f"Home JS {_kb(self.js_bytes)} > {_kb(HOME_MAX_JS_BYTES)}")
            if self.js_requests > HOME_MAX_JS_REQUESTS:
                missed.append(f"Home {self.js_requests} script requests > {HOME_MAX_JS_REQUESTS}")
            if self.css_gzip > HOME_MAX_CSS_BYTES:
                missed.append(f"Home CSS {_kb(self.css_gzip)} gzip > {_kb(HOME_MAX_CSS_BYTES)}")
        return missed


def _kb(size: int) -> str:
    return f"{size / 1024:.1f} KB"


def run_lighthouse(url: str, report: Path) -> dict:
    """One Lighthouse run (mobile preset); the parsed JSON report."""
    command = [
        str(node_tools.node_bin("lighthouse", "lighthouse")),
        url,
        f"--only-categories={','.join(CATEGORIES)}",
        "--output=json",
        f"--output-path={report}",
        f"--chrome-flags={CHROME_FLAGS}",
        "--quiet",
    ]
    env = {**os.environ, "CHROME_PATH": chromium_path()}
    for attempt in range(1, ATTEMPTS + 1):
        # Lighthouse now and then fails to record a trace (NO_NAVSTART): run it again.
        done = subprocess.run(command, env=env, cwd=ROOT, timeout=300, check=attempt == ATTEMPTS)
        if done.returncode == 0:
            break
    return json.loads(report.read_text())


def _requests(report: dict, resource_type: str) -> list[dict]:
    """The network requests of one resource type during the load."""
    items = report["audits"]["network-requests"]["details"]["items"]
    return [i for i in items if i.get("resourceType") == resource_type]


def _transfer_bytes(report: dict, resource_type: str) -> int:
    """Bytes transferred (brotli where the browser takes it) for one resource type."""
    return sum(int(i.get("transferSize") or 0) for i in _requests(report, resource_type))


def _gzip_bytes(report: dict, resource_type: str, static_dir: Path) -> int:
    """Gzip size of the same files, from the build's .gz siblings (what the budget counts):
    the build the site serves, under ``static_dir``."""
    total = 0
    for item in _requests(report, resource_type):
        sibling = static_dir / (urlsplit(item["url"]).path.lstrip("/") + ".gz")
        total += sibling.stat().st_size if sibling.exists() else int(item.get("transferSize") or 0)
    return total


def summarize(path: str, reports: list[dict], static_dir: Path, load: float = 0.0) -> Result:
    """The median figures of one route's Lighthouse reports."""

    def median(values) -> float:
        return statistics.median(values)

    def audit(name: str) -> float:
        return median(r["audits"][name]["numericValue"] for r in reports)

    return Result(
        path=path,
        scores={c: median(r["categories"][c]["score"] * 100 for r in reports) for c in CATEGORIES},
        fcp_ms=audit("first-contentful-paint"),
        lcp_ms=audit("largest-contentful-paint"),
        tbt_ms=audit("total-blocking-time"),
        cls=audit("cumulative-layout-shift"),
        js_bytes=int(median(_transfer_bytes(r, "Script") for r in reports)),
        css_bytes=int(median(_transfer_bytes(r, "Stylesheet") for r in reports)),
        js_gzip=int(median(_gzip_bytes(r, "Script", static_dir) for r in reports)),
        css_gzip=int(median(_gzip_bytes(r, "Stylesheet", static_dir) for r in reports)),
        js_requests=int(median(len(_requests(r, "Script")) for r in reports)),
        load=load,
    )


def measure(site: SiteServer, path: str, runs: int, load: float = 0.0) -> Result:
    """Median figures of ``runs`` Lighthouse runs of one route."""
    name = (path.strip("/") or "home").replace("/", "_")
    reports = [
        run_lighthouse(site.url + path, RESULTS_DIR / f"{name}-{run + 1}.json")
        for run in range(runs)
    ]
    return summarize(path, reports, site.web_dir / "build" / "client", load)


def wait_for_idle(
    max_load: float,
    *,
    poll_s: float = IDLE_POLL_S,
    max_wait_s: float = IDLE_MAX_WAIT_S,
    loadavg: Callable[[], tuple[float, float, float]] = os.getloadavg,
    sleep: Callable[[float], None] = time.sleep,
) -> float:
    """Wait until the 1-minute load average is under ``max_load`` (polled every ``poll_s``,
    at most ``max_wait_s``); the load average then (still high if the wait ran out)."""
    waited = 0.0
    load = loadavg()[0]
    while load >= max_load and waited < max_wait_s:
        print(f"  load average {load:.2f} >= {max_load}: waiting {poll_s:.0f}s", flush=True)
        sleep(poll_s)
        waited += poll_s
        load = loadavg()[0]
    return load


def table(results: list[Result]) -> str:
    """The results as one aligned text table."""
    header = ("route", "Perf", "A11y", "BP", "SEO", "FCP", "LCP", "TBT", "CLS", "JS",
              "scripts", "CSS", "load")  # fmt: skip
    rows = [
        (
            r.path,
            *(f"{r.scores[c]:.0f}" for c in CATEGORIES),
            f"{r.fcp_ms / 1000:.2f}s",
            f"{r.lcp_ms / 1000:.2f}s",
            f"{r.tbt_ms:.0f}ms",
            f"{r.cls:.3f}",
            _kb(r.js_bytes),
            str(r.js_requests),
            _kb(r.css_bytes),
            f"{r.load:.2f}",
        )
        for r in results
    ]
    widths = [max(len(str(row[i])) for row in (header, *rows)) for i in range(len(header))]
    lines = [
        "  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
        for row in (header, *rows)
    ]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


# What a reader of Home downloads, and the owner's desk.


@dataclass(frozen=True)
class Fetched:
    """One response the reader's browser received: its URL, resource type, body."""

    url: str
    resource_type: str
    body: bytes


@dataclass(frozen=True)
class Script:
    """One script of Home's load: its path, its bytes, its brotli sibling's in the build."""

    path: str
    raw: int
    brotli: int


@dataclass
class ReaderVisit:
    """What a reader's browser fetched: loading Home, then using its hero form."""

    load: list[Fetched] = field(default_factory=list)
    form: list[Fetched] = field(default_factory=list)


def desk_files() -> dict[str, bytes]:
    """The desk's static files (``desk/static``) by the name the desk serves them under."""
    return {
        desk_static.PREFIX + served: (desk_static.FOLDER / file).read_bytes()
        for served, file in desk_static.hashed_names().items()
    }


def desk_leaks(fetched: list[Fetched], files: dict[str, bytes]) -> list[str]:
    """What of the desk ``fetched`` holds: a URL under ``paths.DESK``, a body naming it or
    a desk file's name, a body that is one of the desk's files."""
    digests = {hashlib.sha256(body).hexdigest(): name for name, body in files.items()}
    names = [name.rsplit("/", 1)[-1].encode() for name in files]
    leaks = []
    for item in fetched:
        where = urlsplit(item.url).path
        if where == paths.DESK or where.startswith(paths.DESK + "/"):
            leaks.append(f"{item.url}: a desk URL")
        if paths.DESK.encode() in item.body or any(name in item.body for name in names):
            leaks.append(f"{item.url}: names the desk ({paths.DESK})")
        if (digest := hashlib.sha256(item.body).hexdigest()) in digests:
            leaks.append(f"{item.url}: is the desk's {digests[digest]}")
    return leaks


def build_leaks(client_dir: Path, files: dict[str, bytes]) -> list[str]:
    """The files of a frontend build (``build/client``) that name the desk or one of its
    static files (compressed siblings are copies of the files they sit beside)."""
    needles = [paths.DESK.encode()] + [name.rsplit("/", 1)[-1].encode() for name in files]
    return [
        f"{file.relative_to(client_dir)}: names the desk"
        for file in sorted(client_dir.rglob("*"))
        if file.is_file()
        and file.suffix not in (".br", ".gz", ".zst")
        and any(needle in file.read_bytes() for needle in needles)
    ]


def home_scripts(visit: ReaderVisit, client_dir: Path) -> list[Script]:
    """The scripts of Home's load, with their brotli siblings' sizes in the build."""
    scripts = []
    for item in visit.load:
        if item.resource_type != "script":
            continue
        where = urlsplit(item.url).path
        sibling = client_dir / (where.lstrip("/") + ".br")
        scripts.append(
            Script(where, len(item.body), sibling.stat().st_size if sibling.exists() else 0)
        )
    return sorted(scripts, key=lambda s: s.path)


def compare_scripts(current: list[Script], baseline: list[Script]) -> list[str]:
    """How Home's scripts differ from the baseline's beyond the build-time stamp's noise."""
    problems = []
    if len(current) != len(baseline):
        problems.append(f"Home loads {len(current)} scripts, the baseline {len(baseline)}")
    raw = sum(s.raw for s in current) - sum(s.raw for s in baseline)
    if abs(raw) > BASELINE_RAW_NOISE:
        problems.append(f"Home's scripts are {raw:+,} bytes against the baseline's")
    brotli = sum(s.brotli for s in current) - sum(s.brotli for s in baseline)
    if abs(brotli) > BASELINE_BROTLI_NOISE:
        problems.append(f"Home's scripts are {brotli:+,} bytes brotli against the baseline's")
    return problems


# Everything a reader of Home fetches: loading it, then the first focus in its hero form
# (the form's token, the websocket and its chunk).
_HYDRATED = "html[data-hydrated='true']"


def reader_visit(base_url: str) -> ReaderVisit:
    """Home loaded in a fresh Chromium context until its network is quiet, then its hero
    form's field focused and typed into; every response's body, in order."""
    from playwright.sync_api import sync_playwright

    visit = ReaderVisit()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=headless_shell_path(), args=CHROMIUM_ARGS, headless=True
        )
        try:
            page = browser.new_context().new_page()
            into = visit.load

            def keep(response) -> None:
                with contextlib.suppress(Exception):  # A redirect or an aborted fetch: no body.
                    into.append(
                        Fetched(response.url, response.request.resource_type, response.body())
                    )

            page.on("response", keep)
            page.goto(base_url + paths.HOME, wait_until="networkidle")
            page.wait_for_selector(_HYDRATED, state="attached")
            page.wait_for_load_state("networkidle")
            into = visit.form
            field = page.locator(f"#{HERO.field_id(HERO.fields[0].name)}")
            field.click()
            field.press_sequentially("ana@")
            page.wait_for_timeout(2000)
            page.wait_for_load_state("networkidle")
        finally:
            browser.close()
    return visit


@dataclass
class DeskCheck:
    """The desk check's findings and Home's scripts (and the baseline's, if asked)."""

    leaks: list[str]
    scripts: list[Script]
    baseline: list[Script] | None = None
    baseline_ref: str = ""

    def misses(self) -> list[str]:
        missed = [f"desk: {leak}" for leak in self.leaks]
        if self.baseline is not None:
            missed += [
                f"{problem} ({self.baseline_ref})"
                for problem in compare_scripts(self.scripts, self.baseline)
            ]
        return missed

    def report(self) -> str:
        """What a reader of Home downloads, in lines."""
        lines = [
            f"Home, what a reader downloads: {len(self.scripts)} scripts, "
            f"{sum(s.raw for s in self.scripts):,} bytes "
            f"({_kb(sum(s.brotli for s in self.scripts))} brotli); nothing of the desk"
            if not self.leaks
            else f"Home fetched something of the desk: {len(self.leaks)} finding(s)"
        ]
        if self.baseline is not None:
            lines.append(
                f"Baseline {self.baseline_ref}: {len(self.baseline)} scripts, "
                f"{sum(s.raw for s in self.baseline):,} bytes "
                f"({_kb(sum(s.brotli for s in self.baseline))} brotli)"
            )
        return "\n".join(lines)


def desk_check(site: SiteServer) -> tuple[DeskCheck, ReaderVisit]:
    """Home and its hero form as a reader uses them, and the build the site serves, against
    the desk; Home's scripts."""
    files = desk_files()
    visit = reader_visit(site.url)
    client_dir = site.web_dir / "build" / "client"
    leaks = desk_leaks(visit.load + visit.form, files) + build_leaks(client_dir, files)
    return DeskCheck(leaks, home_scripts(visit, client_dir)), visit


# The baseline's own production_site starts its site (same way as this one), says where,
# and stops it when its standard input closes.
_BASELINE_DRIVER = """
import sys, tempfile
from pathlib import Path
from scripts.production_site import start_site, stop_site
site = start_site({}, Path(tempfile.mkdtemp(prefix="bench-baseline-site-")))
print("SITE", site.url, site.web_dir, flush=True)
try:
    sys.stdin.read()
finally:
    stop_site(site)
"""


# This tree without the desk: its one mount (agency_site.py) unplugged, exact text each.
APP_MODULE = "agency_site/agency_site.py"
DESK_MOUNT = ("from agency_site.desk.runtime import desk_api\n", "desk_api(), ")
# The baseline when none is named: this checkout's tree, the desk unplugged.
WITHOUT_DESK = "without-desk"


class BaselineError(RuntimeError):
    """The baseline cannot be built as asked (the desk's mount moved, a build failed)."""


def unplug_desk(app_source: str) -> str:
    """The app module's text without the desk: its import and its mount removed (each must
    occur exactly once, else ``BaselineError``)."""
    for anchor in DESK_MOUNT:
        if app_source.count(anchor) != 1:
            msg = (
                f"{APP_MODULE}: {anchor.strip()!r} occurs {app_source.count(anchor)} time(s), "
                "expected once: update scripts/bench.py's DESK_MOUNT"
            )
            raise BaselineError(msg)
        app_source = app_source.replace(anchor, "")
    return app_source


def _baseline_tree(ref: str, tree: Path) -> None:
    """A detached worktree at ``tree``: REF's, or for ``WITHOUT_DESK`` this checkout's (HEAD
    and its uncommitted changes to tracked files) with the desk unplugged."""
    commit = "HEAD" if ref == WITHOUT_DESK else ref
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=ROOT,
                   check=True)  # fmt: skip
    if ref != WITHOUT_DESK:
        return
    changes = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=ROOT, check=True,
                             capture_output=True).stdout  # fmt: skip
    if changes:
        subprocess.run(["git", "apply", "--whitespace=nowarn"], cwd=tree, input=changes,
                       check=True)  # fmt: skip
    app = tree / APP_MODULE
    app.write_text(unplug_desk(app.read_text()))


@contextlib.contextmanager
def baseline_site(ref: str) -> Iterator[tuple[str, Path]]:
    """The baseline's production build served on a free port (its URL and build folder): a
    worktree (``_baseline_tree``), its ``.web`` copied from this checkout's (packages
    hard-linked), started by its own ``scripts/production_site.py``; all removed after."""
    folder = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
    tree = folder / "tree"
    process = None
    try:
        _baseline_tree(ref, tree)
        own_web_workdir(tree / ".web")  # This checkout's packages: no second npm install.
        process = subprocess.Popen(
            [sys.executable, "-c", _BASELINE_DRIVER],
            cwd=tree,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        line = process.stdout.readline().split()
        if not line or line[0] != "SITE":
            raise BaselineError(f"The baseline {ref} did not start (its output is above)")
        yield line[1], Path(line[2]) / "build" / "client"
    finally:
        if process is not None:
            process.stdin.close()
            process.wait(timeout=60)
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                       check=False, capture_output=True)  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


def baseline_scripts(ref: str) -> list[Script]:
    """Home's scripts in the baseline's build, read as ``desk_check`` reads this one's."""
    with baseline_site(ref) as (url, client_dir):
        return home_scripts(reader_visit(url), client_dir)


def main() -> int:
    """Build, serve, measure, print, check."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--routes", nargs="+", metavar="PATH", help="only these paths (default: all)"
    )
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per route (median)")
    parser.add_argument("--idle-load", type=float, default=0.0, metavar="LOAD",
                        help="before each route, wait (polling each minute, up to 40 minutes) "
                        "until the 1-minute load average is under LOAD")  # fmt: skip
    parser.add_argument("--baseline", metavar="REF", default=WITHOUT_DESK,
                        help="compare Home's scripts with the build of this commit (e.g. "
                        "9dc082f, the last before the desk); default: this tree with the "
                        f"desk unplugged ({WITHOUT_DESK})")  # fmt: skip
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the baseline's build and comparison (a quick run)")  # fmt: skip
    args = parser.parse_args()
    known = [r.path for r in ROUTES]
    selected = args.routes or known
    unknown = sorted(set(selected) - set(known))
    if unknown:
        parser.error(f"unknown routes: {unknown}")

    RESULTS_DIR.mkdir(exist_ok=True)
    node_tools.ensure("lighthouse")
    started = time.monotonic()
    site = start_site({}, Path(tempfile.mkdtemp(prefix="bench-")))
    print(f"Production site up at {site.url} after {time.monotonic() - started:.0f}s", flush=True)
    try:
        desk, _ = desk_check(site)
        print(desk.report(), flush=True)
        results = []
        for path in selected:
            load = wait_for_idle(args.idle_load) if args.idle_load else os.getloadavg()[0]
            results.append(measure(site, path, args.runs, load))
            print(f"  measured {path} (load average {load:.2f} at its start)", flush=True)
    finally:
        stop_site(site)
    if not args.no_baseline:
        print(f"Building the baseline ({args.baseline})...", flush=True)
        desk.baseline, desk.baseline_ref = baseline_scripts(args.baseline), args.baseline

    print()
    print(table(results))
    print(f"\n{len(results)} routes x {args.runs} runs in {time.monotonic() - started:.0f}s")
    print("JS/CSS: bytes transferred, headers included (Lighthouse's transferSize); "
          "load: the 1-minute load average when the route's first run started.")  # fmt: skip
    for r in results:
        if r.path == paths.HOME:
            print(
                f"Home first load: JS {_kb(r.js_bytes)} in {r.js_requests} scripts "
                f"({_kb(r.js_gzip)} gzip of code), CSS {_kb(r.css_gzip)} gzip"
            )
    print(desk.report())
    misses = [miss for r in results for miss in r.misses()] + desk.misses()
    for miss in misses:
        print("BUDGET MISSED:", miss)
    if not misses:
        print("All budgets met.")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())

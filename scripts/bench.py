"""Lighthouse benchmark of the production build: one table, non-zero exit on a missed budget.

    make bench                                   # every route, 3 runs each
    make bench BENCH_ARGS="--routes / /about --runs 1"
    .venv/bin/python scripts/bench.py --help

Builds and serves the site exactly like ``reflex run --env prod --frontend-port PORT``
(the browser tests' server), runs Lighthouse (mobile preset, simulated
throttling) with Debian's Chromium over each route, keeps the median of the
runs and checks the budgets below. Reports land in bench-results/.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agency_site import paths  # noqa: E402
from agency_site.routes import ROUTES  # noqa: E402
from scripts import node_tools  # noqa: E402
from scripts.production_site import chromium_path, start_site, stop_site  # noqa: E402

RESULTS_DIR = ROOT / "bench-results"
STATIC_DIR = ROOT / ".web" / "build" / "client"
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


@dataclass
class Result:
    """Median Lighthouse figures of one route."""

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


def _gzip_bytes(report: dict, resource_type: str) -> int:
    """Gzip size of the same files, from the build's .gz siblings (what the budget counts)."""
    total = 0
    for item in _requests(report, resource_type):
        sibling = STATIC_DIR / (urlsplit(item["url"]).path.lstrip("/") + ".gz")
        total += sibling.stat().st_size if sibling.exists() else int(item.get("transferSize") or 0)
    return total


def measure(base_url: str, path: str, runs: int) -> Result:
    """Median figures of ``runs`` Lighthouse runs of one route."""
    url = base_url + path
    reports = []
    for run in range(runs):
        name = (path.strip("/") or "home").replace("/", "_")
        reports.append(run_lighthouse(url, RESULTS_DIR / f"{name}-{run + 1}.json"))

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
        js_gzip=int(median(_gzip_bytes(r, "Script") for r in reports)),
        css_gzip=int(median(_gzip_bytes(r, "Stylesheet") for r in reports)),
        js_requests=int(median(len(_requests(r, "Script")) for r in reports)),
    )


def table(results: list[Result]) -> str:
    """The results as one aligned text table."""
    header = (
        "route",
        "Perf",
        "A11y",
        "BP",
        "SEO",
        "FCP",
        "LCP",
        "TBT",
        "CLS",
        "JS",
        "scripts",
        "CSS",
    )
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
        )
        for r in results
    ]
    widths = [max(len(str(row[i])) for row in (header, *rows)) for i in range(len(header))]
    lines = [
        "  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True))
        for row in (header, *rows)
    ]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def main() -> int:
    """Build, serve, measure, print, check."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--routes", nargs="+", metavar="PATH", help="only these paths (default: all)"
    )
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per route (median)")
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
        results = []
        for path in selected:
            results.append(measure(site.url, path, args.runs))
            print(f"  measured {path}", flush=True)
    finally:
        stop_site(site)

    print()
    print(table(results))
    print(f"\n{len(results)} routes x {args.runs} runs in {time.monotonic() - started:.0f}s")
    print("JS/CSS: bytes transferred, headers included (Lighthouse's transferSize).")
    for r in results:
        if r.path == paths.HOME:
            print(
                f"Home first load: JS {_kb(r.js_bytes)} in {r.js_requests} scripts "
                f"({_kb(r.js_gzip)} gzip of code), CSS {_kb(r.css_gzip)} gzip"
            )
    misses = [miss for r in results for miss in r.misses()]
    for miss in misses:
        print("BUDGET MISSED:", miss)
    if not misses:
        print("All budgets met.")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())

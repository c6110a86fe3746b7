"""What ``make bench`` (scripts/bench.py) reads of a Lighthouse report, the budgets it
checks, the quiet machine it waits for, and its check that a reader of Home downloads
nothing of the owner's desk: fixture reports and files, no browser, no build."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agency_site import paths
from scripts import bench
from scripts.bench import (
    BASELINE_BROTLI_NOISE,
    BASELINE_RAW_NOISE,
    DESK_MOUNT,
    BaselineError,
    DeskCheck,
    Fetched,
    ReaderVisit,
    Script,
    build_leaks,
    compare_scripts,
    desk_files,
    desk_leaks,
    home_scripts,
    summarize,
    table,
    unplug_desk,
    wait_for_idle,
)

ROOT = Path(__file__).resolve().parents[1]


def report(performance: float = 1.0, tbt: float = 0.0, cls: float = 0.0,
           scripts: tuple[tuple[str, int], ...] = (("/assets/a.js", 40_000),)) -> dict:  # fmt: skip
    """A Lighthouse JSON report with what the bench reads of one."""
    items = [{"url": f"http://localhost:3000{p}", "resourceType": "Script", "transferSize": size}
             for p, size in scripts]  # fmt: skip
    items += [
        {"url": "http://localhost:3000/site.css", "resourceType": "Stylesheet", "transferSize": 6_500},
        {"url": "http://localhost:3000/", "resourceType": "Document", "transferSize": 30_000},
        {"url": "http://localhost:3000/hero.avif", "resourceType": "Image"},  # No size.
    ]  # fmt: skip
    audits = {
        "first-contentful-paint": {"numericValue": 900.0},
        "largest-contentful-paint": {"numericValue": 1_500.0},
        "total-blocking-time": {"numericValue": tbt},
        "cumulative-layout-shift": {"numericValue": cls},
        "network-requests": {"details": {"items": items}},
    }
    categories = {c: {"score": 1.0} for c in bench.CATEGORIES}
    categories["performance"] = {"score": performance}
    return {"audits": audits, "categories": categories}


def test_a_route_s_figures_are_the_medians_of_its_runs(tmp_path: Path) -> None:
    runs = [report(0.97, tbt=260), report(1.0, tbt=10), report(1.0, tbt=30, cls=0.02)]
    result = summarize("/about", runs, tmp_path, load=0.8)
    assert result.scores["performance"] == 100
    assert result.scores["seo"] == 100
    assert result.tbt_ms == 30
    assert result.cls == 0
    assert result.js_bytes == 40_000 and result.js_requests == 1
    assert result.css_bytes == 6_500
    assert result.load == 0.8
    assert result.misses() == []


def test_the_gzip_figures_are_the_served_build_s_siblings(tmp_path: Path) -> None:
    """Read from the build the site serves (its own web workdir), not the checkout's .web."""
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "a.js.gz").write_bytes(b"x" * 12_345)
    result = summarize(paths.HOME, [report()], tmp_path)
    assert result.js_gzip == 12_345
    assert result.css_gzip == 6_500  # No sibling: the transferred size.


def test_each_budget_names_what_it_misses(tmp_path: Path) -> None:
    heavy = tuple((f"/assets/{n}.js", 10_000) for n in range(16))
    home = summarize(paths.HOME, [report(0.95, cls=0.05, scripts=heavy)], tmp_path)
    assert home.misses() == [
        "/: performance 95 < 100",
        "/: CLS 0.050 > 0.01",
        "Home JS 156.2 KB > 150.0 KB",
        "Home 16 script requests > 15",
    ]
    # The Home budgets are Home's only.
    other = summarize("/about", [report(scripts=heavy)], tmp_path)
    assert other.misses() == []


def test_the_table_has_a_row_per_route_with_its_load(tmp_path: Path) -> None:
    results = [
        summarize(p, [report()], tmp_path, load=load)
        for p, load in ((paths.HOME, 0.4), ("/ca/about", 1.2))
    ]
    lines = table(results).splitlines()
    assert lines[0].split() == ["route", "Perf", "A11y", "BP", "SEO", "FCP", "LCP", "TBT",
                                "CLS", "JS", "scripts", "CSS", "load"]  # fmt: skip
    assert lines[2].split() == ["/", "100", "100", "100", "100", "0.90s", "1.50s", "0ms",
                                "0.000", "39.1", "KB", "1", "6.3", "KB", "0.40"]  # fmt: skip
    assert lines[3].startswith("/ca/about") and lines[3].endswith("1.20")


def test_the_bench_covers_every_route_in_both_languages() -> None:
    """``make bench`` with no --routes measures every route: the 44 of both languages."""
    from agency_site.routes import ROUTES

    every = [r.path for r in ROUTES]
    assert len(every) == 44
    assert sum(p == "/ca" or p.startswith("/ca/") for p in every) == 22


@given(st.lists(st.floats(min_value=0, max_value=8), min_size=1, max_size=60))
def test_waiting_for_a_quiet_machine_stops_at_the_first_quiet_minute_or_at_the_limit(
    loads: list[float],
) -> None:
    readings = iter(loads + [loads[-1]] * 100)
    slept: list[float] = []
    load = wait_for_idle(1.5, poll_s=60, max_wait_s=40 * 60, loadavg=lambda: (next(readings), 0, 0),
                         sleep=slept.append)  # fmt: skip
    padded = loads + [loads[-1]] * 100
    quiet = next((i for i, value in enumerate(padded) if value < 1.5), None)
    waits = min(quiet if quiet is not None else 40, 40)
    assert slept == [60] * waits
    assert load == padded[waits]


# The desk: what a reader must never fetch.


def test_the_desk_s_files_are_its_static_files_by_their_served_names() -> None:
    files = desk_files()
    assert {name.rsplit("/", 1)[-1].split(".")[0] for name in files} == {"desk", "screens"}
    assert all(name.startswith(f"{paths.DESK}/static/") for name in files)


def test_a_desk_url_a_body_naming_the_desk_or_a_desk_file_is_a_leak() -> None:
    files = {f"{paths.DESK}/static/desk.0123456789ab.js": b"console.log('desk');"}
    clean = [
        Fetched("http://localhost:3000/", "document", b"<html>Hola</html>"),
        Fetched("http://localhost:3000/assets/a.js", "script", b"fetch('/_site/forms/token')"),
        # The desk's prefix as a mere prefix of another path is no desk URL.
        Fetched("http://localhost:3000/_site/deskmate.js", "script", b"1"),
    ]
    assert desk_leaks(clean, files) == []
    leaks = desk_leaks(
        [
            *clean,
            Fetched(f"http://localhost:3000{paths.DESK}/inbox", "document", b"<html></html>"),
            Fetched("http://localhost:3000/assets/b.js", "script", b'const d="/_site/desk";'),
            Fetched("http://localhost:3000/assets/c.js", "script", b"desk.0123456789ab.js"),
            Fetched("http://localhost:3000/assets/d.js", "script", b"console.log('desk');"),
        ],
        files,
    )
    assert leaks == [
        f"http://localhost:3000{paths.DESK}/inbox: a desk URL",
        f"http://localhost:3000/assets/b.js: names the desk ({paths.DESK})",
        f"http://localhost:3000/assets/c.js: names the desk ({paths.DESK})",
        f"http://localhost:3000/assets/d.js: is the desk's {paths.DESK}/static/desk.0123456789ab.js",
    ]


def test_a_build_file_naming_the_desk_is_a_leak(tmp_path: Path) -> None:
    files = {f"{paths.DESK}/static/desk.0123456789ab.css": b"body{}"}
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<a href='/_site/forms/quote'>")
    (tmp_path / "assets" / "a.js").write_text("export const x = 1;")
    (tmp_path / "assets" / "a.js.br").write_bytes(b"/_site/desk")  # A sibling: not read.
    assert build_leaks(tmp_path, files) == []
    (tmp_path / "assets" / "b.js").write_text(f"fetch('{paths.DESK}/inbox')")
    (tmp_path / "privacy.html").write_text("<link href='desk.0123456789ab.css'>")
    assert build_leaks(tmp_path, files) == [
        "assets/b.js: names the desk",
        "privacy.html: names the desk",
    ]


def test_home_s_scripts_are_its_load_s_with_their_brotli_siblings(tmp_path: Path) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "a.js.br").write_bytes(b"b" * 300)
    visit = ReaderVisit(
        load=[
            Fetched("http://localhost:3000/", "document", b"<html>"),
            Fetched("http://localhost:3000/assets/a.js", "script", b"a" * 1_000),
            Fetched("http://localhost:3000/assets/0.js?x=1", "script", b"z" * 10),
        ],
        form=[Fetched("http://localhost:3000/assets/esm.js", "script", b"s" * 5_000)],
    )
    assert home_scripts(visit, tmp_path) == [
        Script("/assets/0.js", 10, 0),
        Script("/assets/a.js", 1_000, 300),
    ]


def test_home_s_scripts_match_the_baseline_within_the_build_stamp_s_noise() -> None:
    baseline = [Script("/assets/a-1.js", 600_000, 140_000), Script("/assets/b-1.js", 36_917, 5_000)]
    stamped = [Script("/assets/a-2.js", 600_000, 140_080), Script("/assets/b-2.js", 36_917, 4_990)]
    assert compare_scripts(stamped, baseline) == []
    grown = [Script("/assets/a-2.js", 600_000 + BASELINE_RAW_NOISE + 1, 140_000 + BASELINE_BROTLI_NOISE + 11),
             *stamped[1:]]  # fmt: skip
    assert compare_scripts(grown, baseline) == [
        f"Home's scripts are +{BASELINE_RAW_NOISE + 1:,} bytes against the baseline's",
        f"Home's scripts are +{BASELINE_BROTLI_NOISE + 1:,} bytes brotli against the baseline's",
    ]
    assert compare_scripts([*stamped, Script("/assets/desk.js", 0, 0)], baseline) == [
        "Home loads 3 scripts, the baseline 2"
    ]


def test_the_desk_check_reports_and_fails_on_a_leak_or_a_baseline_difference() -> None:
    scripts = [Script("/assets/a.js", 636_917, 148_480)]
    fine = DeskCheck([], scripts, scripts, "without-desk")
    assert fine.misses() == []
    assert fine.report().splitlines() == [
        "Home, what a reader downloads: 1 scripts, 636,917 bytes (145.0 KB brotli); nothing of the desk",
        "Baseline without-desk: 1 scripts, 636,917 bytes (145.0 KB brotli)",
    ]  # fmt: skip
    leaky = DeskCheck(["x: a desk URL"], scripts, [], "9dc082f")
    assert leaky.misses() == ["desk: x: a desk URL", "Home loads 1 scripts, the baseline 0 (9dc082f)",
                              "Home's scripts are +636,917 bytes against the baseline's (9dc082f)",
                              "Home's scripts are +148,480 bytes brotli against the baseline's (9dc082f)"]  # fmt: skip
    assert DeskCheck([], scripts).misses() == []  # No baseline asked.


def test_the_desk_is_unplugged_from_today_s_app_module_by_exact_anchors() -> None:
    """The baseline without the desk: fails loudly the day the mount moves."""
    source = (ROOT / bench.APP_MODULE).read_text()
    unplugged = unplug_desk(source)
    assert "agency_site.desk" not in unplugged
    assert "desk_api" not in unplugged
    assert len(source) - len(unplugged) == sum(len(anchor) for anchor in DESK_MOUNT)
    compile(unplugged, bench.APP_MODULE, "exec")
    with pytest.raises(BaselineError, match="desk_api"):
        unplug_desk(unplugged)

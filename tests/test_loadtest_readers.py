"""The load test's reader model, its h2load driver, its options and its summaries."""

import json
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from scripts.loadtest import cli, report, static_load
from scripts.loadtest.readers import ReaderModel, page_files, parse_manifest, reader_urls

MANIFEST = "/assets/manifest-abc.js"
PAGE = f"""<!DOCTYPE html><html><head>
<link href="/favicon.ico" rel="icon"/>
<link href="/apple-touch-icon.png" rel="apple-touch-icon"/>
<link href="/manifest.webmanifest" rel="manifest"/>
<link as="style" href="/assets/styles.css" rel="preload"/>
<link href="http://example.com/" rel="canonical"/>
<link href="/assets/styles.css" rel="stylesheet"/>
<script type="application/ld+json">{{"image": "/assets/not-a-script.png"}}</script>
<script type="module" async="">
const __preloads = ["{MANIFEST}", "/assets/entry.js", "/assets/root.js", "/assets/home.js"];
await import("{MANIFEST}");
const route0 = await import("/assets/root.js");
import("/assets/entry.js");
</script>
<script src="https://cdn.example.com/x.js"></script>
</head><body><h1>Inicio</h1></body></html>"""
ROUTES = {
    "root": {"id": "root", "path": "", "module": "/assets/root.js", "imports": [], "css": []},
    "routes/_index": {
        "id": "routes/_index", "index": True, "module": "/assets/home.js",
        "imports": ["/assets/icon-a.js"], "css": [],
    },
    "routes/[about]._index": {
        "id": "routes/[about]._index", "path": "about", "module": "/assets/about.js",
        "imports": ["/assets/icon-a.js", "/assets/icon-b.js"], "css": ["/assets/about.css"],
    },
}  # fmt: skip
MANIFEST_JS = "window.__reactRouterManifest=" + json.dumps({"routes": ROUTES}) + ";"


def test_a_page_names_its_scripts_styles_icon_and_the_bootstrap_s_modules_once() -> None:
    assert page_files(PAGE) == [
        "/favicon.ico",
        "/assets/styles.css",
        MANIFEST,
        "/assets/entry.js",
        "/assets/root.js",
        "/assets/home.js",
    ]


def test_the_manifest_gives_each_route_s_module_imports_and_css() -> None:
    routes = parse_manifest(MANIFEST_JS)
    assert routes == {
        "/": ["/assets/home.js", "/assets/icon-a.js"],
        "/about": [
            "/assets/about.js",
            "/assets/icon-a.js",
            "/assets/icon-b.js",
            "/assets/about.css",
        ],
    }
    with pytest.raises(ValueError, match="manifest"):
        parse_manifest("console.log(1)")


# A page with pictures: a desktop reader takes each one's AVIF at the width its slot needs.
ABOUT = """<!DOCTYPE html><html><head></head><body><h1>Nosotros</h1>
<picture><source type="image/avif" srcset="/assets/img/team-320.a.avif 320w, /assets/img/team-640.a.avif 640w, /assets/img/team-960.a.avif 960w" sizes="(min-width: 1024px) 50vw, 100vw"/>
<source type="image/webp" srcset="/assets/img/team-640.a.webp 640w" sizes="50vw"/>
<img src="/assets/img/team-640.a.jpg" alt="" loading="lazy"/></picture>
<picture><source type="image/avif" srcset="/assets/img/face-320.b.avif 320w, /assets/img/face-640.b.avif 640w" sizes="5rem"/>
<img src="/assets/img/face-320.b.jpg" alt=""/></picture></body></html>"""


@pytest.fixture
def site(httpserver: HTTPServer) -> HTTPServer:
    httpserver.expect_request("/").respond_with_data(PAGE, content_type="text/html")
    httpserver.expect_request("/about").respond_with_data(ABOUT, content_type="text/html")
    httpserver.expect_request(MANIFEST).respond_with_data(MANIFEST_JS)
    return httpserver


def test_a_navigation_fetches_only_the_route_files_not_fetched_yet(site: HTTPServer) -> None:
    model = ReaderModel(site.url_for("/"))
    steps = model.visit(["/", "/about", "/", "/about"])
    assert steps[0][0] == "/" and MANIFEST in steps[0]
    assert steps[1:] == [
        ["/assets/about.js", "/assets/icon-a.js", "/assets/icon-b.js", "/assets/about.css",
         "/assets/img/team-640.a.avif", "/assets/img/face-320.b.avif"],
        [],
        [],
    ]  # fmt: skip
    with pytest.raises(ValueError, match="not a route"):
        model.visit(["/", "/nowhere"])


def test_reader_urls_are_full_urls_in_fetch_order(site: HTTPServer) -> None:
    urls = reader_urls(site.url_for("/"), ["/", "/about"])
    assert urls[0] == site.url_for("/")
    assert urls[-1] == site.url_for("/assets/img/face-320.b.avif")
    assert len(urls) == len(set(urls))


def test_h2load_timing_script_puts_each_navigation_a_pause_later() -> None:
    script = static_load.timing_script([["/", "/a.js"], [], ["/b.js"]], "http://h:1", 500)
    assert script.splitlines() == [
        "0.000\thttp://h:1/",
        "0.000\thttp://h:1/a.js",
        "1000.000\thttp://h:1/b.js",
    ]


def test_h2load_readers_arrive_at_a_fixed_rate_over_the_ramp(tmp_path: Path) -> None:
    command = static_load.command(tmp_path / "s", 30, tmp_path / "l", 2500, 20.0, 30.0)
    assert "--clients=2500" in command and "--requests=30" in command
    assert "--rate=13" in command and "--rate-period=100ms" in command  # 2500 / 200 periods
    assert "--h1" in command


H2LOAD_OUTPUT = """finished in 21.03s, 16000.00 req/s, 95.00MB/s
requests: 340000 total, 340000 started, 339990 done, 339980 succeeded, 10 failed, 5 errored, 3 timeout
status codes: 339970 2xx, 0 3xx, 10 4xx, 2 5xx
"""


def test_h2load_summary_and_log_are_read(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text("1\t200\t1500\n2\t-1\t900\n3\t200\t2500\n")
    result = static_load.StaticResult()
    result.add(H2LOAD_OUTPUT, log)
    assert (result.requests, result.succeeded, result.failed, result.not_2xx) == (
        340000,
        339980,
        18,
        12,
    )
    assert result.request_s == [0.0015, 0.0025]
    result.add("connect error", log)
    assert result.errors == ["connect error"]


def test_options_per_mode_and_bounds() -> None:
    stack = cli.parse_args(["--stack"])
    assert (stack.readers, stack.bookings, stack.over, stack.h2load) == (10000, 400, 20.0, True)
    assert cli.probes_for(stack, 10000) == 200
    fault = cli.parse_args(["--stack", "--fault", "redis-restart"])
    assert fault.readers == 10000
    assert cli.parse_args(["--stack", "--step", "10000,20000,40000"]).steps == [
        10000,
        20000,
        40000,
    ]
    assert not cli.parse_args(["--stack", "--socket-readers", "--readers", "2000"]).h2load
    for bad in (
        ["--stack", "--readers", "50000"],
        ["--stack", "--readers-via", "python", "--readers", "10000"],
        ["--stack", "--socket-readers", "--readers", "10000"],
        ["--fault", "redis-restart"],
        ["--url", "http://example.com", "--db-url", "x", "--emailjs-port", "1"],
    ):
        with pytest.raises(SystemExit):
            cli.parse_args(bad)


def test_utm_makes_the_readers_land_as_a_campaign_s_visitors() -> None:
    args = cli.parse_args(["--stack", "--readers-via", "python", "--readers", "200",
                           "--utm", "newsletter/email/nov"])  # fmt: skip
    assert args.utm == "utm_source=newsletter&utm_medium=email&utm_campaign=nov"
    assert cli.parse_args(["--stack", "--readers-via", "python", "--readers", "200"]).utm == ""
    for bad in (["--utm", "newsletter/email"], ["--stack", "--utm", "a/b/c"]):  # h2load's
        with pytest.raises(SystemExit):
            cli.parse_args(bad)


@pytest.mark.parametrize("installed", [True, False])
def test_parsing_answers_the_same_whatever_the_machine_has(
    monkeypatch: pytest.MonkeyPatch, installed: bool
) -> None:
    """The options decide; h2load being installed or not changes nothing until the run starts."""
    monkeypatch.setattr(static_load, "available", lambda: installed)
    for argv, h2load in (
        (["--stack"], True),
        (["--readers", "100"], True),
        (["--readers-via", "python", "--readers", "100"], False),
        (["--stack", "--fault", "monitor-held-lead"], False),
    ):
        assert cli.parse_args(argv).h2load is h2load


@pytest.mark.parametrize(
    "argv, installed, lacking, h2load",
    [
        (["--stack"], True, False, True),
        (["--stack"], False, True, True),  # 10,000 readers: more than Python readers drive
        (["--readers", "2000"], False, False, False),  # auto: Python readers instead
        (["--readers-via", "h2load", "--readers", "100"], False, True, True),
        (["--readers-via", "python", "--readers", "100"], False, False, False),
        (["--stack", "--step", "1000,20000"], False, True, True),
    ],
)
def test_the_run_checks_the_machine_where_it_starts(
    argv: list[str], installed: bool, lacking: bool, h2load: bool
) -> None:
    args = cli.parse_args(argv)
    message = cli.check_machine(args, h2load_installed=installed)
    assert (message is not None, args.h2load) == (lacking, h2load)
    if message:
        assert "nghttp2-client" in message and "make loadtest" in message


def _step(readers: int, ok: bool, growth_mib: float, server: str = "caddy", cpu_s=10.0) -> dict:
    none = {"n": 0, "p95": None}
    return {
        "readers": readers, "step_ok": ok, "page_load_ms": {"n": 1, "p95": 50.0},
        "booking_ms": none, "reader_errors": 0, "server_cpu_s": cpu_s, "server_fds_peak": 900,
        "loadgen_cpu_s": 2.0, "loadgen_wall_s": 20.0, "h2load": {"cpu_s": 3.0},
        "backend_rss_growth": growth_mib * 1048576, "http_requests": 100000,
        "readers_via": "h2load", "server": server,
    }  # fmt: skip


def test_stepping_reports_the_knee_the_web_server_s_cost_and_the_memory() -> None:
    knees, lines = report.stepping_summary([_step(10000, True, 80), _step(20000, False, 2)])
    assert knees == {"Caddy": 10000}
    assert "≤ 0.10 MiB" in lines[-1]
    assert "generator 5.0 s in 20.0 s (25% of a core)" in lines[1]
    assert "Caddy 10.0 s" in lines[1] and "0.100 ms per request: 10,000/s per core" in lines[1]


def test_both_web_servers_get_their_own_knee_and_cost_side_by_side() -> None:
    rounds = [
        _step(10000, True, 1), _step(20000, False, 1),
        _step(10000, True, 1, "nginx", 2.0), _step(20000, True, 1, "nginx", 4.0),
    ]  # fmt: skip
    knees, lines = report.stepping_summary(rounds)
    assert knees == {"Caddy": 10000, "nginx": 20000}
    nginx_at = next(i for i, line in enumerate(lines) if line.startswith("nginx:"))
    assert "every step met them" in lines[nginx_at]
    assert "0.020 ms per request: 50,000/s per core" in lines[nginx_at + 1]
    assert all(line.startswith("  ") or ":" in line for line in lines)


@pytest.mark.parametrize(
    ("argv", "servers"),
    # None: the stack's own (nginx unless STACK_SERVER=caddy), read where the run starts.
    [(["--stack"], [None]), (["--stack", "--server", "nginx"], ["nginx"]),
     (["--stack", "--server", "both"], ["caddy", "nginx"])],
)  # fmt: skip
def test_the_web_servers_of_a_run_follow_from_the_options(argv, servers) -> None:
    assert cli.parse_args(argv).servers == servers


@pytest.mark.parametrize(
    "argv", [["--server", "nginx"], ["--stack", "--server", "both", "--fault", "emailjs-500"]]
)
def test_a_web_server_choice_needs_the_stack_and_no_fault(argv, capsys) -> None:
    with pytest.raises(SystemExit):
        cli.parse_args(argv)
    assert "--server" in capsys.readouterr().err

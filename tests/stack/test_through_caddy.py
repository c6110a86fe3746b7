"""The same export behind the generated Caddyfile (Caddy beside the stack's nginx on a free
port, or the stack's own with STACK_SERVER=caddy): pages, 404, headers and zstd, the
trailing slash, its Go runtime settings, the websocket, the access log."""

import json
from pathlib import Path

import httpx

from agency_site.content.not_found import NOT_FOUND
from agency_site.routes import ROUTES
from tests.e2e.helpers import NOT_FOUND_TITLE
from tests.stack.conftest import Stack
from tests.stack.test_through_the_stack import (
    assert_precompressed,
    check_header_sets,
    quiet_websocket_survives,
    visit_and_read_log,
)
from tests.test_deploy import assert_log_keeps_only_the_policy


def test_every_page_answers_with_its_title(caddy_server) -> None:
    for route in ROUTES:
        response = httpx.get(caddy_server.url + route.path, headers={"Accept-Encoding": "gzip"})
        assert response.status_code == 200, route.path
        assert f"<title>{route.title}</title>" in response.text, route.path


def test_unknown_paths_get_the_not_found_page_with_404(caddy_server) -> None:
    for path in ("/portfolio", "/services", "/esto/no/existe", "/assets/no-Zz99.js"):
        response = httpx.get(caddy_server.url + path)
        assert response.status_code == 404, path
        assert f"<title>{NOT_FOUND_TITLE}</title>" in response.text
    for path in ("/ca/portfolio", "/ca/services/nothing"):  # The Catalan one under /ca/.
        response = httpx.get(caddy_server.url + path)
        assert response.status_code == 404, path
        assert '<html lang="ca"' in response.text and NOT_FOUND.of("ca").heading in response.text


def test_headers_and_every_precompressed_encoding(caddy_server, stack: Stack) -> None:
    """The two header sets; brotli to a browser, zstd to a client that takes zstd and not
    brotli (Debian's nginx has no zstd module), gzip to one that takes only gzip."""
    check_header_sets(caddy_server.url, stack)
    assert_precompressed(
        caddy_server.url,
        (("gzip, deflate, br, zstd", "br"), ("zstd, gzip", "zstd"), ("gzip", "gzip")),
    )


def test_a_trailing_slash_redirects_to_the_page_and_never_off_site(caddy_server) -> None:
    for slash, page in (("/about/", "/about"), ("/ca/about/", "/ca/about")):
        response = httpx.get(caddy_server.url + slash)
        assert (response.status_code, response.headers["location"]) == (308, page)
    for crafted in ("/%2Fevil.com%2F..%2Fabout/", "//evil.com/", "/%5Cevil.com/"):
        response = httpx.get(caddy_server.url + crafted)
        location = response.headers.get("location", "")
        assert not location.startswith(("//", "/\\", "http")), (crafted, location)


def test_caddy_runs_with_a_prepared_hosts_go_runtime_settings(caddy_server) -> None:
    """Caddy gets what prepare_host.py gives Debian's caddy.service (GOGC)."""
    from scripts.prepare_host import CADDY_ENVIRONMENT

    environ = Path(f"/proc/{caddy_server.pids()[0]}/environ").read_bytes().split(b"\0")
    for name, value in CADDY_ENVIRONMENT.items():
        assert f"{name}={value}".encode() in environ


def test_a_quiet_websocket_outlives_the_read_timeouts(caddy_server, stack: Stack) -> None:
    assert quiet_websocket_survives(caddy_server.url, stack.url).startswith("40")


def test_the_access_log_keeps_only_what_the_policy_says(caddy_server) -> None:
    """A visitor behind a CDN and a proxy, with every identifier in the query and the
    Referer: nothing of it in Caddy's log (anywhere in the whole file), the address
    masked, only the path, utm_* keys, Referer's origin and User-Agent."""
    expected, logs, recent = visit_and_read_log(caddy_server.url, caddy_server.access_log)
    lines = assert_log_keeps_only_the_policy(logs, expected, recent)
    about = next(line for line in lines if line["request"]["uri"].startswith("/about"))
    print(f"\nCaddy's line for the visitor's page view: {json.dumps(about)}")

"""The same export behind the generated nginx configuration (the stack's own web server, or
one beside it): pages, 404, headers, the websocket, a monitor, the access log."""

import base64
import os
import re
import socket
import subprocess
import threading
import time
from pathlib import Path

import httpx

from agency_site.content.not_found import NOT_FOUND
from agency_site.forms.declarations import HONEYPOT_FIELD
from agency_site.routes import ROUTES
from scripts.loadtest.monitor import hold_lead, release_lead
from tests.e2e.helpers import NOT_FOUND_TITLE
from tests.stack.conftest import Stack
from tests.stack.test_rate_limit import NO_SCRIPT_POST
from tests.stack.test_through_the_stack import (
    check_header_sets,
    quiet_websocket_survives,
    visit_and_read_log,
)
from tests.test_deploy import assert_log_keeps_only_the_policy


def test_nginx_configuration_passes_nginx_t(stack: Stack) -> None:
    prefix = Path(stack.state()["nginx_prefix"])
    result = subprocess.run(
        ["nginx", "-t", "-c", str(stack.state_dir / "conf" / "nginx.conf"), "-p", str(prefix)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_every_page_answers_with_its_title(nginx_url: str) -> None:
    for route in ROUTES:
        response = httpx.get(nginx_url + route.path, headers={"Accept-Encoding": "gzip"})
        assert response.status_code == 200, route.path
        assert f"<title>{route.title}</title>" in response.text, route.path


def test_unknown_paths_get_the_not_found_page_with_404(nginx_url: str) -> None:
    for path in ("/portfolio", "/services", "/esto/no/existe", "//evil.com/"):
        response = httpx.get(nginx_url + path)
        assert response.status_code == 404, path
        assert f"<title>{NOT_FOUND_TITLE}</title>" in response.text
    for path in ("/ca/portfolio", "/ca/services/nothing"):  # The Catalan one under /ca/.
        response = httpx.get(nginx_url + path)
        assert response.status_code == 404, path
        assert '<html lang="ca"' in response.text and NOT_FOUND.of("ca").heading in response.text
    assert httpx.get(nginx_url + "/ca/about/").headers["location"] == "/ca/about"


def test_headers_caching_and_redirects(nginx_url: str, stack: Stack) -> None:
    check_header_sets(nginx_url, stack)
    page = httpx.get(nginx_url + "/about")
    health = httpx.get(nginx_url + "/_health")
    assert health.status_code == 200 and health.json()["status"] is True
    assert page.headers["cache-control"] == "public, max-age=300"
    bundle = re.search(r'/assets/[^"]+\.js', httpx.get(nginx_url + "/").text)[0]
    cached = httpx.get(nginx_url + bundle, headers={"Accept-Encoding": "br"})
    assert cached.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert cached.headers["content-encoding"] == "br"
    redirect = httpx.get(nginx_url + "/about/")
    assert (redirect.status_code, redirect.headers["location"]) == (308, "/about")


def test_the_websocket_upgrade_reaches_a_backend(nginx_url: str, stack: Stack) -> None:
    assert _upgrade(nginx_url, stack.url) == b"HTTP/1.1 101 Switching Protocols"
    assert quiet_websocket_survives(nginx_url, stack.url).startswith("40")


def _upgrade(nginx_url: str, origin: str) -> bytes:
    """The status line of a websocket upgrade through nginx."""
    host, port = nginx_url.removeprefix("http://").split(":")
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            (
                "GET /_event/?EIO=4&transport=websocket HTTP/1.1\r\n"
                f"Host: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Origin: {origin}\r\n\r\n"
            ).encode()
        )
        return sock.recv(1024).split(b"\r\n", 1)[0]


def test_a_monitor_polling_a_503_never_takes_a_backend_out(nginx_url: str, stack: Stack) -> None:
    """A monitor polls /_site/leads/health every second while it answers 503 (a held lead):
    every other visitor's page, health check, form post and websocket still succeed."""
    lead_id = hold_lead(stack.state()["db_url"])
    monitor: list[int] = []
    errors: list[str] = []
    stop = threading.Event()

    def poll() -> None:
        with httpx.Client(base_url=nginx_url) as client:
            while not stop.is_set():
                monitor.append(client.get("/_site/leads/health").status_code)
                stop.wait(1)

    poller = threading.Thread(target=poll)
    poller.start()
    visits = 0
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            visits += 1
            address = f"127.0.{visits // 250 + 10}.{visits % 250 + 1}"
            transport = httpx.HTTPTransport(local_address=address)
            with httpx.Client(base_url=nginx_url, transport=transport) as visitor:
                for path, status in (("/about", 200), ("/_health", 200), ("/ping", 200)):
                    if (code := visitor.get(path).status_code) != status:
                        errors.append(f"GET {path}: {code}")
                code = visitor.post(
                    "/_site/forms/contact",
                    data={"email": f"monitor-visitor-{visits}@example.com", HONEYPOT_FIELD: ""},
                    # A person's browser posting with no script (no form token asked).
                    headers={"Origin": stack.url, **NO_SCRIPT_POST},
                ).status_code
                if code != 303:  # Stored: redirected to its answer (PRG).
                    errors.append(f"POST contact: {code}")
            if (line := _upgrade(nginx_url, stack.url)) != b"HTTP/1.1 101 Switching Protocols":
                errors.append(f"websocket: {line!r}")
            time.sleep(0.3)
    finally:
        stop.set()
        poller.join()
        release_lead(stack.state()["db_url"], lead_id)
    print(
        f"\nmonitor: {len(monitor)} polls of /_site/leads/health, statuses {sorted(set(monitor))};"
        f" {visits} other visitors (page, /_health, /ping, a form post, a websocket each):"
        f" {len(errors)} errors {errors[:5]}"
    )
    assert monitor and set(monitor) == {503}
    assert errors == []


def test_the_access_log_keeps_only_what_the_policy_says(nginx_server) -> None:
    """A visitor behind a CDN and a proxy, with every identifier in the query and the
    Referer: nothing of it in nginx's log (anywhere in the whole file), the address
    masked, only the path, utm_* keys, Referer's origin and User-Agent."""
    expected, logs, recent = visit_and_read_log(nginx_server.url, nginx_server.access_log)
    assert_log_keeps_only_the_policy(logs, expected, recent)

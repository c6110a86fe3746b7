"""The same export behind the generated nginx configuration: pages, 404, headers, the websocket."""

import base64
import os
import re
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from agency_site.routes import NOT_FOUND_TITLE, ROUTES
from scripts import local_servers
from tests.stack.conftest import Stack
from tests.stack.test_through_caddy import check_header_sets


@pytest.fixture(scope="module")
def nginx_url(stack: Stack):
    """nginx on a free port, from the configuration `make stack` generated, balancing its backends."""
    prefix = Path(stack.state()["nginx_prefix"])
    port = local_servers.free_port()
    conf = (prefix / "agency_site.conf").read_text()
    (prefix / "agency_site.conf").write_text(
        re.sub(r"listen \d+;", f"listen 127.0.0.1:{port};", conf)
    )
    process = subprocess.Popen(
        ["nginx", "-c", str(stack.state_dir / "conf" / "nginx.conf"), "-p", str(prefix),
         "-g", "daemon off;"],
        start_new_session=True,
    )  # fmt: skip
    local_servers.wait_for_port(port)
    yield f"http://127.0.0.1:{port}"
    local_servers.stop_pid(process.pid)


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
    host, port = nginx_url.removeprefix("http://").split(":")
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            (
                "GET /_event/?EIO=4&transport=websocket HTTP/1.1\r\n"
                f"Host: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Origin: {stack.url}\r\n\r\n"
            ).encode()
        )
        status = sock.recv(1024).split(b"\r\n", 1)[0]
    assert status == b"HTTP/1.1 101 Switching Protocols"

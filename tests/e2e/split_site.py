"""The split-origin site, as a static host or CDN and an ``api.`` backend deploy it: the
frontend export (``reflex export --frontend-only``, in a web workdir of its own so the
session site is untouched) served by a bare static file server on one port, as Cloudflare
Pages serves it: pretty URLs, the nearest ``404.html``, and the export's own ``_headers``
and ``_redirects`` (``agency_site/static_host.py``); the backend alone (``reflex run --env
prod --backend-only``) on another port, started by the tests that need it. Its backend keeps
the real time trap (3 s), so it is also where the proof-of-work widget is tested
(tests/e2e/test_spam_challenge.py): one export for both files, in one site group
(tests/conftest.py).
"""

import contextlib
import mimetypes
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pytest_httpserver import HTTPServer

from agency_site.deploy.static_host import HEADERS_FILE, REDIRECTS_FILE
from scripts.local_servers import free_port
from scripts.production_site import reflex_prod
from tests.e2e.conftest import (
    BUILD_TIMEOUT_S,
    ROOT,
    SiteServer,
    backend_env,
    own_web_workdir,
    stop_site,
    wait_until_up,
)
from tests.test_static_host import parse_headers, parse_redirects

DB_NAME = "leads.db"


class _StaticHandler(BaseHTTPRequestHandler):
    """Serves the export as Cloudflare Pages does, from its own files only: its
    ``_redirects`` first, then page.html or page/index.html, else the nearest 404.html up the
    tree; every answer with the headers its ``_headers`` gives the path. Neither file is
    served."""

    root: Path

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        redirects = {source: (target, code) for source, target, code in self.redirects()}
        if path in redirects:
            target, code = redirects[path]
            self.send_response(code)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        name = path.strip("/")
        if name not in (HEADERS_FILE, REDIRECTS_FILE):
            for candidate in (name or "index.html", f"{name}.html", f"{name}/index.html"):
                file = (self.root / candidate).resolve()
                if file.is_relative_to(self.root) and file.is_file():
                    return self._send(path, file, 200)
        folder = (self.root / name).parent
        while folder != self.root and not (folder / "404.html").is_file():
            folder = folder.parent
        return self._send(path, folder / "404.html", 404)

    def redirects(self) -> list[tuple[str, str, int]]:
        return parse_redirects((self.root / REDIRECTS_FILE).read_text())

    def _send(self, path: str, file: Path, status: int) -> None:
        body = file.read_bytes()
        self.send_response(status)
        self.send_header("Content-Type", mimetypes.guess_type(file.name)[0] or "text/plain")
        self.send_header("Content-Length", str(len(body)))
        rules = parse_headers((self.root / HEADERS_FILE).read_text())
        for pattern, headers in rules.items():
            if path.startswith(pattern.removesuffix("*")):
                for name, value in headers.items():
                    self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        """Quiet."""


@dataclass
class SplitSite:
    """Static frontend that is always up; a backend that starts and stops on demand."""

    url: str
    backend_port: int
    env: dict[str, str]
    workdir: Path

    @property
    def db_path(self) -> Path:
        """The backend's leads database (SQLite)."""
        return self.workdir / DB_NAME

    @contextlib.contextmanager
    def backend(self) -> Iterator[SiteServer]:
        """Run the backend for the duration of the block."""
        log_path = self.workdir / "backend.log"
        process = subprocess.Popen(
            reflex_prod(self.backend_port, "--backend-only"),
            cwd=ROOT,
            env=self.env,
            stdout=log_path.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        server = SiteServer(
            f"http://localhost:{self.backend_port}", process, log_path, self.db_path, self.env
        )
        try:
            if not wait_until_up(f"{server.url}/ping", process, 300):
                pytest.fail(f"The backend did not start:\n{server.log_tail()}")
            yield server
        finally:
            stop_site(server)


def serve_split_site(workdir: Path, emailjs_fake: HTTPServer) -> Iterator[SplitSite]:
    """Export the frontend against a backend port nobody listens on yet, and serve it
    (the session's ``split_site`` fixture, tests/e2e/conftest.py)."""
    own_web_workdir(workdir / "web")
    backend_port, frontend_port = free_port(), free_port()
    url = f"http://localhost:{frontend_port}"
    env = {
        **os.environ,
        # The real time trap (3 s): its visitors take a person's time to fill a form.
        **backend_env(emailjs_fake, workdir, time_trap_seconds="3"),
        "REFLEX_WEB_WORKDIR": str(workdir / "web"),
        "REFLEX_API_URL": f"http://localhost:{backend_port}",
        "REFLEX_DEPLOY_URL": url,
        "REFLEX_DB_URL": f"sqlite:///{workdir / DB_NAME}",
    }
    build = subprocess.run(
        [sys.executable, "-m", "reflex", "export", "--frontend-only", "--no-zip"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    handler = type("Handler", (_StaticHandler,), {"root": (workdir / "web/build/client").resolve()})
    server = ThreadingHTTPServer(("127.0.0.1", frontend_port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield SplitSite(url, backend_port, env, workdir)
    server.shutdown()
    server.server_close()

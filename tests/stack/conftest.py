"""The production topology under test: `make stack` (nginx, 2 backends x 2 workers, Redis,
PostgreSQL) started once for the session with EmailJS pointed at the session's fake
(``emailjs_fake`` of tests/emailjs_fake.py), and stopped
(`make stack-down`) at the end. ``nginx_server`` and ``caddy_server`` are each web server in
front of it: the stack's own, or one started beside it from the rendered configuration
(scripts/loadtest/web_servers.py), as the load test does.
"""

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from tests.e2e.conftest import EMAILJS_E2E, ROOT

STACK_PORT = int(os.environ.get("STACK_PORT", "8080"))
STATE_DIR = ROOT / ".stack"


@dataclass
class Stack:
    """A running `make stack`."""

    url: str
    port: int
    state_dir: Path

    def state(self) -> dict:
        """What scripts/stack.py recorded: pids, database and Redis URLs."""
        return json.loads((self.state_dir / "pids.json").read_text())

    def stack(self, *args: str) -> None:
        """Run a scripts/stack.py command against this stack."""
        subprocess.run(
            ["python", "scripts/stack.py", *args, "--port", str(self.port)],
            cwd=ROOT,
            check=True,
            env={**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"},
        )


@pytest.fixture(scope="session")
def stack(emailjs_fake: HTTPServer):
    """`make stack` with the fake EmailJS; `make stack-down` at the end of the session."""
    env = {
        **os.environ,
        "STACK_PORT": str(STACK_PORT),
        "EMAILJS_API_BASE": emailjs_fake.url_for("").rstrip("/"),
        **EMAILJS_E2E,
        "LEADS_RETRY_BASE_SECONDS": "2",
        "LEADS_RETRY_POLL_SECONDS": "1",
        # Every test visitor comes from 127.0.0.1: no cap of pending bookings per network
        # or address (tests/bookings/test_bookings.py tests the caps).
        "BOOKING_MAX_PENDING_PER_NETWORK": "0",
        "BOOKING_MAX_PENDING_PER_EMAIL": "0",
        # Playwright sends a form within a second of focusing it: the token is still
        # required, its age is not (tests/e2e/test_split_origins.py keeps the 3 s).
        "LEADS_SPAM_MIN_SECONDS": "0",
    }
    log = ROOT / "stack-up.log"
    with log.open("w") as out:
        result = subprocess.run(["make", "stack"], cwd=ROOT, env=env, stdout=out, stderr=out)
    print(log.read_text())
    if result.returncode:
        subprocess.run(["make", "stack-down"], cwd=ROOT, env=env)
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-40:])
        pytest.exit(f"`make stack` failed (see .stack/*.log):\n{tail}", returncode=3)
    yield Stack(f"http://localhost:{STACK_PORT}", STACK_PORT, STATE_DIR)
    subprocess.run(["make", "stack-down"], cwd=ROOT, env=env, check=True)


@pytest.fixture(scope="session")
def base_url(stack: Stack) -> str:
    """pytest-playwright's base URL: the site through the stack's web server."""
    return stack.url


def _web_server(stack: Stack, name: str):
    from scripts.loadtest import web_servers
    from scripts.loadtest.topology import StackInfo

    server = web_servers.start(name, StackInfo.load(stack.state_dir))
    yield server
    web_servers.stop(server)


@pytest.fixture(scope="module")
def nginx_server(stack: Stack):
    """nginx in front of the stack (its own, or one beside it on a free port)."""
    yield from _web_server(stack, "nginx")


@pytest.fixture(scope="module")
def caddy_server(stack: Stack):
    """Caddy in front of the stack (beside its nginx on a free port, or its own)."""
    yield from _web_server(stack, "caddy")


@pytest.fixture(scope="module")
def nginx_url(nginx_server) -> str:
    """nginx's URL in front of the stack's backends."""
    return nginx_server.url

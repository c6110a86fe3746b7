"""Browser-test fixtures: the production build served once per session, Debian's Chromium.

The site is started with ``reflex run --env prod --single-port`` (the same build a
deployer serves) on a free port, with its database in a temporary folder and its
e-mail provider pointed at the session's EmailJS fake (``emailjs_fake`` and ``fake`` of
tests/emailjs_fake.py), so no test reaches the internet. The fake accepts every send unless
a test says otherwise (and puts it back with ``accept_sends``).

Each session (each pytest-xdist worker of ``make test`` that runs browser tests) builds and
serves its site from a web workdir of its own (``REFLEX_WEB_WORKDIR``), copied from a
template of the checkout's ``.web/`` with its installed frontend packages hard-linked: the
sessions run side by side, and a test that rebuilds ``.web/`` itself
(tests/e2e/test_reflex_run.py) changes no served file and no copy.
"""

import contextlib
import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from scripts.local_servers import free_port

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / ".web"
START_TIMEOUT_S = 420
BUILD_TIMEOUT_S = 600

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def headless_shell_path() -> str:
    """Path of the Chromium the headless browser tests drive: Debian's
    ``chromium-headless-shell`` (or CHROMIUM_HEADLESS_SHELL_PATH), the same engine as
    ``chromium`` without the browser's UI layer (what Playwright itself runs headless);
    the whole Chromium where it is missing."""
    for candidate in (
        os.environ.get("CHROMIUM_HEADLESS_SHELL_PATH"),
        "/usr/bin/chromium-headless-shell",
    ):
        if candidate and Path(candidate).exists():
            return candidate
    return chromium_path()


def chromium_path() -> str:
    """Path of the whole Chromium (Debian's, or CHROMIUM_PATH): headed runs, the autofill
    test, Lighthouse, the release's smoke check."""
    for candidate in (
        os.environ.get("CHROMIUM_PATH"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
    ):
        if candidate and Path(candidate).exists():
            return candidate
    pytest.exit(
        "Chromium not found: run `make test` (installs Debian's chromium as root) "
        "or set CHROMIUM_PATH to a Chromium/Chrome binary.",
        returncode=3,
    )


_DIGEST = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
# A copy of .web/ with its installed packages (hard links): what each session's own web
# workdir is copied from, so a test that rebuilds .web/ meanwhile disturbs no copy.
WEB_TEMPLATE = Path(tempfile.gettempdir()) / f"agency-site-{_DIGEST}-web-template"
# The files by which Reflex knows its frontend packages are installed: equal, the template's
# packages are the ones .web/ has.
_PACKAGE_FILES = ("package.json", "package-lock.json", "reflex.install_frontend_packages.cached")


@contextlib.contextmanager
def web_lock() -> Iterator[None]:
    """Held by a test session while it installs .web/ or copies it into the template (the
    others wait): no session copies a half-written .web/."""
    with (Path(tempfile.gettempdir()) / f"agency-site-{_DIGEST}-web.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _installed_web(env: dict[str, str]) -> None:
    """Install the frontend packages in ``.web/`` once (a fresh clone has none): by the
    production export, so ``.web/`` then also holds a whole build. Under ``web_lock``."""
    if (WEB / "node_modules").is_dir():
        return
    build = subprocess.run(
        [sys.executable, "-m", "reflex", "export", "--frontend-only", "--no-zip"],
        cwd=ROOT,
        env={name: value for name, value in env.items() if name != "REFLEX_WEB_WORKDIR"},
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    if build.returncode:
        pytest.exit(f"npm install in .web failed:\n{build.stdout[-3000:]}{build.stderr[-3000:]}", 3)


def _copy_web(source: Path, copy: Path) -> None:
    """``source`` copied without its build, its installed packages hard-linked."""
    # Reflex rewrites its own files in place: real copies. The packages are only read.
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("build", "node_modules"))
    shutil.copytree(
        source / "node_modules",
        copy / "node_modules",
        copy_function=os.link,
        ignore=shutil.ignore_patterns(".vite", ".cache"),
    )


def _same(name: str) -> bool:
    mine, template = WEB / name, WEB_TEMPLATE / name
    return mine.is_file() == template.is_file() and (
        not mine.is_file() or mine.read_bytes() == template.read_bytes()
    )


def _fresh_template(env: dict[str, str]) -> None:
    """``WEB_TEMPLATE`` holding the packages ``.web/`` has (installed first). Under the lock."""
    _installed_web(env)
    if (WEB_TEMPLATE / "node_modules").is_dir() and all(map(_same, _PACKAGE_FILES)):
        return
    shutil.rmtree(WEB_TEMPLATE, ignore_errors=True)
    _copy_web(WEB, WEB_TEMPLATE)


def web_template(env: dict[str, str] | None = None) -> None:
    """Make sure the template is there before a test rebuilds ``.web/`` itself."""
    with web_lock():
        _fresh_template(env or dict(os.environ))


def own_web_workdir(copy: Path, env: dict[str, str] | None = None) -> Path:
    """A web workdir for one session at ``copy``, from the template: Reflex only compiles
    and builds there, instead of a second npm install of the same lockfile."""
    with web_lock():
        _fresh_template(env or dict(os.environ))
        _copy_web(WEB_TEMPLATE, copy)
    return copy


@dataclass
class SiteServer:
    """A running production build of the site."""

    url: str
    process: subprocess.Popen
    log_path: Path
    db_path: Path
    env: dict[str, str]
    web_dir: Path = WEB  # Its web workdir: the build it serves is under build/client.

    def log_tail(self, lines: int = 60) -> str:
        """The last lines the server printed."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def wait_until_up(url: str, process: subprocess.Popen, timeout: float) -> bool:
    """Poll ``url`` until it answers 200, the process dies or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(1)
    return False


def start_site(env_overrides: dict[str, str], workdir: Path) -> SiteServer:
    """Build and start the production site on a free port, in a web workdir of its own."""
    port = free_port()
    url = f"http://localhost:{port}"
    db_path = workdir / "e2e.db"
    env = {
        **os.environ,
        "REFLEX_API_URL": url,
        "REFLEX_DEPLOY_URL": url,
        "REFLEX_DB_URL": f"sqlite:///{db_path}",
        "PYTHONUNBUFFERED": "1",
        **env_overrides,
    }
    web_dir = own_web_workdir(workdir / "web", env)
    env["REFLEX_WEB_WORKDIR"] = str(web_dir)
    log_path = workdir / "site.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reflex",
            "run",
            "--env",
            "prod",
            "--single-port",
            "--backend-port",
            str(port),
            "--loglevel",
            "info",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    server = SiteServer(url, process, log_path, db_path, env, web_dir)
    if not wait_until_up(f"{url}/ping", process, START_TIMEOUT_S) or not wait_until_up(
        f"{url}/", process, 60
    ):
        stop_site(server)
        pytest.exit(f"The production site did not start:\n{server.log_tail()}", returncode=3)
    return server


def stop_site(server: SiteServer) -> None:
    """Stop the site and everything it started."""
    if server.process.poll() is None:
        try:
            os.killpg(server.process.pid, signal.SIGTERM)
            server.process.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.process.pid, signal.SIGKILL)


# What the site is configured with in the browser tests; none of it may reach the browser.
# The visitor's booking e-mails: the session's site only (other sites send none).
VISITOR_TEMPLATE_E2E = "template_visitor_e2e"
EMAILJS_E2E = {
    "EMAILJS_SERVICE_ID": "service_e2e",
    "EMAILJS_PUBLIC_KEY": "public_e2e",
    "EMAILJS_PRIVATE_KEY": "private_e2e",
    "EMAILJS_CONTACT_TEMPLATE_ID": "template_contact_e2e",
    "EMAILJS_BOOKING_TEMPLATE_ID": "template_booking_e2e",
    "EMAILJS_QUOTE_TEMPLATE_ID": "template_quote_e2e",
}


def backend_env(
    emailjs_fake: HTTPServer, folder: Path, *, time_trap_seconds: str = "0"
) -> dict[str, str]:
    """What a browser tests' backend runs with: the fake EmailJS, quick retries, no caps
    for a browser that always comes from 127.0.0.1, its data in ``folder``. Playwright
    fills and sends a form within a second of focusing it: the spam time trap waits
    ``time_trap_seconds`` (0: a token is still required, its age is not; the split-origin
    backend keeps the real 3 s for its real-visitor tests)."""
    return {
        "LEADS_SPAM_MIN_SECONDS": time_trap_seconds,
        # Its own data folder: the booking links' secret it generates (no BOOKING_LINK_SECRET).
        "DEPLOY_DATA_DIR": str(folder),
        "EMAILJS_API_BASE": emailjs_fake.url_for("").rstrip("/"),
        **EMAILJS_E2E,
        # The visitor's booking e-mails (confirmed, moved...: test_reschedule.py).
        "EMAILJS_VISITOR_TEMPLATE_ID": VISITOR_TEMPLATE_E2E,
        # Failed e-mails are retried after 2 s (then 4, 8...) instead of a minute.
        "LEADS_RETRY_BASE_SECONDS": "2",
        "LEADS_RETRY_POLL_SECONDS": "1",
        # Held leads: one is retried every 2 s instead of every 15 minutes.
        "LEADS_CANARY_INTERVAL_SECONDS": "2",
        # Every test browses from 127.0.0.1: only the per-session limit applies, and
        # the pending bookings are not capped per network or address (their own tests
        # cap them: tests/bookings/test_bookings.py).
        "LEADS_RATE_LIMIT_PER_IP": "10000",
        "BOOKING_MAX_PENDING_PER_NETWORK": "0",
        "BOOKING_MAX_PENDING_PER_EMAIL": "0",
        # A submission gives its answer after 5 s at most (the EmailJS timeout is 10 s).
        "LEADS_SUBMIT_DEADLINE_SECONDS": "5",
    }


@pytest.fixture(scope="session")
def site(emailjs_fake: HTTPServer, tmp_path_factory: pytest.TempPathFactory):
    """The production build of the site, started once for the whole browser-test session."""
    folder = tmp_path_factory.mktemp("site")
    server = start_site(backend_env(emailjs_fake, folder), folder)
    yield server
    stop_site(server)


@pytest.fixture(scope="session")
def split_site(emailjs_fake: HTTPServer, tmp_path_factory: pytest.TempPathFactory):
    """The split-origin site (tests/e2e/split_site.py), exported once for the session: its
    static pages always up, its backend started by the tests that need it."""
    from tests.e2e.split_site import serve_split_site  # It builds on this module's helpers.

    yield from serve_split_site(tmp_path_factory.mktemp("split-origins"), emailjs_fake)


@pytest.fixture(scope="session")
def base_url(site: SiteServer) -> str:
    """pytest-playwright's base URL: the running site."""
    return site.url


# Chromium reports a blocked script, style, connection or form post in the console with
# this phrase; the page's own listener reports `securitypolicyviolation` events with it.
CSP_MARKER = "Content Security Policy"
_REPORT_VIOLATIONS = (
    "document.addEventListener('securitypolicyviolation', (e) => console.error("
    "`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`));"
)


def watch_csp(page) -> list[str]:
    """Collect the page's CSP violations (console messages and violation events)."""
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if CSP_MARKER in m.text else None)
    page.add_init_script(_REPORT_VIOLATIONS)
    return violations


@pytest.fixture(autouse=True)
def no_csp_violations(request: pytest.FixtureRequest):
    """Fail any browser test whose page breaks the Content-Security-Policy the server sends."""
    if "page" not in request.fixturenames:
        yield
        return
    violations = watch_csp(request.getfixturevalue("page"))
    yield
    assert violations == [], f"CSP violations: {violations}"

"""Browser-test fixtures: the production build served once per session, Debian's Chromium.

The site is started with ``reflex run --env prod --frontend-port PORT`` (the same build a
deployer serves, its URLs derived from the port as ``make prod``'s are) on a free port, with its database in a temporary folder and its
e-mail provider pointed at the session's EmailJS fake (``emailjs_fake`` and ``fake`` of
tests/emailjs_fake.py), so no test reaches the internet. The fake accepts every send unless
a test says otherwise (and puts it back with ``accept_sends``).

Each session (each pytest-xdist worker of ``make test`` that runs browser tests) serves its
own site, with its own database and EmailJS fake, from one build the run's sessions share
(scripts/production_site.py): the first session to need it builds it in a web workdir of
the run's own, the others serve that build (scripts/serve_built.py). A test that rebuilds
``.web/`` itself (tests/e2e/test_reflex_run.py) changes no served file and no copy.
"""

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from scripts import production_site
from scripts.production_site import (  # noqa: F401 (the browser tests import them from here)
    BUILD_TIMEOUT_S,
    CHROMIUM_ARGS,
    ROOT,
    START_TIMEOUT_S,
    WEB,
    SiteError,
    SiteServer,
    own_web_workdir,
    stop_site,
    wait_until_up,
    web_lock,
    web_template,
)


def chromium_path() -> str:
    """The whole Chromium's path (scripts/production_site.py); the session ends without it."""
    try:
        return production_site.chromium_path()
    except SiteError as missing:
        pytest.exit(str(missing), returncode=3)


def headless_shell_path() -> str:
    """The headless shell's path, else the whole Chromium's; the session ends without any."""
    try:
        return production_site.headless_shell_path()
    except SiteError as missing:
        pytest.exit(str(missing), returncode=3)


def start_site(
    env_overrides: dict[str, str], workdir: Path, shared_build: Path | None = None
) -> SiteServer:
    """``production_site.start_site``; the session ends when the site cannot start."""
    try:
        return production_site.start_site(env_overrides, workdir, shared_build)
    except SiteError as failed:
        pytest.exit(str(failed), returncode=3)


# What the site is configured with in the browser tests; none of it may reach the browser.
# The visitor's booking e-mails: the session's site only (other sites send none).
VISITOR_TEMPLATE_E2E = "template_visitor_e2e"
# The token that shows the leads' health page's details (LEADS_HEALTH_TOKEN).
HEALTH_TOKEN_E2E = "health-token-of-the-browser-tests"
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
        "LEADS_HEALTH_TOKEN": HEALTH_TOKEN_E2E,
    }


# The session site's signed webhooks (docs/leads.md "Webhooks") go to one receiver of the
# session, which accepts every message (the desk's erasure reaches it:
# tests/e2e/test_desk_bookings.py).
WEBHOOK_PATH_E2E = "/hooks/e2e"
WEBHOOK_SECRET_E2E = "whsec_" + base64.b64encode(b"e2e-webhook-secret-0123456789ab").decode()


@pytest.fixture(scope="session")
def webhook_receiver() -> Iterator[HTTPServer]:
    """The agency's webhook receiver for the session's site, answering its own id."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.expect_request(WEBHOOK_PATH_E2E, method="POST").respond_with_json({"id": "rec-e2e"})
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture(scope="session")
def site(
    emailjs_fake: HTTPServer,
    webhook_receiver: HTTPServer,
    tmp_path_factory: pytest.TempPathFactory,
    worker_id: str,
):
    """The production build of the site, started once for the whole browser-test session:
    on pytest-xdist workers, one build in the run's own folder (the workers' base folders'
    parent) that each worker's site serves."""
    folder = tmp_path_factory.mktemp("site")
    run_folder = tmp_path_factory.getbasetemp().parent
    shared_build = run_folder / "site-build" if worker_id != "master" else None
    hooks = {
        "LEADS_WEBHOOK_URLS": webhook_receiver.url_for(WEBHOOK_PATH_E2E),
        "LEADS_WEBHOOK_SECRET": WEBHOOK_SECRET_E2E,
    }
    server = start_site(backend_env(emailjs_fake, folder) | hooks, folder, shared_build)
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


@pytest.fixture(scope="session")
def deploy_url(site: SiteServer) -> str:
    """The public URL the site's pages were built with (canonical, Open Graph, sitemap)."""
    return site.deploy_url


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

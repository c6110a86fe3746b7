"""Reflex's own commands serve forms that send (issue 23): with no URL configured, Reflex
derives the backend URL from the ports it runs on, and the site follows.

Each test starts one command the way a developer types it, from the site folder, with
no REFLEX_API_URL / REFLEX_DEPLOY_URL and the EmailJS fake, then submits the hero
capture and the booking form in Chromium and checks that both e-mails reach the fake:

- ``make prod`` (``reflex run --env prod --single-port``), on the port the README states;
- ``reflex run --frontend-port F --backend-port B`` (development: Vite and a compile).

They build the frontend in this folder's .web/ one after the other. The third,
``reflex run --env prod --frontend-port P`` with no URL configured, is how the browser tests'
own site is built and started (scripts/production_site.py ``start_site``): every browser test
runs against it. That site is not started by these tests: they open their own browser
context instead of ``page``.
"""

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.form_words import COPY
from scripts.local_servers import free_port
from tests.e2e.conftest import (
    EMAILJS_E2E,
    ROOT,
    START_TIMEOUT_S,
    SiteServer,
    stop_site,
    wait_until_up,
    watch_csp,
    web_template,
)
from tests.e2e.form_helpers import SUBMIT, fill_booking, wait_for_sends, working_day
from tests.e2e.helpers import TYPING_MS, open_page
from tests.e2e.test_desk import authenticator
from tests.emailjs_fake import accept_sends, sent_payloads

# Each test builds the site (production or development) before it browses.
pytestmark = pytest.mark.timeout(START_TIMEOUT_S + 600)

# The port `make prod` serves when it is free (the README says so).
MAKE_PROD_PORT = 3000
RUNNING_AT = re.compile(r"App running at: (http://[^/\s]+)")


def _port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def start(command: list[str], fake: HTTPServer, workdir: Path) -> subprocess.Popen:
    """Run ``command`` in the site folder with nothing but the fake EmailJS configured."""
    log = (workdir / "run.log").open("w")
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=site_env(fake, workdir),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def site_env(fake: HTTPServer, workdir: Path) -> dict[str, str]:
    """The environment of a command run in ``workdir``: this machine's, without its Reflex
    settings, and the fake EmailJS."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("REFLEX_")
        or name in ("REFLEX_USE_NPM", "REFLEX_TELEMETRY_ENABLED", "REFLEX_CHECK_LATEST_VERSION")
    }
    env |= {
        "REFLEX_DB_URL": f"sqlite:///{workdir / 'leads.db'}",
        "EMAILJS_API_BASE": fake.url_for("").rstrip("/"),
        **EMAILJS_E2E,
        "LEADS_RATE_LIMIT_PER_IP": "10000",
        "PYTHONUNBUFFERED": "1",
    }
    return env


def served_at(process: subprocess.Popen, log: Path, timeout: float = START_TIMEOUT_S) -> str:
    """The URL the command says it serves the site on (``App running at: ...``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        found = RUNNING_AT.search(log.read_text(errors="replace"))
        if found:
            return found.group(1).replace("0.0.0.0", "localhost")
        time.sleep(1)
    pytest.fail(f"No 'App running at' line:\n{log.read_text(errors='replace')[-4000:]}")


def running(command: list[str], fake: HTTPServer, tmp_path: Path, url: str | None, ping: str):
    """Start ``command``; once ``ping`` and the site's home answer, the running server.

    It builds in ``.web/``: the template the other sessions copy their web workdir from is
    made first (tests/e2e/conftest.py)."""
    web_template()
    process = start(command, fake, tmp_path)
    log = tmp_path / "run.log"
    server = SiteServer(url or "", process, log, tmp_path / "leads.db", {})
    url = url or served_at(process, log)
    server.url = url
    ping = ping.replace("{url}", url)
    if not wait_until_up(ping, process, START_TIMEOUT_S) or not wait_until_up(
        f"{url}/", process, 300
    ):
        stop_site(server)
        pytest.fail(f"{' '.join(command)} did not start:\n{server.log_tail(80)}")
    return server


def both_forms_deliver(browser: Browser, server: SiteServer, fake: HTTPServer) -> None:
    """The hero capture and the booking form, submitted in Chromium, reach the fake EmailJS."""
    accept_sends(fake, forget=True)
    context = browser.new_context(
        base_url=server.url, locale="es-ES", viewport={"width": 1280, "height": 800}
    )
    page: Page = context.new_page()
    violations = watch_csp(page)
    loads: list[str] = []  # Every document the page loaded: a reload shows here.
    page.on("load", lambda loaded: loads.append(loaded.url))
    try:
        page.set_default_timeout(60_000)
        open_page(page, paths.HOME)
        form = page.locator("#hero-capture-form")
        form.get_by_label(COPY.hero.fields["email"].label).fill("visitante@example.com")
        page.wait_for_timeout(TYPING_MS)  # The site runs with the real spam time trap.
        form.locator(SUBMIT).click()
        expect(form.get_by_text(COPY.hero.success)).to_be_visible(timeout=30_000)
        assert len(wait_for_sends(fake, 1)) == 1

        open_page(page, paths.SCHEDULE)
        booking = page.locator("#booking-form")
        fill_booking(page, working_day(3))
        page.wait_for_timeout(TYPING_MS)
        booking.locator(SUBMIT).click()
        expect(booking.get_by_text(COPY.booking.success)).to_be_visible(timeout=30_000)
        delivered = wait_for_sends(fake, 2)
        assert [send["template_id"] for send in delivered] == [
            EMAILJS_E2E["EMAILJS_CONTACT_TEMPLATE_ID"],
            EMAILJS_E2E["EMAILJS_BOOKING_TEMPLATE_ID"],
        ], sent_payloads(fake)
        assert violations == []
    except AssertionError as failed:
        # What the server printed and which documents the page loaded say why.
        raise AssertionError(
            f"{failed}\n--- pages loaded: {loads}\n--- the server printed:\n{server.log_tail(80)}"
        ) from failed
    finally:
        context.close()


@pytest.fixture
def stopped() -> Iterator[list[SiteServer]]:
    """Servers a test started, stopped at its end (by process group)."""
    servers: list[SiteServer] = []
    yield servers
    for server in servers:
        stop_site(server)


def test_make_prod_serves_working_forms_on_port_3000(
    browser: Browser, emailjs_fake: HTTPServer, tmp_path: Path, stopped: list
) -> None:
    port_was_free = _port_is_free(MAKE_PROD_PORT)
    server = running(["make", "prod"], emailjs_fake, tmp_path, None, "{url}/ping")
    stopped.append(server)
    if port_was_free:
        assert server.url == f"http://localhost:{MAKE_PROD_PORT}"
    both_forms_deliver(browser, server, emailjs_fake)


def test_a_development_run_on_other_ports_serves_working_forms(
    browser: Browser, emailjs_fake: HTTPServer, tmp_path: Path, stopped: list
) -> None:
    frontend, backend = free_port(), free_port()
    url = f"http://localhost:{frontend}"
    command = [
        sys.executable,
        "-m",
        "reflex",
        "run",
        "--frontend-port",
        str(frontend),
        "--backend-port",
        str(backend),
    ]
    ping = f"http://localhost:{backend}/ping"
    server = running(command, emailjs_fake, tmp_path, url, ping)
    stopped.append(server)
    both_forms_deliver(browser, server, emailjs_fake)
    # The README's promise for the owner's desk: `make run`, then the operator's invite.
    env = site_env(emailjs_fake, tmp_path) | {"REFLEX_BACKEND_PORT": str(backend)}
    the_owner_enrolls_and_finds_the_leads(browser, f"http://localhost:{backend}", env)


def the_owner_enrolls_and_finds_the_leads(browser: Browser, backend: str, env: dict) -> None:
    """``python -m agency_site.desk invite`` beside the running site prints a link on the
    backend's origin (``localhost``: WebAuthn wants a name); in Chromium (a virtual passkey)
    it enrolls, and the desk's inbox shows the leads just sent on the site."""
    done = subprocess.run(
        [sys.executable, "-m", "agency_site.desk", "invite", "ana@example.com"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    [link] = re.findall(r"^http\S+$", done.stdout, re.MULTILINE)
    assert link.startswith(backend + paths.DESK), link
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        _passkey = authenticator(page)  # Lives as long as its DevTools session.
        page.goto(link)
        page.get_by_label("Nombre de este dispositivo").fill("Portátil")
        page.get_by_role("button", name="Crear mi passkey").click()
        expect(page.get_by_role("heading", level=1, name="Bandeja")).to_be_visible()
        expect(page.locator("main")).to_contain_text("visitante@example.com")
    finally:
        context.close()

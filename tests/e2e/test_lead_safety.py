"""The lead forms when the visitor is quicker than the JavaScript, and against abuse.

- Without JavaScript (or before it starts, or with its modules blocked) each form is a
  plain HTML form posting to the backend's /_site/forms/<kind>: the same intake, a
  real answer page, nothing in the URL.
- Crafted websocket events (a raw socket.io client speaking Reflex's protocol) are
  refused with a short log line while another visitor's booking goes through.
- The slash redirect stays on the site.
"""

import asyncio
import contextlib
import datetime as dt
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
import socketio
from playwright.sync_api import Browser, Page, Route, expect
from playwright.sync_api import Error as PlaywrightError
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from agency_site import paths
from agency_site.content.form_words import COPY
from agency_site.web_base.security_headers import HEADER_POLICY
from tests.e2e.conftest import SiteServer, watch_csp
from tests.e2e.form_helpers import (
    SUBMIT,
    fill_booking,
    leads,
    madrid_today,
    open_schedule,
    wait_for_sends,
    working_day,
)
from tests.emailjs_fake import answer_sends
from tests.run_async import run

BOOKING_EVENT = (
    "reflex___state____state.agency_site___state___form_states____booking_form_state.submit"
)


@pytest.fixture
def no_js(browser: Browser, base_url: str) -> Iterator[Page]:
    """A page in a browser context with JavaScript switched off."""
    context = browser.new_context(base_url=base_url, java_script_enabled=False, locale="es-ES")
    page = context.new_page()
    yield page
    context.close()


def assert_no_personal_data_in_url(page: Page) -> None:
    """The answer's address (after the post's redirect) carries only the outcome and the
    language, never what the visitor typed."""
    query = urlsplit(page.url).query
    assert set(parse_qs(query)) <= {"answer", "language"}, page.url
    assert "%40" not in page.url and "@" not in page.url


def test_without_javascript_the_hero_posts_stores_and_thanks(
    no_js: Page,
    fake: HTTPServer,
    site: SiteServer,
) -> None:
    before = len(leads(site))
    no_js.goto(paths.HOME)
    form = no_js.locator("#hero-capture-form")
    form.get_by_label(COPY.hero.fields["email"].label).fill("sinjs@example.com")
    form.locator(SUBMIT).click()

    expect(no_js.get_by_text(COPY.hero.success)).to_be_visible()
    assert no_js.url.endswith("/_site/forms/contact?answer=sent&language=es")  # PRG.
    assert_no_personal_data_in_url(no_js)
    assert leads(site)[before:] and leads(site)[-1][1:] == ("contact", "sent")
    assert wait_for_sends(fake, 1)[0]["template_params"]["from_email"] == "sinjs@example.com"


def test_without_javascript_wrong_fields_come_back_with_messages_and_values(
    no_js: Page,
    fake: HTTPServer,
    site: SiteServer,
) -> None:
    before = leads(site)
    no_js.goto(paths.SCHEDULE)
    form = no_js.locator("#booking-form")
    form.get_by_label(COPY.booking.fields["name"].label).fill('Ana "<b>"')
    form.get_by_label(COPY.booking.fields["email"].label).fill("ana@example.com")
    form.get_by_label(COPY.booking.fields["phone"].label).fill("+34 600 12 34 56")
    form.get_by_label(COPY.booking.fields["date"].label).fill((working_day(2)).isoformat())
    form.get_by_label(COPY.booking.fields["time"].label).select_option("10:00")
    form.get_by_label(COPY.booking.fields["message"].label).fill("x" * 10)
    # A past date is refused by the server (the browser allows it without JS: no min set).
    form.get_by_label(COPY.booking.fields["date"].label).fill(
        (madrid_today() - dt.timedelta(days=1)).isoformat()
    )
    form.locator(SUBMIT).click()

    expect(no_js.get_by_text(COPY.booking.date_past)).to_be_visible()
    assert_no_personal_data_in_url(no_js)
    answer = no_js.locator("form")
    expect(answer.get_by_label(COPY.booking.fields["name"].label)).to_have_value('Ana "<b>"')
    expect(answer.get_by_label(COPY.booking.fields["phone"].label)).to_have_value(
        "+34 600 12 34 56"
    )
    expect(answer.get_by_label(COPY.booking.fields["time"].label)).to_have_value("10:00")
    expect(answer.get_by_label(COPY.booking.fields["date"].label)).to_have_attribute(
        "aria-invalid", "true"
    )
    assert leads(site) == before

    # Corrected on the answer page, it goes through.
    day = working_day(2)
    answer.get_by_label(COPY.booking.fields["date"].label).fill(day.isoformat())
    answer.locator("button[type=submit]").click()
    expect(no_js.get_by_text(COPY.booking.success)).to_be_visible()
    assert leads(site)[-1][1:] == ("booking", "sent")
    [sent] = wait_for_sends(fake, 1)
    assert sent["template_params"]["from_name"] == 'Ana "<b>"'


def test_with_the_page_modules_blocked_the_booking_still_arrives(
    page: Page,
    fake: HTTPServer,
    site: SiteServer,
) -> None:
    page.route("**/assets/**.js", lambda route: route.abort())
    page.goto(paths.SCHEDULE)
    day = working_day(4)
    fill_booking(page, day, "11:00")
    page.locator("#booking-form").locator(SUBMIT).click()

    expect(page.get_by_text(COPY.booking.success)).to_be_visible()
    assert_no_personal_data_in_url(page)
    assert leads(site)[-1][1:] == ("booking", "sent")
    assert wait_for_sends(fake, 1)[0]["template_params"]["time"] == "11:00"


def test_a_submit_before_hydration_is_not_lost(
    page: Page,
    fake: HTTPServer,
    site: SiteServer,
) -> None:
    before = len(leads(site))
    # A slow connection: the page's modules are still on their way when the visitor
    # types and presses Enter. Held here (not failed) until the answer has come.
    held: list[Route] = []
    page.route("**/assets/**.js", lambda route: held.append(route))
    page.goto(paths.HOME, wait_until="commit")
    field = page.locator("#hero-email")
    field.fill("rapida@example.com")
    assert page.evaluate("document.documentElement.dataset.hydrated !== 'true'")
    field.press("Enter")

    expect(page.get_by_text(COPY.hero.success)).to_be_visible()
    assert page.url.endswith("/_site/forms/contact?answer=sent&language=es")  # Its own post.
    assert_no_personal_data_in_url(page)
    assert len(leads(site)) == before + 1
    assert wait_for_sends(fake, 1)[0]["template_params"]["from_email"] == "rapida@example.com"
    for route in held:
        with contextlib.suppress(PlaywrightError):  # Ended by the navigation already.
            route.continue_()


def test_a_hung_provider_frees_the_form_with_the_honest_message(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    def hang(request: Request) -> Response:
        time.sleep(8)  # Past the site's 5 s deadline (and short of EmailJS's 10 s timeout).
        return Response("OK")

    answer_sends(fake, hang, forget=True)
    form = open_schedule(page)
    fill_booking(page, working_day(8), "17:00")
    form.locator(SUBMIT).click()

    # The lead is stored, so the visitor is told it was received; the button works again.
    expect(form.get_by_text(COPY.notices.queued)).to_be_visible(timeout=15_000)
    expect(form.locator(SUBMIT)).to_have_text(COPY.booking.submit)
    expect(form.locator(SUBMIT)).to_be_enabled()
    assert leads(site)[-1][1] == "booking"


# --- Crafted websocket events --------------------------------------------------------------


# Over the socket's 32 KB cap: the server closes the connection without reading them.
OVERSIZED = {"1 MB field", "10,000 keys"}


def crafted_events() -> list[tuple[str, object]]:
    """(label, event) pairs a hostile client might send to the booking handler."""

    def submit(form_data) -> dict:
        return {"name": BOOKING_EVENT, "payload": {"form_data": form_data}, "router_data": {}}

    return [
        ("1 MB field", submit({"name": "x" * 1_000_000})),
        ("10,000 keys", submit({f"k{n}": "" for n in range(10_000)})),
        ("non-string keys", submit({"__reflex_form_data__": [[1, "a"], [[2], "b"]]})),
        ("list", submit(["name", "Ana"])),
        ("number", submit(42)),
        ("list event", [1, 2, 3]),
        ("number value", submit({"name": 7, "email": ["a@b.c"]})),
    ]


def refusals(site: SiteServer, start: int) -> list[str]:
    """The guard's log lines since byte ``start`` of the site's log."""
    log = site.log_path.read_bytes()[start:].decode(errors="replace")
    return [line for line in log.splitlines() if "Refused a crafted websocket event" in line]


async def send_crafted(site: SiteServer, log_start: int) -> dict[str, str]:
    """Send each crafted event on its own raw socket.io connection; what became of it."""
    outcome: dict[str, str] = {}
    for label, event in crafted_events():
        client = socketio.AsyncClient(reconnection=False)
        await client.connect(
            f"{site.url}?token={uuid.uuid4()}",
            namespaces=["/_event"],
            socketio_path="/_event",
            transports=["websocket"],
        )
        before = len(refusals(site, log_start))
        await client.emit("event", event, namespace="/_event")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if not client.connected:
                outcome[label] = "closed"
                break
            if len(refusals(site, log_start)) > before:
                outcome[label] = "logged"
                break
            await asyncio.sleep(0.05)
        else:
            outcome[label] = "nothing"
        await client.disconnect()
    return outcome


def test_crafted_websocket_events_are_refused_while_a_visitor_books(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    log_start = site.log_path.stat().st_size
    form = open_schedule(page)
    fill_booking(page, working_day(6), "12:00")

    result: dict = {}
    attacker = threading.Thread(
        target=lambda: result.update(outcome=asyncio.run(send_crafted(site, log_start)))
    )
    attacker.start()
    started = time.monotonic()
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.booking.success)).to_be_visible(timeout=10_000)
    answered_in = time.monotonic() - started
    attacker.join(timeout=120)

    assert answered_in < 5  # Sanity bound only: the visitor was not stalled.
    assert leads(site)[-1][1:] == ("booking", "sent")
    assert result["outcome"] == {
        label: "closed" if label in OVERSIZED else "logged" for label, _ in crafted_events()
    }
    lines = refusals(site, log_start)
    assert len(lines) == len(crafted_events()) - len(OVERSIZED)
    assert all(len(line) < 400 for line in lines)
    log = site.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert "Traceback" not in log, log[-3000:]


def test_a_websocket_from_another_origin_is_refused(site: SiteServer) -> None:
    async def connect() -> bool:
        client = socketio.AsyncClient(reconnection=False)
        try:
            await client.connect(
                f"{site.url}?token={uuid.uuid4()}",
                namespaces=["/_event"],
                socketio_path="/_event",
                transports=["websocket"],
                headers={"Origin": "https://evil.example"},
            )
        except socketio.exceptions.ConnectionError:
            return False
        await client.disconnect()
        return True

    assert run(connect()) is False


def test_the_slash_redirect_stays_on_the_site(site: SiteServer) -> None:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    for raw in ("/%2Fevil.com%2F..%2Fabout/", "/%5Cevil.com%2F..%2Fabout/", "/about/"):
        try:
            response = opener.open(site.url + raw)
            status, location = response.status, response.headers.get("location")
        except urllib.error.HTTPError as error:
            status, location = error.code, error.headers.get("location")
        assert location in (None, "/about"), (raw, status, location)
    assert location == "/about"


def test_the_pages_inline_scripts_run_under_the_hashed_csp(page: Page, site: SiteServer) -> None:
    """The page's own policy (its <meta>, first in <head>) lists its inline scripts; the
    server sends the short header beside it; the page hydrates with no violation."""
    violations = watch_csp(page)
    response = page.goto(paths.SCHEDULE)
    assert response is not None and response.headers["content-security-policy"] == HEADER_POLICY
    meta = page.locator('head > meta[http-equiv="Content-Security-Policy"]')
    expect(meta).to_have_count(1)
    csp = meta.get_attribute("content") or ""
    assert "'unsafe-eval'" not in csp and "'sha256-" in csp
    assert "'unsafe-inline'" not in csp.split("script-src", 1)[1].split(";")[0]
    assert page.evaluate("document.head.firstElementChild.httpEquiv") == "Content-Security-Policy"
    expect(page.locator("html[data-hydrated='true']")).to_have_count(1, timeout=20_000)
    assert violations == []

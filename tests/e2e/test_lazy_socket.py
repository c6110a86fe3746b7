"""Readers cost the backend nothing: the websocket opens only for a visitor who uses a form.

Websockets are counted from before the first request (Playwright's ``websocket`` event
also sees Reflex's pre-mount "warm" transport), and so are the polling requests of the
socket.io transport and the session token Reflex keeps for a connected tab.
"""

import time

from playwright.sync_api import Page, Request, WebSocket, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.form_words import COPY
from agency_site.state import ui
from tests.e2e.conftest import SiteServer
from tests.e2e.form_helpers import (
    SUBMIT,
    expect_shown_for_about_five_seconds,
    fill_booking,
    leads,
    wait_for_sends,
    working_day,
)
from tests.e2e.helpers import expect_page, open_page, scroll_to

# Long enough for a socket that would open at mount, or after a navigation, to show up.
SETTLE_MS = 1_500


class Backend:
    """Every websocket and socket.io polling request a page makes, from its creation."""

    def __init__(self, page: Page) -> None:
        self.sockets: list[str] = []
        self.polling: list[str] = []
        page.on("websocket", self._socket)
        page.on("request", self._request)

    def _socket(self, socket: WebSocket) -> None:
        self.sockets.append(socket.url)

    def _request(self, request: Request) -> None:
        if "/_event" in request.url:
            self.polling.append(request.url)

    def untouched(self) -> bool:
        return not self.sockets and not self.polling


def session_token(page: Page) -> str | None:
    return page.evaluate("() => window.sessionStorage.getItem('token')")


def test_a_reader_opens_no_websocket_on_any_route(page: Page) -> None:
    # Every route is checked for it where it is loaded once for all its first-sight checks
    # (test_a11y.py::test_every_route_answers_with_its_title_one_heading_and_no_axe_violations);
    # here one tab goes through the home page, waiting longer, and the not-found pages.
    backend = Backend(page)
    counts = {}
    for path in [paths.HOME, paths.CONTACT, "/no-such-page", "/ca/no-such-page"]:
        before = len(backend.sockets) + len(backend.polling)
        open_page(page, path)
        page.wait_for_timeout(SETTLE_MS if path == paths.HOME else 300)
        counts[path] = len(backend.sockets) + len(backend.polling) - before
    print("websockets and polling requests per route:", counts)
    assert counts == dict.fromkeys(counts, 0)
    assert session_token(page) is None


def test_navigating_the_menus_and_back_to_top_open_no_websocket(page: Page) -> None:
    backend = Backend(page)
    open_page(page, paths.HOME)
    header = page.locator("header")
    header.get_by_role("link", name="About").click()
    expect_page(page, paths.ABOUT)
    page.locator(f"#{ui.SERVICES_TOGGLE_ID}").click()
    expect(page.locator("#services-menu")).to_be_visible()
    service = page.locator(f"#services-menu a[href^='{paths.SERVICES_PREFIX}/']").first
    service_path = service.get_attribute("href")
    service.click()
    expect_page(page, service_path)
    page.go_back()
    expect_page(page, paths.ABOUT)
    page.locator(f"footer a[href='{paths.SCHEDULE}']").first.click()
    expect_page(page, paths.SCHEDULE)
    # Back-to-top still works after client-side navigations: no event is stuck in
    # the queue waiting for a socket that was never wanted.
    scroll_to(page, 400)
    page.locator("#scroll-to-top").click()
    page.wait_for_function("() => window.scrollY < 1", timeout=5_000)
    page.wait_for_timeout(SETTLE_MS)
    assert backend.untouched(), (backend.sockets, backend.polling[:3])
    assert session_token(page) is None


def test_a_reader_s_javascript_error_reaches_the_backend_log_without_a_socket(
    page: Page, site: SiteServer
) -> None:
    backend = Backend(page)
    open_page(page, paths.ABOUT)
    log_start = len(site.log_path.read_text())
    page.evaluate("() => setTimeout(() => { throw new Error('reader-error-probe'); })")
    for _ in range(50):
        if "reader-error-probe" in site.log_path.read_text()[log_start:]:
            break
        time.sleep(0.1)
    logged = [
        line for line in site.log_path.read_text()[log_start:].splitlines() if "probe" in line
    ]
    assert logged, "the error never reached the backend log"
    assert "Browser error on /about" in logged[0]
    assert len(logged[0]) < 800
    assert backend.untouched()


def test_a_visitor_who_uses_the_booking_form_opens_one_socket_and_books(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    backend = Backend(page)
    open_page(page, paths.SCHEDULE)
    page.wait_for_timeout(SETTLE_MS)
    assert backend.untouched()
    form = page.locator("#booking-form")
    day = working_day(4)
    fill_booking(page, day)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.booking.success)).to_be_visible()
    assert len(wait_for_sends(fake, 1)) == 1
    assert leads(site)[-1][1:] == ("booking", "sent")
    for field in (
        COPY.booking.fields["name"],
        COPY.booking.fields["email"],
        COPY.booking.fields["phone"],
        COPY.booking.fields["date"],
    ):
        expect(form.get_by_label(field.label)).to_have_value("")
    expect_shown_for_about_five_seconds(page, COPY.booking.success)
    assert len(backend.sockets) == 1, backend.sockets
    assert session_token(page)


def test_a_submit_without_a_focus_still_connects_and_delivers(page: Page, fake: HTTPServer) -> None:
    backend = Backend(page)
    open_page(page, paths.HOME)
    form = page.locator("#hero-capture-form")
    field = form.get_by_label(COPY.hero.fields["email"].label)
    # Autofill: the value arrives without a focus, then the form is submitted by script
    # (as a browser that does not focus buttons would on a click).
    field.evaluate(
        """(input, value) => {
            const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
            setter.call(input, value);
            input.dispatchEvent(new Event('input', { bubbles: true }));
            input.dispatchEvent(new Event('change', { bubbles: true }));
        }""",
        "autofill@example.com",
    )
    assert backend.untouched()
    form.evaluate("(form) => form.requestSubmit()")
    expect(form.get_by_text(COPY.hero.success)).to_be_visible()
    assert len(wait_for_sends(fake, 1)) == 1
    assert len(backend.sockets) == 1, backend.sockets

"""A form never refuses a lead for want of a websocket: it goes over HTTP instead, once.

The websocket is blocked or cut in the browser itself (Playwright's ``route_web_socket``),
as a proxy or a corporate network that refuses websocket upgrades would.
"""

import re

from playwright.sync_api import Page, WebSocketRoute, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.form_words import COPY
from tests.e2e.conftest import SiteServer
from tests.e2e.form_helpers import (
    SUBMIT,
    expect_shown_for_about_five_seconds,
    fill_booking,
    leads,
    wait_for_sends,
    working_day,
)
from tests.e2e.helpers import open_page

EVENT_SOCKET = re.compile(r"/_event")


def refuse_websockets(page: Page) -> None:
    """Every websocket the page opens is closed at once, as a blocking proxy does."""
    page.route_web_socket(EVENT_SOCKET, lambda socket: socket.close())


def test_with_websockets_refused_the_booking_is_delivered_over_http(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    refuse_websockets(page)
    open_page(page, paths.SCHEDULE)
    form = page.locator("#booking-form")
    before = len(leads(site))
    fill_booking(page, working_day(6), "10:00")
    expect(form.locator(SUBMIT)).to_be_enabled()
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.booking.success)).to_be_visible(timeout=15_000)
    assert len(wait_for_sends(fake, 1)) == 1
    assert [lead[1:] for lead in leads(site)[before:]] == [("booking", "sent")]
    expect(form.get_by_label(COPY.booking.fields["name"].label)).to_have_value("")
    expect_shown_for_about_five_seconds(page, COPY.booking.success)


def test_with_websockets_refused_wrong_fields_get_their_messages_in_place(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    refuse_websockets(page)
    open_page(page, paths.HOME)
    form = page.locator("#hero-capture-form")
    field = form.get_by_label(COPY.hero.fields["email"].label)
    field.fill("no-es-un-correo@")
    # The browser's own check would stop this address; the server must judge it too.
    form.evaluate("(form) => { form.noValidate = true; }")
    page.wait_for_function(
        "() => document.querySelector('#hero-capture-form').dataset.offline === 'true'"
    )
    form.locator(SUBMIT).click()
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(form.locator("#hero-email-error")).not_to_be_empty()
    assert wait_for_sends(fake, 1, timeout=2) == []
    expect(page.get_by_text(COPY.notices.store_failed)).to_have_count(0)


def book_through(page: Page, site: SiteServer, relay, day, slot: str) -> int:
    """Book on /schedule with the page's websockets going through ``relay``; wait for the
    thanks. The number of leads stored before."""
    page.route_web_socket(EVENT_SOCKET, relay)
    open_page(page, paths.SCHEDULE)
    form = page.locator("#booking-form")
    before = len(leads(site))
    fill_booking(page, day, slot)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.booking.success)).to_be_visible(timeout=20_000)
    return before


def assert_one_booking_sent(fake: HTTPServer, site: SiteServer, before: int) -> None:
    """Exactly one e-mail went out, and exactly one lead was stored (and sent)."""
    assert len(wait_for_sends(fake, 1)) == 1
    assert [lead[1:] for lead in leads(site)[before:]] == [("booking", "sent")]


def test_a_booking_whose_socket_drops_before_the_answer_is_stored_and_sent_once(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    cut = []

    def relay(socket: WebSocketRoute) -> None:
        if cut:
            socket.close()
            return
        server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            server.send(message)
            if ".submit" in str(message):
                # The submission reaches the backend, its answer never reaches the page.
                cut.append(True)
                socket.close()

        socket.on_message(from_page)
        server.on_message(lambda message: None if cut else socket.send(message))

    before = book_through(page, site, relay, working_day(7), "11:00")
    assert cut, "the submission never went over the websocket"
    assert len(wait_for_sends(fake, 1)) == 1
    page.wait_for_timeout(2_000)  # Nothing else arrives late.
    assert_one_booking_sent(fake, site, before)


def test_a_booking_the_backend_never_starts_goes_over_http_once(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    # The socket stays connected but the submission never reaches a handler, as while
    # the backend's state store (Redis) is down: the form must not wait for ever.
    swallowed = []

    def relay(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if ".submit" in str(message):
                swallowed.append(True)
                return
            server.send(message)

        socket.on_message(from_page)
        server.on_message(socket.send)

    before = book_through(page, site, relay, working_day(8), "12:00")
    assert swallowed, "the submission never went to the websocket"
    assert_one_booking_sent(fake, site, before)

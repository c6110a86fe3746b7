"""Pure UI interactions (menus, dropdown, navbar scroll style) send no websocket frames.

A reader opens no websocket at all (tests/e2e/test_lazy_socket.py); a visitor who uses
the booking form has one, and choosing dates still sends nothing over it."""

from playwright.sync_api import Page, WebSocket, expect

from agency_site.state import ui
from tests.e2e.helpers import open_page, scroll_to

# engine.io heartbeat (ping "2" / pong "3"): transport upkeep, not application traffic.
_HEARTBEAT = {"2", "3"}


class FrameLog:
    """Every websocket frame the page sends, from the moment it is created."""

    def __init__(self, page: Page) -> None:
        self.sockets: list[str] = []
        self.sent: list[str] = []
        page.on("websocket", self._watch)

    def _watch(self, socket: WebSocket) -> None:
        self.sockets.append(socket.url)
        socket.on("framesent", lambda payload: self.sent.append(str(payload)))

    def application_frames(self) -> list[str]:
        """Frames other than the heartbeat."""
        return [frame for frame in self.sent if frame not in _HEARTBEAT]


def _wait_for_quiet_socket(page: Page, log: FrameLog) -> None:
    """Wait until the page's websocket is open and its hydration events are sent."""
    for _ in range(50):
        if log.sockets and log.application_frames():
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(1_000)


def test_menus_dropdown_and_scrolling_send_no_websocket_frames(page: Page) -> None:
    log = FrameLog(page)
    open_page(page, "/")

    toggle = page.locator(f"#{ui.SERVICES_TOGGLE_ID}")
    toggle.click()
    expect(page.locator("#services-menu")).to_be_visible()
    page.keyboard.press("Escape")
    toggle.click()
    toggle.click()
    expect(page.locator("#services-menu")).to_be_hidden()
    header = page.locator("#site-header")
    for y, scrolled in ((60, "true"), (0, "false"), (11, "true"), (0, "false")):
        scroll_to(page, y)
        expect(header).to_have_attribute("data-scrolled", scrolled)

    page.set_viewport_size({"width": 375, "height": 812})
    page.locator(f"#{ui.MOBILE_MENU_TOGGLE_ID}").click()
    page.locator(f"#{ui.MOBILE_SERVICES_TOGGLE_ID}").click()
    expect(page.locator("#mobile-services-menu")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#mobile-menu")).to_be_hidden()
    page.wait_for_timeout(500)

    assert log.sockets == [], "a reader's menus and scrolling opened a websocket"


def test_choosing_booking_dates_sends_no_websocket_frames(page: Page) -> None:
    """The time list follows the date in the browser: the server only sees the submission."""
    log = FrameLog(page)
    open_page(page, "/schedule")
    page.locator("#booking-date").focus()  # Using the form opens the socket.
    _wait_for_quiet_socket(page, log)
    before = len(log.application_frames())
    date, time = page.locator("#booking-date"), page.locator("#booking-time")
    for day in ("2030-01-05", "2030-01-07", "2030-01-08"):  # A Saturday, then weekdays.
        date.fill(day)
        time.focus()
    expect(time.locator("option[value='09:00']")).to_be_enabled()
    page.wait_for_timeout(1_000)
    assert log.application_frames()[before:] == []

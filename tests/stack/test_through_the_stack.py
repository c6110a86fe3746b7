"""The production topology as a visitor meets it, through the web server `make stack` runs
(nginx, the deployed default; Caddy with STACK_SERVER=caddy): every page, the forms, the
headers, a dead backend. tests/stack/test_through_nginx.py and test_through_caddy.py check
what is each server's own."""

import asyncio
import datetime as dt
import itertools
import re
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import aiohttp
import httpx
import sqlalchemy as sa
from playwright.sync_api import Page, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.form_words import COPY
from agency_site.content.not_found import NOT_FOUND
from agency_site.deploy.topology import CLIENT_READ_TIMEOUT_S
from agency_site.routes import ROUTES
from agency_site.rules import AGENCY_TIME_ZONE, TIME_SLOTS
from agency_site.web_base.security_headers import (
    asset_headers,
    content_security_policy,
    document_headers,
)
from agency_site.working_calendar import default_calendar
from tests.e2e.helpers import NOT_FOUND_TITLE, open_page
from tests.emailjs_fake import sent_payloads
from tests.run_async import run
from tests.stack.conftest import Stack
from tests.test_deploy import (
    assert_header_sets,
    visit_revealing_everything,
)

SUBMIT = "button[type=submit]"


def senders(fake: HTTPServer) -> list[str]:
    """``from_email`` of every send the fake received."""
    return [payload["template_params"]["from_email"] for payload in sent_payloads(fake)]


def wait_for_senders(fake: HTTPServer, expected: list[str], timeout: float = 30) -> list[str]:
    """Wait until every expected sender was received (and a moment for duplicates)."""
    deadline = time.monotonic() + timeout
    while not set(expected) <= set(senders(fake)) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1)
    return senders(fake)


_BOOKED = itertools.count()


def next_slot() -> tuple[dt.date, str]:
    """A slot no other booking of this session asked for (a slot is requested once): the
    slots of the working days from three days ahead, in order."""
    day_index, slot = divmod(next(_BOOKED), len(TIME_SLOTS))
    calendar = default_calendar()
    day = calendar.next_working_day(
        dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE)).date() + dt.timedelta(days=3)
    )
    for _ in range(day_index):
        day = calendar.next_working_day(day + dt.timedelta(days=1))
    return day, TIME_SLOTS[slot]


def book(page: Page, email: str) -> None:
    """Fill in and send the booking form; wait for the thank-you."""
    form = page.locator("#booking-form")
    form.get_by_label(COPY.booking.fields["name"].label).fill("Ana García")
    form.get_by_label(COPY.booking.fields["email"].label).fill(email)
    form.get_by_label(COPY.booking.fields["phone"].label).fill("+34 600 12 34 56")
    day, slot = next_slot()
    form.get_by_label(COPY.booking.fields["date"].label).fill(day.isoformat())
    form.get_by_label(COPY.booking.fields["time"].label).select_option(slot)
    form.locator(SUBMIT).click(timeout=60_000)  # Waits while the form is offline.
    expect(form.get_by_text(COPY.booking.success)).to_be_visible(timeout=30_000)


def stored(stack: Stack, email: str) -> list[str]:
    """Status of every lead in the stack's PostgreSQL from ``email``."""
    engine = sa.create_engine(stack.state()["db_url"])
    with engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT fields, status FROM leads")).all()
    engine.dispose()
    return [status for fields, status in rows if fields.get("email") == email]


def test_every_page_answers_with_its_title_and_heading(stack: Stack) -> None:
    """Every route's prerendered document, as the web server serves it: what a reader (or a crawler)
    gets before any script runs. The browser adds nothing here (the browser tests of
    tests/e2e render every route); the forms and the dead backend below go through Chromium."""
    with httpx.Client(base_url=stack.url, headers={"Accept-Encoding": "gzip"}) as client:
        for route in ROUTES:
            response = client.get(route.path)
            assert response.status_code == 200, route.path
            assert f"<title>{route.title}</title>" in response.text, route.path
            assert re.search(r"<h1[\s>]", response.text), f"{route.path}: no <h1>"


def test_unknown_paths_get_the_not_found_page_with_404(page: Page) -> None:
    response = page.goto(paths.PORTFOLIO)
    assert response is not None and response.status == 404
    expect(page).to_have_title(NOT_FOUND_TITLE)
    # Under /ca/ the Catalan one, with the same status.
    response = page.goto("/ca" + paths.PORTFOLIO)
    assert response is not None and response.status == 404
    expect(page.locator("html")).to_have_attribute("lang", "ca")
    expect(page.get_by_role("heading", level=1)).to_have_text(NOT_FOUND.of("ca").heading)


def check_header_sets(url: str, stack: Stack) -> None:
    """Documents carry the Python server's two header sets; assets and JSON the asset set."""
    documents = document_headers()
    assets = asset_headers(stack.url)
    bundle = re.search(r'/assets/[^"]+\.js', httpx.get(url + "/").text)[0]
    pages = {"/": 200, "/about": 200, "/no-existe": 404}
    files = (bundle, "/favicon.ico", "/robots.txt", "/sitemap.xml", "/_health", "/ping")
    assert_header_sets(url, documents, assets, pages, files)
    # The no-JavaScript form's answer is the backend's own page (no <meta> policy): the
    # whole policy as a header, passed through by the web server, once.
    answer = httpx.post(
        url + paths.form_post("contact"), data={"email": "x"}, headers={"Origin": stack.url}
    )
    assert answer.headers["content-type"].startswith("text/html"), answer.status_code
    whole = document_headers(content_security_policy(stack.url, stack.url))
    for name, value in whole.items():
        assert answer.headers.get_list(name) == [value], ("form answer", name)


def test_pages_carry_the_document_headers_and_assets_do_not(stack: Stack) -> None:
    check_header_sets(stack.url, stack)


def assert_precompressed(url: str, encodings: tuple[tuple[str, str], ...]) -> None:
    """A bundle comes in each ``(Accept-Encoding, Content-Encoding)`` pair's encoding."""
    bundle = re.search(r'/assets/[^"]+\.js', httpx.get(url + "/").text)[0]
    for accepted, encoding in encodings:
        response = httpx.get(url + bundle, headers={"Accept-Encoding": accepted})
        assert response.headers["content-encoding"] == encoding, accepted
        assert "accept-encoding" in response.headers.get("vary", "").lower()  # For caches.


def test_assets_come_precompressed_in_the_encoding_the_browser_prefers(stack: Stack) -> None:
    """Brotli to a browser (Chromium asks for gzip, br and zstd), gzip to a client that takes
    only gzip: each the export's own file (Caddy's zstd: test_through_caddy.py)."""
    assert_precompressed(stack.url, (("gzip, deflate, br, zstd", "br"), ("gzip", "gzip")))


def test_a_trailing_slash_redirects_to_the_page_and_never_off_site(stack: Stack) -> None:
    response = httpx.get(stack.url + "/about/")
    assert (response.status_code, response.headers["location"]) == (308, "/about")
    for crafted in ("/%2Fevil.com%2F..%2Fabout/", "//evil.com/", "/%5Cevil.com/"):
        response = httpx.get(stack.url + crafted)
        location = response.headers.get("location", "")
        assert not location.startswith(("//", "/\\", "http")), (crafted, location)


def test_both_forms_deliver_through_the_topology(page: Page, stack: Stack, fake) -> None:
    open_page(page, paths.HOME)
    hero = page.locator("#hero-capture-form")
    hero.get_by_label(COPY.hero.fields["email"].label).fill("stack-hero@example.com")
    hero.locator(SUBMIT).click()
    expect(hero.get_by_text(COPY.hero.success)).to_be_visible()
    open_page(page, paths.SCHEDULE)
    book(page, "stack-booking@example.com")
    expected = ["stack-hero@example.com", "stack-booking@example.com"]
    assert sorted(wait_for_senders(fake, expected)) == sorted(expected)
    assert stored(stack, "stack-booking@example.com") == ["sent"]


def test_a_visitor_keeps_booking_when_their_backend_dies(page: Page, stack: Stack, fake) -> None:
    open_page(page, paths.SCHEDULE)
    emails = []
    # One of the two kills hits the backend this visitor's websocket is on.
    for number in (1, 2):
        pid = stack.state()["pids"][f"backend{number}"]
        stack.stack("kill-backend", str(number))
        emails.append(f"stack-killed-{number}@example.com")
        started = time.monotonic()
        book(page, emails[-1])
        print(
            f"\nbackend {number} (pid {pid}) killed with SIGKILL; the same tab then booked "
            f"{emails[-1]}: thank-you shown after {time.monotonic() - started:.1f} s"
        )
        stack.stack("start-backend", str(number))
    assert sorted(wait_for_senders(fake, emails)) == sorted(emails)
    for email in emails:
        assert stored(stack, email) == ["sent"]
    print(f"e-mails received by the fake: {senders(fake)}; leads stored once, each 'sent'")


def quiet_websocket_survives(url: str, origin: str) -> str:
    """Open Reflex's websocket through ``url``, stay quiet past the proxy's read timeouts,
    then connect the socket.io namespace: the answer proves the connection was not cut.

    aiohttp's client, not simple_websocket's: when the proxy sends the 101 and engine.io's
    open packet in one segment, simple_websocket keeps the packet unread until the next
    one arrives (CI saw `receive` time out through nginx)."""
    return run(_quiet_websocket(url.replace("http", "ws", 1) + "/_event/", origin))


async def _quiet_websocket(address: str, origin: str) -> str:
    params = {"EIO": "4", "transport": "websocket"}
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(address, params=params, headers={"Origin": origin}) as ws,
    ):
        assert (await ws.receive_str(timeout=10)).startswith("0")  # engine.io's open packet
        await asyncio.sleep(CLIENT_READ_TIMEOUT_S + 3)
        await ws.send_str("40")
        return await ws.receive_str(timeout=10)


def visit_and_read_log(url: str, log: Path) -> tuple[dict[str, str], str, str]:
    """``visit_revealing_everything`` through ``url``; what it expects, the whole log after
    it and the visit's own lines."""
    before = log.stat().st_size if log.exists() else 0
    expected = visit_revealing_everything(url, url.replace("127.0.0.1", "localhost"))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # Each server writes its line after the answer.
        text = log.read_text()
        if all(f'"uri":"{uri}' in text[before:] for uri in expected.values()):
            break
        time.sleep(0.2)
    return expected, text, text[before:]

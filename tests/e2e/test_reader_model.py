"""The load test's reader is a real browser's reader: Chromium fetches no more than it.

A reader lands on a page, then follows menu links (client-side navigations). Every
same-origin request Chromium makes must be among the URLs the load test's reader
model (``scripts/loadtest/readers.py``) fetches for the same route, so the load test
does not leave out what browsers cost the server; and a reader opens no websocket.
"""

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page

from agency_site import paths
from agency_site.content.service_pages import SERVICES
from scripts.loadtest.readers import ReaderModel, reader_urls
from tests.e2e.helpers import expect_page, open_page

SERVICE = paths.service(SERVICES[0].id)
JOURNEYS = {
    "home": [paths.HOME, paths.ABOUT, SERVICE, paths.CONTACT],
    "schedule": [paths.SCHEDULE, paths.CASE_STUDIES, paths.HOME, paths.ABOUT],
}


class Traffic:
    """What the page fetches from its own origin, and the websockets it opens."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.origin = base_url.rstrip("/")
        self.paths: list[str] = []
        self.sockets: list[str] = []
        page.on("request", self._request)
        page.on("websocket", lambda socket: self.sockets.append(socket.url))

    def _request(self, request) -> None:
        if request.url.startswith(self.origin + "/"):
            self.paths.append(urlsplit(request.url).path)


def click_link(page: Page, path: str) -> None:
    """Follow the menu link to ``path`` (a service through the Services dropdown)."""
    if path.startswith("/services/"):
        page.locator("#services-toggle").click()
        page.locator(f'#services-menu a[href="{path}"]').click()
    else:
        page.locator(f'a[href="{path}"]:visible').first.click()
    expect_page(page, path)
    page.wait_for_load_state("networkidle")


def read(page: Page, base_url: str, journey: list[str]) -> Traffic:
    """A reader: a full load of the first route, then client-side navigations."""
    traffic = Traffic(page, base_url)
    open_page(page, journey[0])
    page.wait_for_load_state("networkidle")
    for path in journey[1:]:
        click_link(page, path)
    return traffic


@pytest.mark.parametrize("journey", JOURNEYS.values(), ids=JOURNEYS.keys())
def test_a_browser_reader_fetches_nothing_the_load_test_reader_does_not(
    page: Page, base_url: str, journey: list[str]
) -> None:
    traffic = read(page, base_url, journey)
    modelled = {urlsplit(url).path for url in reader_urls(base_url, journey)}
    # The browser did navigate client-side: each route's own module came in.
    routes = ReaderModel(base_url.rstrip("/") + "/")
    routes.page(journey[0])
    assert traffic.paths[0] == journey[0]
    for path in journey[1:]:
        assert routes.routes[path][0] in traffic.paths, f"no navigation to {path}?"
    extra = sorted(set(traffic.paths) - modelled)
    assert not extra, f"Chromium fetched what the load test's reader does not: {extra}"


@pytest.mark.parametrize("journey", JOURNEYS.values(), ids=JOURNEYS.keys())
def test_a_browser_reader_opens_no_websocket(page: Page, base_url: str, journey: list[str]) -> None:
    traffic = read(page, base_url, journey)
    page.wait_for_timeout(1_000)
    assert traffic.sockets == []

"""One server, any of its names: ``make prod`` (``reflex run --env prod --single-port``)
answers the hero form whichever name the visitor opened it by.

Reflex prints ``App running at: http://0.0.0.0:<port>/``, the README says ``localhost``; a
visitor may type ``127.0.0.1``. The site's build reaches the backend at the page's own origin
(``agency_site/reflex_ext/backend_origin.py``): over the websocket, and over the HTTP
fallback when websockets are refused.
"""

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.form_words import COPY
from tests.e2e.conftest import SiteServer
from tests.e2e.form_helpers import SUBMIT, leads, wait_for_sends
from tests.e2e.helpers import open_page
from tests.e2e.test_form_http_fallback import refuse_websockets

NAMES = ("localhost", "127.0.0.1", "0.0.0.0")


def _deliver_hero(page: Page, fake: HTTPServer, site: SiteServer, url: str, email: str) -> None:
    """Open Home at ``url``, send the hero form with ``email``: thanked, stored and e-mailed."""
    before = len(leads(site))
    open_page(page, url + paths.HOME)
    form = page.locator("#hero-capture-form")
    form.get_by_label(COPY.hero.fields["email"].label).fill(email)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.hero.success)).to_be_visible(timeout=15_000)
    sends = wait_for_sends(fake, 1)
    assert [send["template_params"]["from_email"] for send in sends] == [email]
    assert [lead[1:] for lead in leads(site)[before:]] == [("contact", "sent")]


@pytest.mark.parametrize("name", NAMES)
def test_the_hero_form_answers_under_each_name_of_the_server(
    page: Page, fake: HTTPServer, site: SiteServer, name: str
) -> None:
    url = site.url.replace(urlsplit(site.url).hostname or "", name, 1)
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    _deliver_hero(page, fake, site, url, f"nombre-{name.replace('.', '-')}@example.com")
    # The form's own action and the socket are on the name the visitor used.
    action = page.locator("#hero-capture-form").get_attribute("action") or ""
    assert action.startswith("/"), action
    assert sockets and all(urlsplit(socket).hostname == name for socket in sockets), sockets


def test_with_websockets_refused_the_fallback_posts_to_the_name_in_use(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    url = site.url.replace("localhost", "127.0.0.1", 1)
    refuse_websockets(page)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    _deliver_hero(page, fake, site, url, "sin-socket@example.com")
    assert [urlsplit(post).netloc for post in posts] == [urlsplit(url).netloc], posts

"""Split origins, as a static host or CDN and an ``api.`` backend deploy the site.

The session's split-origin site (tests/e2e/split_site.py): the frontend export served as
Cloudflare Pages serves it, with the export's own ``_headers`` and ``_redirects``; the
backend alone on another port, started only when a test needs it.

While the backend is away the site stays readable and navigable, then reconnects. With it
up: readers open no websocket, both forms deliver over the socket and, with websockets
refused, over the HTTP fallback (cross-origin, CORS from the site's origin only), the
no-JavaScript post is answered, and the booking links open on the backend's origin.
"""

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from pytest_httpserver import HTTPServer

from agency_site import locale, paths
from agency_site.content.form_words import COPY
from agency_site.content.pages import PAGES
from agency_site.deploy.static_host import REDIRECTS_FILE
from agency_site.deploy.topology import page_paths
from agency_site.routes import ROUTES
from agency_site.web_base.security_headers import HEADER_POLICY
from tests.e2e.conftest import SiteServer
from tests.e2e.form_helpers import SUBMIT, fill_booking, wait_for_sends, working_day
from tests.e2e.helpers import TYPING_MS, expect_page, open_page
from tests.e2e.split_site import SplitSite
from tests.e2e.test_form_http_fallback import refuse_websockets
from tests.test_static_host import parse_redirects

# What Reflex's default overlay would show: none of it may appear.
OVERLAY_TEXT = re.compile(r"Cannot connect|Connection Error|Backend is|server is reachable")


def assert_readable(page: Page) -> None:
    """The page's heading is visible and on top: no overlay covers or blocks it."""
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_be_visible()
    expect(page.get_by_text(OVERLAY_TEXT)).to_have_count(0)
    expect(page.locator("[title*='Connection Error'], .lucide-wifi-off")).to_have_count(0)
    expect(page.locator("dialog[open], [role='alertdialog']")).to_have_count(0)
    # Going back restores the old scroll position (the heading may be off-screen), and
    # right after a client-side navigation the old page may still be fading out.
    heading.scroll_into_view_if_needed()
    page.wait_for_function(
        """() => { const h = document.querySelector('main h1');
           if (!h) return false;
           const r = h.getBoundingClientRect();
           const el = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
           return !!el && (el === h || h.contains(el)); }""",
        timeout=5_000,
    )


def open_offline(page: Page, url: str) -> None:
    """Open a page whose backend is down (a reader never tries to reach it)."""
    page.goto(url)
    expect(page.locator("html[data-hydrated='true']")).to_have_count(1, timeout=20_000)


def use_form(page: Page) -> None:
    """Focus the page's first form field: the visitor starts using a form."""
    page.locator("form input:not([type=hidden])").first.focus()


def test_every_route_is_readable_without_backend(page: Page, split_site: SplitSite) -> None:
    for index, route in enumerate(ROUTES):
        open_offline(page, split_site.url + route.path)
        if index == 0:
            page.wait_for_timeout(4_000)  # several failed connection attempts
        assert_readable(page)
        expect(page).to_have_title(route.title)


def test_navigation_works_without_backend(page: Page, split_site: SplitSite) -> None:
    open_offline(page, split_site.url + paths.HOME)
    page.wait_for_timeout(3_000)
    page.locator("header").get_by_role("link", name="About").click()
    expect_page(page, paths.ABOUT)
    assert_readable(page)
    page.locator("footer").get_by_role("link", name=PAGES[paths.PRIVACY_POLICY].name).click()
    expect_page(page, paths.PRIVACY_POLICY)
    assert_readable(page)
    page.go_back()
    expect_page(page, paths.ABOUT)
    assert_readable(page)


@pytest.mark.parametrize("path", [paths.HOME, paths.SCHEDULE])
def test_a_form_used_with_the_backend_down_is_never_paused_and_says_how_to_reach_us(
    page: Page, split_site: SplitSite, path: str
) -> None:
    # A reader never contacts the backend; a visitor who uses a form does. Neither the
    # websocket nor the form's HTTP path answers here, so the submit ends with the
    # honest notice and the agency's direct channels; the button is never disabled.
    open_offline(page, split_site.url + path)
    use_form(page)
    form = page.locator("form").first
    form.evaluate("(form) => { form.noValidate = true; }")
    page.wait_for_function("(form) => form.dataset.offline === 'true'", arg=form.element_handle())
    submit = form.locator("button[type=submit]")
    expect(submit).to_be_enabled()
    submit.click()
    expect(form.get_by_text(COPY.notices.store_failed)).to_be_visible(timeout=15_000)
    expect(submit).to_be_enabled()


def test_site_reconnects_when_the_backend_returns(page: Page, split_site: SplitSite) -> None:
    received: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(str(f))))
    open_offline(page, split_site.url + paths.HOME)
    use_form(page)
    page.wait_for_timeout(3_000)
    assert not any(frame.startswith("40") for frame in received)
    with split_site.backend():
        # socket.io keeps retrying; the namespace connect ack ("40/_event,...") and
        # the hydration delta prove the page is live again.
        for _ in range(120):
            if any("is_hydrated" in frame for frame in received):
                break
            page.wait_for_timeout(500)
        assert any(frame.startswith("40/_event") for frame in received), received[-5:]
        assert any("is_hydrated" in frame for frame in received)
        assert_readable(page)


# --- The backend up, on its own origin -----------------------------------------------------


@pytest.fixture(scope="module")
def backend(split_site: SplitSite) -> Iterator[SiteServer]:
    """The backend on its own origin for the rest of the module (the tests above it start
    and stop theirs)."""
    with split_site.backend() as server:
        yield server


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def test_readers_open_no_socket_and_the_hero_form_delivers_over_it(
    page: Page, fake: HTTPServer, split_site: SplitSite, backend: SiteServer
) -> None:
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    for path in (paths.HOME, paths.ABOUT, paths.HOME):
        open_page(page, split_site.url + path)
    page.wait_for_timeout(1_500)
    assert sockets == []  # A reader costs the backend nothing.

    form = page.locator("#hero-capture-form")
    form.get_by_label(COPY.hero.fields["email"].label).fill("dividido@example.com")
    page.wait_for_timeout(TYPING_MS)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.hero.success)).to_be_visible(timeout=15_000)
    # E-mailed: a person is never taken for spam (nothing to solve either).
    assert wait_for_sends(fake, 1)[0]["template_params"]["from_email"] == "dividido@example.com"
    assert {_origin(url) for url in sockets} == {backend.url.replace("http", "ws", 1)}


def test_a_catalan_visitor_s_hero_form_is_delivered_with_nothing_to_solve(
    page: Page, fake: HTTPServer, split_site: SplitSite, backend: SiteServer
) -> None:
    with locale.active("ca"):
        label, thanks = COPY.hero.fields["email"].label, COPY.hero.success
    open_page(page, split_site.url + "/ca")
    form = page.locator("#hero-capture-form")
    form.get_by_label(label).fill("catala@example.com")
    page.wait_for_timeout(TYPING_MS)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(thanks)).to_be_visible(timeout=15_000)
    sent = wait_for_sends(fake, 1)[0]["template_params"]
    assert (sent["from_email"], sent["language"]) == ("catala@example.com", locale.AUTONYMS["ca"])


def test_with_websockets_refused_the_booking_goes_to_the_backend_over_http_and_its_links_open_there(
    page: Page, fake: HTTPServer, split_site: SplitSite, backend: SiteServer
) -> None:
    refuse_websockets(page)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    open_page(page, split_site.url + paths.SCHEDULE)
    form = page.locator("#booking-form")
    fill_booking(page, working_day(8), "10:00")
    page.wait_for_timeout(TYPING_MS)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.booking.success)).to_be_visible(timeout=15_000)
    assert {_origin(url) for url in posts} == {backend.url}

    agency_mail = wait_for_sends(fake, 1)[0]["template_params"]
    for name in ("confirm_url", "decline_url"):
        link = agency_mail[name]
        assert _origin(link) == backend.url, link
        answer = page.goto(link)
        assert answer is not None and answer.status == 200
        expect(page.get_by_role("heading", level=1)).to_be_visible()


def test_without_javascript_the_form_posts_to_the_backend_and_is_answered_there(
    browser: Browser, fake: HTTPServer, split_site: SplitSite, backend: SiteServer
) -> None:
    context = browser.new_context(java_script_enabled=False, locale="es-ES")
    try:
        page = context.new_page()
        page.goto(split_site.url + paths.HOME)
        form = page.locator("#hero-capture-form")
        form.get_by_label(COPY.hero.fields["email"].label).fill("sinjs-dividido@example.com")
        form.locator(SUBMIT).click()
        expect(page.get_by_text(COPY.hero.success)).to_be_visible()
        assert _origin(page.url) == backend.url
        sent = wait_for_sends(fake, 1)[0]["template_params"]
        assert sent["from_email"] == "sinjs-dividido@example.com"
    finally:
        context.close()


def test_the_form_endpoints_answer_the_site_s_origin_only(
    split_site: SplitSite, backend: SiteServer
) -> None:
    def post(origin: str) -> httpx.Response:
        return httpx.post(
            backend.url + paths.form_post("contact"),
            content="email=cors%40example.com&language=es",
            headers={
                "Origin": origin,
                "Accept": "application/json",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )

    mine = post(split_site.url)
    # No form token: the backend keeps the lead aside and asks for a proof of work
    # (leads/spam/challenge.py); what matters here is that the site may read that answer.
    assert (mine.status_code, mine.json()["result"]) == (202, "challenge"), mine.text
    assert mine.headers.get("access-control-allow-origin") == split_site.url
    other = post("http://evil.example")
    assert other.status_code == 403
    assert "access-control-allow-origin" not in other.headers


def test_the_static_host_serves_the_export_s_own_headers_redirects_and_not_found_pages(
    page: Page, split_site: SplitSite
) -> None:
    about = httpx.get(split_site.url + paths.ABOUT)
    assert about.status_code == 200
    assert about.headers["content-security-policy"] == HEADER_POLICY  # Its _headers.
    assert '<meta http-equiv="Content-Security-Policy"' in about.text  # Its own policy.
    slash = httpx.get(split_site.url + paths.ABOUT + "/")
    assert (slash.status_code, slash.headers["location"]) == (308, paths.ABOUT)
    assert httpx.get(split_site.url + "/_headers").status_code == 404
    # Every page of the routes, from the build's own pages.
    built = (split_site.workdir / "web/build/client" / REDIRECTS_FILE).read_text()
    assert sorted(parse_redirects(built)) == sorted((f"{p}/", p, 308) for p in page_paths())
    for path, language in (("/no-existe", "es"), ("/ca/no-existeix", "ca")):
        answer = page.goto(split_site.url + path)
        assert answer is not None and answer.status == 404
        expect(page.locator("html")).to_have_attribute("lang", language)

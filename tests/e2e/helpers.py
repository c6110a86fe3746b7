"""Small helpers shared by the browser tests."""

import re

from playwright.sync_api import Page, Response, expect

from agency_site.content.not_found import NOT_FOUND
from agency_site.content.site import SITE
from agency_site.routes import ROUTES

_TITLES = {route.path: route.title for route in ROUTES}
# The not-found page's title in Spanish (pages/not_found.py's title(), as a visitor reads it).
NOT_FOUND_TITLE = SITE.page_title(NOT_FOUND.heading)
# As long as a person takes to fill a form: past the spam time trap's 3 s
# (LEADS_SPAM_MIN_SECONDS), for the sites that keep it (their real visitors).
TYPING_MS = 3_500


def open_page(page: Page, path: str) -> Response | None:
    """Go to ``path`` and wait until React has hydrated (buttons respond); the answer."""
    response = page.goto(path)
    expect(page.locator("html[data-hydrated='true']")).to_have_count(1, timeout=20_000)
    return response


def expect_page(page: Page, path: str) -> None:
    """Wait until the browser shows the page at ``path``: its URL and its own content.

    After a click, back or forward the URL changes before the new page renders, so
    the old page's elements are still there for a moment. The document title is
    rendered by the page itself (React hoists it into <head> in the same commit as
    the page's body), so once it reads the new page's title the old page is gone.
    Paths that are not routes show the not-found page. The server may add a slash. A query
    (``/contact?service=branding``) must be in the URL too.
    """
    path, mark, query = path.partition("?")
    url = re.compile(rf"^[a-z]+://[^/]+{re.escape(path.rstrip('/'))}/?{re.escape(mark + query)}$")
    expect(page).to_have_url(url)
    expect(page).to_have_title(_TITLES.get(path, NOT_FOUND_TITLE))
    expect(page.get_by_role("heading", level=1)).to_be_visible()


def scroll_to(page: Page, y: int) -> None:
    """Scroll the window to ``y`` and wait until the browser reports it."""
    page.evaluate("y => window.scrollTo(0, y)", y)
    page.wait_for_function("y => Math.abs(window.scrollY - y) < 1", arg=y)


def section_by_id(content, section_id: str):
    """The section of a sectioned page's content with this anchor id."""
    [section] = [section for section in content.sections if section.id == section_id]
    return section

"""Every route as a visitor first sees it (200, its title, one heading, no websocket, no error
in the console, nothing the CSP blocks) and WCAG 2.2 AA at the layout level: axe-core on every
route at both widths and in every menu state, keyboard, motion.

axe-core (pinned in scripts/node_tools.py) is installed under .tools/ on first use.
"""

import pytest
from playwright.sync_api import Browser, Page, expect

from agency_site import locale, paths
from agency_site.content import about
from agency_site.content.layout import LAYOUT
from agency_site.routes import ROUTES
from agency_site.state import ui
from scripts import node_tools
from tests.e2e.helpers import expect_page, open_page

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
DESKTOP = {"width": 1280, "height": 800}
MOBILE = {"width": 375, "height": 812}

_RUN_AXE = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags}});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
  }));
}"""
_FOCUSED = "document.activeElement"


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's browser bundle."""
    return (node_tools.ensure("axe-core") / "axe.min.js").read_text()


def settle(page: Page) -> None:
    """Wait until CSS animations (the page fade) and transitions have finished."""
    page.wait_for_function(
        "() => document.getAnimations().every((a) => a.playState !== 'running')",
        timeout=5_000,
    )


def axe_violations(page: Page, axe_source: str) -> list[dict]:
    """axe-core's WCAG A/AA violations on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # Through the DevTools protocol: the site's CSP (rightly) refuses an inline script tag.
        session = page.context.new_cdp_session(page)
        try:
            session.send("Runtime.evaluate", {"expression": axe_source})
        finally:
            session.detach()
    settle(page)
    return page.evaluate(_RUN_AXE, AXE_TAGS)


def open_menus(page: Page, mobile: bool) -> None:
    """Open the services dropdown (desktop) or the mobile menu and its services list."""
    if mobile:
        page.locator(f"#{ui.MOBILE_MENU_TOGGLE_ID}").click()
        page.locator(f"#{ui.MOBILE_SERVICES_TOGGLE_ID}").click()
        expect(page.locator("#mobile-services-menu")).to_be_visible()
    else:
        page.locator(f"#{ui.SERVICES_TOGGLE_ID}").click()
        expect(page.locator("#services-menu")).to_be_visible()


VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, MOBILE], ids=["1280x800", "375x812"])
# The open menus are the same markup on every route of a language (the services list, the
# mobile menu: nothing in them depends on the page), so they are checked open on one page of
# each kind per language; every route is checked as a visitor first sees it.
MENU_PAGES = [
    paths.HOME,
    locale.localized_path(paths.HOME, "ca"),
    next(route.path for route in ROUTES if route.path.startswith(paths.SERVICES_PREFIX)),
]


class Reader:
    """What a reader's page does besides showing itself: the websockets and the backend's
    event requests it opens (a reader opens none: tests/e2e/test_lazy_socket.py), and the
    errors in its console or thrown by its scripts."""

    def __init__(self, page: Page) -> None:
        self.sockets: list[str] = []
        self.errors: list[str] = []
        page.on("websocket", lambda socket: self.sockets.append(socket.url))
        page.on("request", lambda r: self.sockets.append(r.url) if "/_event" in r.url else None)
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def real_errors(self) -> list[str]:
        # Every picture is the site's own (agency_site/images.py): a failed load is a bug too.
        return list(self.errors)


# Each route is loaded once, at the desktop width, and checked again at the phone's width
# (the layouts differ by CSS only): the page's CSP violations fail it too (conftest.py).
@pytest.mark.parametrize("route", ROUTES, ids=[r.path for r in ROUTES])
def test_every_route_answers_with_its_title_one_heading_and_no_axe_violations(
    page: Page, axe_source: str, route
) -> None:
    reader = Reader(page)
    page.set_viewport_size(DESKTOP)
    response = open_page(page, route.path)
    assert response is not None and response.status == 200
    expect(page).to_have_title(route.title)
    expect(page.locator("h1")).to_have_count(1)
    expect(page.locator("main")).to_be_visible()
    assert axe_violations(page, axe_source) == [], "at 1280x800"
    page.set_viewport_size(MOBILE)
    expect(page.locator(f"#{ui.MOBILE_MENU_TOGGLE_ID}")).to_be_visible()
    assert axe_violations(page, axe_source) == [], "at 375x812"
    assert reader.sockets == []
    assert page.evaluate("() => window.sessionStorage.getItem('token')") is None
    assert reader.real_errors() == []


@VIEWPORTS
@pytest.mark.parametrize("path", MENU_PAGES)
def test_no_axe_violations_with_the_menus_open(
    page: Page, axe_source: str, path: str, viewport: dict
) -> None:
    page.set_viewport_size(viewport)
    open_page(page, path)
    open_menus(page, mobile=viewport is MOBILE)
    assert axe_violations(page, axe_source) == []


@pytest.mark.parametrize(
    ("path", "form_id", "bad_values", "error_ids"),
    [
        ("/", "hero-capture-form", {"hero-email": "esto-no-es-un-email"}, ["hero-email-error"]),
        (
            "/schedule",
            "booking-form",
            {"booking-name": "A", "booking-phone": "abc"},
            ["booking-name-error", "booking-phone-error", "booking-date-error"],
        ),
    ],
    ids=["hero", "booking"],
)
def test_forms_showing_validation_errors_have_no_axe_violations(
    page: Page, axe_source: str, path: str, form_id: str, bad_values: dict, error_ids: list
) -> None:
    open_page(page, path)
    # Let the server's validation answer (the browser's own checks are switched off).
    page.evaluate(f"document.getElementById('{form_id}').noValidate = true")
    for field, value in bad_values.items():
        page.locator(f"#{field}").fill(value)
    page.locator(f"#{form_id} [type=submit]").click()
    for error_id in error_ids:
        expect(page.locator(f"#{error_id}")).not_to_be_empty()
    assert axe_violations(page, axe_source) == []


def test_not_found_page_has_no_axe_violations(page: Page, axe_source: str) -> None:
    page.goto("/portfolio")
    expect(page.locator("html[data-hydrated='true']")).to_have_count(1)
    assert axe_violations(page, axe_source) == []


def test_skip_link_is_the_first_stop_and_moves_focus_to_main(page: Page) -> None:
    open_page(page, "/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name=LAYOUT.skip_link)
    expect(skip).to_be_focused()
    box = skip.bounding_box()
    assert box is not None and box["width"] > 50 and box["y"] >= 0  # shown on focus
    page.keyboard.press("Enter")
    assert page.evaluate(f"{_FOCUSED}.id") == "main"
    page.keyboard.press("Tab")
    assert page.evaluate(f"!!{_FOCUSED}.closest('main, footer')")


def _tab_to(page: Page, element_id: str, limit: int = 12) -> None:
    """Press Tab until the element with ``element_id`` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"{_FOCUSED}.id") == element_id:
            return
    pytest.fail(f"#{element_id} never got the focus by Tab")


@pytest.mark.parametrize("key", ["Enter", " "], ids=["Enter", "Space"])
def test_dropdown_opens_by_keyboard_and_escape_returns_focus(page: Page, key: str) -> None:
    open_page(page, "/")
    _tab_to(page, ui.SERVICES_TOGGLE_ID)
    page.keyboard.press(key)
    toggle = page.locator(f"#{ui.SERVICES_TOGGLE_ID}")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Tab")
    assert page.evaluate(f"!!{_FOCUSED}.closest('#services-menu')")
    page.keyboard.press("Escape")
    expect(page.locator("#services-menu")).to_be_hidden()
    expect(toggle).to_be_focused()
    expect(toggle).to_have_attribute("aria-expanded", "false")


def test_dropdown_closes_when_focus_leaves_it(page: Page) -> None:
    open_page(page, "/")
    _tab_to(page, ui.SERVICES_TOGGLE_ID)
    page.keyboard.press("Enter")
    links = page.locator("#services-menu a")
    for _ in range(links.count() + 1):
        page.keyboard.press("Tab")
    assert not page.evaluate(f"!!{_FOCUSED}.closest('#{ui.SERVICES_NAV_ID}')")
    expect(page.locator("#services-menu")).to_be_hidden()


def test_mobile_menu_keeps_focus_inside_until_escape(page: Page) -> None:
    page.set_viewport_size(MOBILE)
    open_page(page, "/")
    _tab_to(page, ui.MOBILE_MENU_TOGGLE_ID)
    page.keyboard.press("Enter")
    dialog = page.locator(f"#{ui.MOBILE_NAV_ID}")
    expect(dialog).to_have_attribute("role", "dialog")
    expect(dialog).to_have_attribute("aria-modal", "true")
    stops = dialog.locator("a:visible, button:visible").count()
    seen = set()
    for _ in range(stops + 2):
        page.keyboard.press("Tab")
        assert page.evaluate(f"!!{_FOCUSED}.closest('#{ui.MOBILE_NAV_ID}')"), "focus escaped"
        seen.add(page.evaluate(f"{_FOCUSED}.textContent"))
    assert len(seen) == stops  # every item once, then round again to the toggle
    _tab_to(page, ui.MOBILE_MENU_TOGGLE_ID, limit=stops)
    page.keyboard.press("Shift+Tab")
    expect(dialog.get_by_role("link", name="Contact")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#mobile-menu")).to_be_hidden()
    expect(page.locator(f"#{ui.MOBILE_MENU_TOGGLE_ID}")).to_be_focused()
    expect(dialog).not_to_have_attribute("role", "dialog")


@pytest.mark.parametrize("viewport", [DESKTOP, MOBILE], ids=["1280x800", "375x812"])
def test_every_keyboard_stop_shows_a_focus_indicator(page: Page, viewport: dict) -> None:
    page.set_viewport_size(viewport)
    open_page(page, "/")
    seen = 0
    for _ in range(80):
        page.keyboard.press("Tab")
        element = page.evaluate(
            """() => {
              const el = document.activeElement;
              const style = getComputedStyle(el);
              const outline = style.outlineStyle !== "none" && style.outlineWidth !== "0px";
              return {tag: el.tagName, text: el.textContent.trim().slice(0, 40),
                      visible: outline || style.boxShadow !== "none"};
            }"""
        )
        if element["tag"] == "BODY" or (seen and element["text"] == LAYOUT.skip_link[:40]):
            break
        assert element["visible"], f"no visible focus on {element}"
        seen += 1
    assert seen > 10


def test_pages_fade_in_on_navigation_except_under_reduced_motion(
    browser: Browser, base_url: str
) -> None:
    main_animation = "getComputedStyle(document.querySelector('main')).animationName"
    for motion, animation in (("reduce", "none"), ("no-preference", "page-fade")):
        context = browser.new_context(base_url=base_url, reduced_motion=motion)
        page = context.new_page()
        open_page(page, "/")
        # The first page shows at once (it is prerendered): no fade to wait for.
        assert page.evaluate(main_animation) == "none"
        page.locator("header").get_by_role("link", name="About").first.click()
        expect_page(page, paths.ABOUT)
        expect(page.get_by_role("heading", level=1)).to_have_text(about.PAGE.hero.heading)
        assert page.evaluate(main_animation) == animation
        # Re-rendering the page (opening a menu) does not replay or change it.
        if motion == "no-preference":
            page.wait_for_timeout(400)
            page.locator("#services-toggle").click()
            assert page.evaluate(main_animation) == animation
        context.close()


def test_the_axe_check_catches_a_violation(page: Page, axe_source: str) -> None:
    open_page(page, "/about")
    page.evaluate("document.querySelector('main').append(document.createElement('img'))")
    assert "image-alt" in {v["id"] for v in axe_violations(page, axe_source)}

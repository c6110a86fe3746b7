"""The shared layout as a visitor meets it: routes, 404, menus, navbar style, footer."""

import datetime as dt

import pytest
from playwright.sync_api import Browser, Page, expect

from agency_site import paths
from agency_site.content import pages
from agency_site.content.not_found import NOT_FOUND
from agency_site.content.service_pages import SERVICES
from agency_site.content.site import SITE
from agency_site.routes import ROUTES
from tests.e2e.helpers import expect_page, open_page, scroll_to


@pytest.mark.parametrize(
    "path",
    ["/portfolio", "/blog", "/services", "/case-studies/no-existe", "/esto/no/existe"],
)
def test_undeclared_paths_show_the_not_found_page_with_404(page: Page, path: str) -> None:
    response = page.goto(path)
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text(NOT_FOUND.heading)
    expect(page.get_by_text(NOT_FOUND.intro)).to_be_visible()
    expect(page.locator("header nav")).to_be_visible()
    expect(page.locator("footer")).to_be_visible()
    page.get_by_role("link", name=NOT_FOUND.home_label).click()
    expect_page(page, paths.HOME)


def test_html_is_spanish(page: Page) -> None:
    open_page(page, "/")
    expect(page.locator("html")).to_have_attribute("lang", "es")


def test_services_dropdown_toggles_on_click_and_closes_on_navigation(page: Page) -> None:
    open_page(page, "/")
    toggle = page.locator("#services-toggle")
    menu = page.locator("#services-menu")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_hidden()

    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(menu.get_by_role("link")).to_have_text([s.title for s in SERVICES])
    toggle.click()
    expect(menu).to_be_hidden()

    toggle.click()
    menu.get_by_role("link", name=SERVICES[0].title).click()
    expect_page(page, paths.service(SERVICES[0].id))
    expect(page.locator("#services-menu")).to_be_hidden()
    expect(page.locator("#services-toggle")).to_have_attribute("aria-expanded", "false")


def test_escape_closes_the_dropdown_and_returns_focus(page: Page) -> None:
    open_page(page, "/")
    page.locator("#services-toggle").click()
    expect(page.locator("#services-menu")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#services-menu")).to_be_hidden()
    expect(page.locator("#services-toggle")).to_be_focused()


def test_dropdown_closes_on_browser_back(page: Page) -> None:
    open_page(page, "/")
    page.get_by_role("link", name="About").first.click()
    expect_page(page, paths.ABOUT)
    page.locator("#services-toggle").click()
    expect(page.locator("#services-menu")).to_be_visible()
    page.go_back()
    expect_page(page, paths.HOME)
    expect(page.locator("#services-menu")).to_be_hidden()


@pytest.mark.parametrize(
    ("scroll_y", "scrolled"), [(0, False), (10, False), (11, True), (60, True)]
)
def test_navbar_is_transparent_up_to_10px_and_white_with_shadow_after(
    page: Page, scroll_y: int, scrolled: bool
) -> None:
    open_page(page, "/")
    scroll_to(page, scroll_y)
    header = page.locator("#site-header")
    if scrolled:
        expect(header).to_have_css("background-color", "rgb(255, 255, 255)")
        expect(header).not_to_have_css("box-shadow", "none")
    else:
        expect(header).to_have_css("background-color", "rgba(0, 0, 0, 0)")
        expect(header).to_have_css("box-shadow", "none")


def test_navigation_from_a_scrolled_page_lands_at_the_top(page: Page) -> None:
    open_page(page, "/")
    page.locator("footer").scroll_into_view_if_needed()
    assert page.evaluate("window.scrollY") > 100
    about = pages.PAGES[paths.ABOUT].name
    page.locator("footer").get_by_role("link", name=about, exact=True).click()
    expect_page(page, paths.ABOUT)
    page.wait_for_function("() => window.scrollY === 0")


def test_footer_shows_the_current_year(page: Page) -> None:
    open_page(page, "/")
    expect(page.locator("#footer-year")).to_have_text(str(dt.date.today().year))


def test_footer_lists_company_and_legal_links(page: Page) -> None:
    open_page(page, "/")
    footer = page.locator("footer")
    for href in (
        paths.CAREERS,
        paths.BLOG,
        paths.PRIVACY_POLICY,
        paths.TERMS_OF_SERVICE,
        paths.COOKIES_POLICY,
    ):
        expect(footer.locator(f"a[href='{href}']")).to_have_count(1)
    menus = (pages.FOOTER_COMPANY, pages.FOOTER_LEGAL, pages.SERVICES_MENU)
    for link in (link for menu in menus for link in menu):
        expect(footer.locator(f"a[href='{link.href}']")).to_have_text(link.label)
    expect(footer).to_contain_text(SITE.address.city)


def test_scroll_to_top_button_returns_to_the_top(page: Page) -> None:
    open_page(page, "/")
    page.locator("#scroll-to-top").scroll_into_view_if_needed()
    assert page.evaluate("window.scrollY") > 100
    page.locator("#scroll-to-top").click()
    page.wait_for_function("() => window.scrollY === 0", timeout=5_000)


@pytest.fixture
def mobile_page(page: Page) -> Page:
    page.set_viewport_size({"width": 375, "height": 812})
    return page


def test_mobile_menu_covers_the_screen_and_closes_after_choosing_a_link(mobile_page: Page) -> None:
    page = mobile_page
    open_page(page, "/")
    expect(page.locator("#services-toggle")).to_be_hidden()
    toggle = page.locator("#mobile-menu-toggle")
    toggle.click()
    menu = page.locator("#mobile-menu")
    expect(menu).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    box = menu.bounding_box()
    assert box is not None and box["width"] >= 375 and box["height"] >= 812

    page.locator("#mobile-services-toggle").click()
    expect(page.locator("#mobile-services-menu").get_by_role("link")).to_have_count(len(SERVICES))

    menu.get_by_role("link", name="Case Studies").click()
    expect_page(page, paths.CASE_STUDIES)
    expect(page.locator("#mobile-menu")).to_be_hidden()
    expect(page.locator("#mobile-menu-toggle")).to_have_attribute("aria-expanded", "false")


@pytest.mark.parametrize("path", [route.path for route in ROUTES])
def test_no_picture_on_a_phone_s_first_screen_waits_to_be_lazy_loaded(
    browser: Browser, base_url: str, path: str
) -> None:
    """A picture a visitor sees without scrolling is fetched at once (``image(eager=True)``):
    a lazy one waits for layout and was the late LCP of /ca/case-studies in Lighthouse's
    phone (docs/benchmark.md). The phone's screen is Lighthouse's mobile one."""
    context = browser.new_context(viewport={"width": 412, "height": 823}, base_url=base_url)
    try:
        page = context.new_page()
        page.goto(path)
        lazy_in_view = page.evaluate(
            """() => [...document.images]
                .filter((img) => img.loading === "lazy")
                .filter((img) => { const box = img.getBoundingClientRect();
                                   return box.bottom > 0 && box.top < innerHeight && box.width > 0; })
                .map((img) => img.currentSrc || img.src)"""
        )
    finally:
        context.close()
    assert lazy_in_view == []

"""The nine service pages in a browser: content, every button's destination, scroll reveal."""

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from agency_site import paths
from agency_site.content.not_found import NOT_FOUND
from agency_site.content.sections import PacksSection, ProgrammesSection
from agency_site.content.service_pages import SERVICE_PAGES, ServicePage, service_by_id
from agency_site.content.services import price_label, quote_link
from tests import spec_facts as spec
from tests.e2e.helpers import expect_page, open_page

REVEALED = "main [data-reveal]"


def _key_texts(content: ServicePage) -> list[str]:
    """Figures, prices and durations a visitor must find on the page."""
    texts = [stat.value for stat in content.stats]
    texts += [content.highlighted_fact] if content.highlight else []
    for section in content.sections:
        if isinstance(section, PacksSection):
            texts += [price_label(pack) for pack in section.packs]
        if isinstance(section, ProgrammesSection):
            texts += [programme.duration for programme in section.programmes]
    return texts


@pytest.mark.parametrize("service_id", spec.TARGETS)
def test_service_page_shows_its_sections_and_figures(page: Page, service_id: str) -> None:
    content = SERVICE_PAGES[service_id]
    open_page(page, paths.service(service_id))
    main = page.locator("main")
    expect(main.get_by_role("heading", level=1)).to_have_text(content.hero.heading)
    expect(main.locator("h2")).to_have_text(
        [section.title for section in content.sections] + [content.cta.title]
    )
    for text in _key_texts(content):
        expect(main.get_by_text(text, exact=True).first).to_be_visible()


@pytest.mark.parametrize("service_id", spec.TARGETS)
def test_every_button_leads_where_the_spec_says(page: Page, service_id: str) -> None:
    path = paths.service(service_id)
    open_page(page, path)
    buttons = page.locator("main a")
    hrefs = buttons.evaluate_all("links => links.map((a) => a.getAttribute('href'))")
    # The spec's targets; those to /contact open the quote form with this service chosen.
    assert {href.split("?", 1)[0] for href in hrefs} == spec.TARGETS[service_id]
    assert len(hrefs) == len(SERVICE_PAGES[service_id].links())

    for index, href in enumerate(hrefs):
        if index:  # Back to the service page, as a visitor would (no reload).
            page.go_back()
            expect_page(page, path)
            expect(page.locator("html[data-hydrated='true']")).to_have_count(1)
        page.locator("main a").nth(index).click()
        expect_page(page, href)
        if href.startswith(paths.CONTACT):
            expect(page.locator("#quote-service")).to_have_value(service_id)
        if href == paths.PORTFOLIO:
            expect(page.get_by_role("heading", level=1)).to_have_text(NOT_FOUND.heading)
        else:
            expect(page.get_by_role("heading", level=1)).not_to_have_text(NOT_FOUND.heading)


def test_named_buttons_of_training_consulting_and_photography(page: Page) -> None:
    for service_id, label, target in (
        ("training", *spec.HERO_BUTTONS["training"][0]),
        ("training", *spec.HERO_BUTTONS["training"][1]),
        ("consulting", "Ver casos de éxito", paths.CASE_STUDIES),
        ("consulting", "Consultar dudas", paths.CONTACT),
        ("product-photography", "Ver portfolio", paths.PORTFOLIO),
        ("product-photography", "Consultar dudas", paths.CONTACT),
    ):
        open_page(page, paths.service(service_id))
        page.locator("main").get_by_role("link", name=label, exact=True).first.click()
        # /contact opens with the quote form's service chosen.
        expect_page(page, quote_link(service_id) if target == paths.CONTACT else target)


def test_sections_fade_in_when_scrolled_into_view(page: Page) -> None:
    open_page(page, paths.service("training"))
    expect(page.locator("html")).to_have_class(re.compile(r"\breveal-js\b"))
    last = page.locator(REVEALED).last
    expect(last).to_have_css("opacity", "0")
    expect(last).not_to_have_attribute("data-revealed", "true")

    last.scroll_into_view_if_needed()
    expect(last).to_have_attribute("data-revealed", "true")
    expect(last).to_have_css("opacity", "1")


def test_reveal_restarts_after_client_side_navigation(page: Page) -> None:
    open_page(page, paths.service("branding"))
    page.locator("#services-toggle").click()
    training = service_by_id("training").title
    page.locator("#services-menu").get_by_role("link", name=training).click()
    expect_page(page, paths.service("training"))
    last = page.locator(REVEALED).last
    expect(last).to_have_css("opacity", "0")
    last.scroll_into_view_if_needed()
    expect(last).to_have_css("opacity", "1")


def test_with_reduced_motion_every_section_is_visible_at_once(page: Page) -> None:
    page.emulate_media(reduced_motion="reduce")
    open_page(page, paths.service("product-photography"))
    expect(page.locator("html")).not_to_have_class(re.compile(r"\breveal-js\b"))
    sections = page.locator(REVEALED)
    assert sections.count() >= 5
    for index in range(sections.count()):
        expect(sections.nth(index)).to_have_css("opacity", "1")


def test_without_javascript_the_service_page_text_is_visible(
    browser: Browser, browser_context_args: dict, base_url: str
) -> None:
    context = browser.new_context(**browser_context_args, java_script_enabled=False)
    try:
        page = context.new_page()
        content = SERVICE_PAGES["product-photography"]
        page.goto(base_url + paths.service(content.id))
        main = page.locator("main")
        expect(main.get_by_role("heading", level=1)).to_have_text(content.hero.heading)
        for text in (*_key_texts(content), content.cta.title):
            expect(main.get_by_text(text, exact=True).first).to_be_visible()
        last = page.locator(REVEALED).last
        last.scroll_into_view_if_needed()
        expect(last).to_have_css("opacity", "1")
    finally:
        context.close()


def test_no_service_page_scrolls_sideways_on_a_phone(page: Page) -> None:
    page.set_viewport_size({"width": 375, "height": 812})
    for service_id in spec.TARGETS:
        open_page(page, paths.service(service_id))
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, service_id

"""The quote request of /contact as a visitor uses it: reached from a service page with the
service and pack chosen, sent, stored as a quote and e-mailed with its own template."""

import re

from playwright.sync_api import Page, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.form_words import COPY
from agency_site.content.site import SITE
from agency_site.forms.email import kind_params
from agency_site.forms.kinds import LeadKind
from tests.e2e.conftest import EMAILJS_E2E, SiteServer
from tests.e2e.form_helpers import (
    SUBMIT,
    leads,
    new_address,
    payload,
    visit_source,
    wait_for_sends,
)
from tests.e2e.helpers import open_page

WORDS = COPY.quote.fields


def test_a_quote_with_the_service_and_pack_of_the_link_is_sent_and_stored(
    page: Page, site: SiteServer, fake: HTTPServer
) -> None:
    open_page(page, f"{paths.CONTACT}?service=branding&pack=esencial")
    form = page.locator("#quote-form")
    expect(form.get_by_label(WORDS["service"].label)).to_have_value("branding")
    expect(form.get_by_label(WORDS["pack"].label)).to_have_value("esencial")
    email = new_address()
    form.get_by_label(WORDS["name"].label).fill("Ana García")
    form.get_by_label(WORDS["email"].label).fill(email)
    form.get_by_label(WORDS["message"].label).fill("Queremos renovar la marca.")
    form.locator(SUBMIT).click()

    expect(form.get_by_text(COPY.quote.success)).to_be_visible()
    assert wait_for_sends(fake, 1) == [
        payload(
            EMAILJS_E2E["EMAILJS_QUOTE_TEMPLATE_ID"],
            {
                "to_email": SITE.email,
                "from_name": "Ana García",
                "from_email": email,
                "phone": "",
                "service": "Branding y Diseño",
                "pack": "Esencial",
                "message": "Queremos renovar la marca.",
                "source": visit_source(paths.CONTACT),
                "language": "Español",
            }
            | kind_params(LeadKind.QUOTE),
        )
    ]
    assert leads(site)[-1][1:] == ("quote", "sent")
    expect(form.get_by_label(WORDS["name"].label)).to_have_value("")


def test_unknown_ids_in_the_link_are_ignored(page: Page) -> None:
    open_page(page, f"{paths.CONTACT}?service=cooking&pack=pack-premium")
    form = page.locator("#quote-form")
    expect(form.get_by_label(WORDS["service"].label)).to_have_value("")
    expect(form.get_by_label(WORDS["pack"].label)).to_have_value("")
    # A pack of another service than the one chosen is left unchosen.
    open_page(page, f"{paths.CONTACT}?service=branding&pack=pack-premium")
    expect(form.get_by_label(WORDS["service"].label)).to_have_value("branding")
    expect(form.get_by_label(WORDS["pack"].label)).to_have_value("")


def test_a_pack_s_button_on_a_service_page_opens_the_quote_form_with_it(page: Page) -> None:
    open_page(page, paths.service("product-photography"))
    page.locator('a[href="/contact?service=product-photography&pack=pack-premium"]').click()
    expect(page).to_have_url(
        re.compile(r"/contact\?service=product-photography&pack=pack-premium$")
    )
    form = page.locator("#quote-form")
    expect(form.get_by_label(WORDS["service"].label)).to_have_value("product-photography")
    expect(form.get_by_label(WORDS["pack"].label)).to_have_value("pack-premium")


def test_without_javascript_the_quote_form_posts_and_answers(
    site: SiteServer, fake: HTTPServer, browser
) -> None:
    context = browser.new_context(java_script_enabled=False, base_url=site.url)
    plain = context.new_page()
    plain.goto(f"{site.url}/_site/forms/quote?service=consulting")
    expect(plain.get_by_label(WORDS["service"].label)).to_have_value("consulting")
    plain.get_by_label(WORDS["name"].label).fill("Bea Martín")
    plain.get_by_label(WORDS["email"].label).fill(new_address())
    plain.get_by_label(WORDS["message"].label).fill("Necesitamos una consultoría.")
    plain.locator(SUBMIT).click()
    expect(plain.get_by_text(COPY.quote.success)).to_be_visible()
    context.close()
    assert wait_for_sends(fake, 1)[0]["template_id"] == EMAILJS_E2E["EMAILJS_QUOTE_TEMPLATE_ID"]
    assert leads(site)[-1][1] == "quote"

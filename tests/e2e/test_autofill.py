"""Chromium's own autofill, with a saved address, fills a form's visible fields and never
its honeypot: a visitor whose browser fills the form is never taken for spam.

The address is filled through the DevTools protocol (``Autofill.trigger``): Chromium
classifies the form's fields with its real heuristics and fills them as its suggestion
would, then reports each field it saw (``Autofill.addressFormFilled``).
"""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Playwright, expect
from pytest_httpserver import HTTPServer

from agency_site import locale
from agency_site.forms.declarations import BOOKING, HERO, HONEYPOT_FIELD, QUOTE, FormDeclaration
from tests.e2e.conftest import SiteServer, chromium_path
from tests.e2e.form_helpers import SUBMIT, leads, wait_for_sends, wait_until_sent
from tests.e2e.helpers import open_page

# A full saved profile: everything a browser could offer to fill.
PROFILE = {
    "NAME_FULL": "Ana García Puig",
    "EMAIL_ADDRESS": "ana.autofill@example.com",
    "PHONE_HOME_WHOLE_NUMBER": "+34600123456",
    "COMPANY_NAME": "Tienda Agramunt SL",
    "ADDRESS_HOME_STREET_ADDRESS": "Carrer Major 1",
    "ADDRESS_HOME_CITY": "Agramunt",
    "ADDRESS_HOME_ZIP": "25310",
    "ADDRESS_HOME_COUNTRY": "ES",
}


@pytest.fixture(scope="module")
def whole_chromium(playwright: Playwright, browser_type_launch_args: dict) -> Iterator[Browser]:
    """The whole Chromium: its headless shell has no autofill."""
    browser = playwright.chromium.launch(
        **{**browser_type_launch_args, "executable_path": chromium_path()}
    )
    yield browser
    browser.close()


@pytest.fixture
def page(whole_chromium: Browser, browser_context_args: dict) -> Iterator[Page]:
    """This module's page: a tab of the whole Chromium."""
    context = whole_chromium.new_context(**browser_context_args)
    yield context.new_page()
    context.close()


def autofill(page: Page, form: FormDeclaration, field: str) -> list[dict]:
    """Fill ``form`` from ``PROFILE`` as Chromium's autofill does, starting at ``field``;
    the fields Chromium reports it saw."""
    cdp = page.context.new_cdp_session(page)
    filled: list[dict] = []
    cdp.on("Autofill.addressFormFilled", lambda event: filled.extend(event["filledFields"]))
    cdp.send("Autofill.enable")
    page.locator(f"#{form.field_id(field)}").focus()
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": f"#{form.field_id(field)}"})
    backend = cdp.send("DOM.describeNode", {"nodeId": node["nodeId"]})["node"]["backendNodeId"]
    address = {"fields": [{"name": name, "value": value} for name, value in PROFILE.items()]}
    cdp.send("Autofill.trigger", {"fieldId": backend, "address": address})
    expect(page.locator(f"#{form.field_id('email')}")).to_have_value(PROFILE["EMAIL_ADDRESS"])
    return filled


@pytest.mark.parametrize(
    ("form", "language", "first"),
    [(HERO, "es", "email"), (BOOKING, "ca", "name"), (QUOTE, "es", "name")],
    ids=["hero-es", "booking-ca", "quote-es"],
)
def test_autofill_fills_the_visible_fields_and_never_the_honeypot(
    page: Page, form: FormDeclaration, language: str, first: str
) -> None:
    open_page(page, locale.localized_path(form.page, language))
    filled = autofill(page, form, first)
    honeypot = page.locator(f"#{form.field_id(HONEYPOT_FIELD)}")
    expect(honeypot).to_have_value("")
    assert [field["value"] for field in filled if field["name"] == HONEYPOT_FIELD] in ([], [""])
    if any(field.name == "name" for field in form.fields):
        expect(page.locator(f"#{form.field_id('name')}")).to_have_value(PROFILE["NAME_FULL"])


def test_an_autofilled_hero_form_is_delivered_not_quarantined(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    before = len(leads(site))
    open_page(page, HERO.page)
    autofill(page, HERO, "email")
    page.locator(f"#{HERO.form_id}").locator(SUBMIT).click()
    sent = wait_for_sends(fake, 1)
    assert [send["template_params"]["from_email"] for send in sent] == [PROFILE["EMAIL_ADDRESS"]]
    # The site records the send a moment after the fake answers it (CI under load once read
    # the lead still 'sending'): delivered is the lead's status once it settles.
    [(lead_id, *_)] = leads(site)[before:]
    wait_until_sent(site, lead_id, 15, kind="contact")
    assert [lead[1:] for lead in leads(site)[before:]] == [("contact", "sent")]

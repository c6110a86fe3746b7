"""The Catalan site against the production build: every page under /ca in Catalan, paired
with its Spanish twin, a language switch that keeps the visitor on the same page, forms
that answer and write in the visitor's language, and a Catalan not-found page.

The pages' own content is checked by the same tests as the Spanish ones (they run over
``routes.ROUTES``, both languages); here is what differs between the languages."""

import re
import sqlite3

import pytest
from playwright.sync_api import APIRequestContext, Page, expect
from pytest_httpserver import HTTPServer

from agency_site import locale
from agency_site.content.form_words import COPY
from agency_site.content.not_found import NOT_FOUND
from agency_site.locale import AUTONYMS
from agency_site.routes import BY_PATH, ROUTES, alternates
from tests.e2e.conftest import EMAILJS_E2E, SiteServer
from tests.e2e.form_helpers import SUBMIT, fill_booking, wait_for_sends, working_day
from tests.e2e.helpers import expect_page, open_page

CATALAN = [route for route in ROUTES if route.locale == "ca"]
_HREF = re.compile(r'<a [^>]*href="(/[^"]*)"[^>]*>')


@pytest.fixture
def http(page: Page) -> APIRequestContext:
    """Plain HTTP requests (no browser, no JS); redirects are not followed."""
    return page.request


def test_every_spanish_page_has_its_catalan_twin() -> None:
    spanish = {route.path for route in ROUTES if route.locale == "es"}
    assert {route.spanish_path for route in CATALAN} == spanish
    assert len(CATALAN) == len(spanish) >= 20


@pytest.mark.parametrize("route", CATALAN, ids=[r.path for r in CATALAN])
def test_every_catalan_page_says_its_language_and_pairs_with_its_twin(
    http: APIRequestContext, deploy_url: str, route
) -> None:
    """200, <html lang="ca">, its Catalan title, canonical, hreflang es/ca/x-default (the
    same three as its Spanish twin: reciprocal), and every link to a page stays in Catalan
    but the language switch's."""
    response = http.get(route.path, max_redirects=0)
    assert response.status == 200
    html = response.text()
    assert re.search(r'<html lang="ca"', html)
    assert f"<title>{route.title}</title>" in html.replace("&#x27;", "'")
    assert len(re.findall(r"<h1[ >]", html)) == 1 and len(re.findall(r"<main[ >]", html)) == 1
    assert f'<link href="{deploy_url}{route.path}" rel="canonical"/>' in html

    def hreflangs(page_html: str) -> dict[str, str]:
        found = re.findall(r'<link href="([^"]+)" hrefLang="([^"]+)" rel="alternate"/>', page_html)
        return {lang: href for href, lang in found}

    expected = {lang: deploy_url + path for lang, path in alternates(route).items()}
    assert hreflangs(html) == expected
    twin = http.get(route.spanish_path, max_redirects=0).text()
    assert re.search(r'<html lang="es"', twin) and hreflangs(twin) == expected
    assert '"inLanguage":"ca"' in html and '"inLanguage":"es"' in twin
    for anchor in _HREF.finditer(html):
        href = anchor.group(1)
        if 'hrefLang="es"' in anchor.group(0):  # The switch: the same page in Spanish.
            assert href == route.spanish_path and 'lang="es"' in anchor.group(0)
        else:
            assert href == "/ca" or href.startswith(("/ca/", "/ca?")), href


def test_unknown_catalan_paths_get_the_catalan_not_found_page(
    http: APIRequestContext,
) -> None:
    for path, language in (
        ("/ca/portfolio", "ca"),
        ("/ca/services/nothing", "ca"),
        ("/nada", "es"),
    ):
        response = http.get(path, max_redirects=0)
        assert response.status == 404, path
        html = response.text()
        assert f'<html lang="{language}"' in html, path
        with locale.active(language):
            assert NOT_FOUND.heading in html, path


def test_the_catalan_not_found_page_stays_catalan_once_its_script_runs(page: Page) -> None:
    page.goto("/ca/portfolio")
    expect(page.locator("html[data-hydrated='true']")).to_have_count(1, timeout=20_000)
    expect(page.locator("html")).to_have_attribute("lang", "ca")
    expect(page.get_by_role("heading", level=1)).to_have_text(NOT_FOUND.of("ca").heading)


def test_the_language_switch_keeps_the_visitor_on_the_same_page(page: Page) -> None:
    """From a Spanish service page to its Catalan twin and back, by keyboard: the URL,
    <html lang>, the title and the text follow; nothing redirects by itself."""
    open_page(page, "/services/branding")
    header = page.locator("header")
    switch = header.get_by_role("link", name=AUTONYMS["ca"]).first
    expect(switch).to_have_attribute("hreflang", "ca")
    expect(switch).to_have_attribute("lang", "ca")
    switch.focus()
    page.keyboard.press("Enter")
    expect_page(page, "/ca/services/branding")
    expect(page.locator("html")).to_have_attribute("lang", "ca")
    footer_switch = page.locator("footer").get_by_role("navigation")
    expect(footer_switch.get_by_text(AUTONYMS["ca"])).to_have_attribute("aria-current", "true")
    footer_switch.get_by_role("link", name=AUTONYMS["es"]).click()
    expect_page(page, "/services/branding")
    expect(page.locator("html")).to_have_attribute("lang", "es")


def test_a_browser_asking_for_catalan_is_not_redirected(page: Page, base_url: str) -> None:
    response = page.request.get("/", headers={"Accept-Language": "ca"}, max_redirects=0)
    assert response.status == 200 and '<html lang="es"' in response.text()
    assert BY_PATH["/ca"].title != BY_PATH["/"].title


def test_a_catalan_booking_is_answered_and_written_in_catalan(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    """/ca/schedule: a wrong address gets the server's Catalan message; the booking is
    stored as Catalan, the agency is told so and the visitor's auto-reply is Catalan."""
    catalan = COPY.of("ca").booking
    open_page(page, "/ca/schedule")
    form = page.locator("#booking-form")
    expect(form.locator(SUBMIT)).to_have_text(catalan.submit)
    with locale.active("ca"):
        fill_booking(page, working_day(10))
    email = form.get_by_label(catalan.fields["email"].label)
    # Past the browser's own checks: the server judges the address and says why.
    page.evaluate("document.getElementById('booking-form').noValidate = true")
    email.fill("ana@")
    form.locator(SUBMIT).click()
    expect(form.get_by_text(catalan.fields["email"].error)).to_be_visible()

    email.fill("ana.catalana@example.com")
    form.locator(SUBMIT).click()
    expect(form.get_by_text(catalan.success)).to_be_visible()
    booking_template = EMAILJS_E2E["EMAILJS_BOOKING_TEMPLATE_ID"]
    [send] = [s for s in wait_for_sends(fake, 1) if s["template_id"] == booking_template]
    params = send["template_params"]
    assert params["language"] == AUTONYMS["ca"]
    assert params["reply_subject"] == catalan.autoreply_subject
    assert params["reply_message"].startswith("Hola, Ana García: hem rebut")
    with sqlite3.connect(site.db_path) as db:
        [(language,)] = db.execute(
            "SELECT language FROM leads WHERE email_norm = ?", ("ana.catalana@example.com",)
        ).fetchall()
    assert language == "ca"


def test_a_form_sent_without_javascript_from_a_catalan_page_answers_in_catalan(
    http: APIRequestContext, site: SiteServer
) -> None:
    response = http.post(
        site.url + "/_site/forms/quote",
        form={"name": "Jordi", "email": "no", "service": "branding", "language": "ca"},
        headers={"Origin": site.url},
    )
    html = response.text()
    assert response.status == 400 and '<html lang="ca"' in html
    assert COPY.of("ca").quote.fields["email"].error in html.replace("&#x27;", "'")
    assert 'name="language" value="ca"' in html

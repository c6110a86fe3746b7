"""The legal pages in a browser: headings, key facts, and a cookie policy that tells the truth."""

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from agency_site import paths
from agency_site.content.legal import COOKIES, PRIVACY, SHARED, STORAGE, TERMS, LegalPage
from agency_site.content.site import SITE
from tests.e2e.helpers import expect_page, open_page

DOCUMENTS = {
    paths.PRIVACY_POLICY: PRIVACY,
    paths.TERMS_OF_SERVICE: TERMS,
    paths.COOKIES_POLICY: COOKIES,
}
IDENTITY_VALUES = (
    SITE.legal.company_name,
    SITE.legal.nif,
    SITE.address.one_line,
    SITE.email,
)
STORAGE_SCRIPT = """() => ({
  cookie: document.cookie,
  local: Object.keys(localStorage),
  session: Object.keys(sessionStorage),
})"""


@pytest.mark.parametrize("path", DOCUMENTS)
def test_legal_page_shows_its_numbered_headings(page: Page, path: str) -> None:
    document: LegalPage = DOCUMENTS[path]
    open_page(page, path)
    expect(page.get_by_role("heading", level=1)).to_have_text(document.hero.heading)
    expect(page.locator("main h2")).to_have_text(
        [f"{n}. {heading}" for n, heading in enumerate(document.headings, start=1)]
    )
    expect(page.locator("main")).to_contain_text(f"{SHARED.updated_label}: {document.updated}")


def test_privacy_policy_names_the_controller_processor_rights_and_aepd(page: Page) -> None:
    open_page(page, paths.PRIVACY_POLICY)
    main = page.locator("main")
    expect(main.get_by_role("heading", name="Responsable del tratamiento")).to_be_visible()
    identity = main.locator("dl").first
    for value in IDENTITY_VALUES:
        expect(identity).to_contain_text(value)
    processor = main.get_by_role("listitem").filter(has_text="EmailJS")
    expect(processor).to_contain_text("encargado del tratamiento")
    expect(main).to_contain_text("Singapur")
    expect(main).to_contain_text("hasta 12 meses")
    for right in (
        "Acceso",
        "Rectificación",
        "Supresión",
        "Oposición",
        "Limitación del tratamiento",
        "Portabilidad",
    ):
        expect(main.get_by_role("listitem").filter(has_text=f"{right}:")).to_have_count(1)
    aepd = main.get_by_role("link", name="www.aepd.es")
    expect(aepd).to_have_attribute("href", "https://www.aepd.es")
    # Another site: a new tab, said to screen readers (the site's link component).
    expect(aepd).to_have_attribute("target", "_blank")
    expect(aepd).to_contain_text("pestaña nueva")
    expect(main.get_by_role("link", name=f"Escribir a {SITE.email}")).to_have_attribute(
        "href", SITE.mailto
    )


def test_terms_carry_the_lssi_identification(page: Page) -> None:
    open_page(page, paths.TERMS_OF_SERVICE)
    main = page.locator("main")
    expect(main).to_contain_text("artículo 10 de la Ley 34/2002")
    identity = main.locator("dl").first
    for label, value in (
        ("Titular", SITE.legal.company_name),
        ("NIF", SITE.legal.nif),
        ("Domicilio", SITE.address.one_line),
        ("Datos registrales", SITE.legal.registry),
        ("Correo electrónico", SITE.email),
        ("Teléfono", SITE.phone),
    ):
        row = identity.locator("div").filter(has=page.locator("dt", has_text=label))
        expect(row.locator("dd")).to_have_text(value)


def test_cookie_policy_lists_every_storage_item(page: Page) -> None:
    open_page(page, paths.COOKIES_POLICY)
    main = page.locator("main")
    expect(main).to_contain_text("no instala cookies")
    expect(main).to_contain_text("artículo 22.2 de la LSSI-CE")
    expect(main).to_contain_text("desde este mismo sitio web")
    expect(main).not_to_contain_text("unsplash")
    for item in STORAGE.items:
        expect(main.locator("h3 code", has_text=item.name)).to_have_count(1)
        expect(main).to_contain_text(item.purpose)


def test_cookie_policy_matches_what_the_site_really_stores(
    page: Page, context: BrowserContext
) -> None:
    listed = {item.name for item in STORAGE.items}
    open_page(page, paths.HOME)
    page.locator("#services-toggle").click()
    page.locator("#services-menu").get_by_role("link").first.click()
    expect_page(page, paths.service("branding"))
    page.reload()
    open_page(page, paths.SCHEDULE)
    # A reader gets no token: it is created when a form is used, as the policy says.
    assert "token" not in page.evaluate(STORAGE_SCRIPT)["session"]
    page.locator("#booking-form input:not([type=hidden])").first.focus()
    page.wait_for_function("() => window.sessionStorage.getItem('token') !== null")
    stored = page.evaluate(STORAGE_SCRIPT)

    assert stored["cookie"] == ""
    assert context.cookies() == []
    assert set(stored["local"]) | set(stored["session"]) <= listed
    # The policy lists what really happens, not hypothetical items only.
    assert {"token", "theme"} <= set(stored["local"]) | set(stored["session"])


def test_legal_links_lead_to_the_other_policies(page: Page) -> None:
    open_page(page, paths.PRIVACY_POLICY)
    page.locator("main").get_by_role("link", name="Consultar la política de cookies").click()
    expect_page(page, paths.COOKIES_POLICY)
    expect(page.get_by_role("heading", level=1)).to_have_text(COOKIES.hero.heading)

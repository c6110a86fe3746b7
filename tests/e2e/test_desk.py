"""The owner's desk in Chromium against the production build: a virtual authenticator
(Chrome's DevTools protocol: ``WebAuthn.enable``, ``WebAuthn.addVirtualAuthenticator``) plays
the person's phone or laptop. Invite (the operator's command on the site's own database) →
enroll → sign in → a lead sent on the site shows in the inbox with its source; after
sign-out the old cookie gets nothing; a cross-origin POST is refused; an expired invite is
refused; axe finds nothing at 375 px and 1280 px.
"""

import re
import sqlite3
import subprocess
import sys

import pytest
from playwright.sync_api import BrowserContext, CDPSession, Page, expect

from agency_site import paths
from agency_site.content.form_words import COPY
from agency_site.desk import sign_in
from agency_site.desk.access import ACCESS
from agency_site.desk.log import LOG
from scripts import node_tools
from tests.e2e.conftest import ROOT, SiteServer
from tests.e2e.helpers import open_page
from tests.e2e.test_a11y import _RUN_AXE, AXE_TAGS, DESKTOP, MOBILE, settle

SUBMIT = "button[type=submit]"
# What the desk's _words.html says for these codes.
INVITE_REFUSED = "Esta invitación ya no sirve"


@pytest.fixture(scope="session")
def axe_source() -> str:
    return (node_tools.ensure("axe-core") / "axe.min.js").read_text()


def invite(site: SiteServer, email: str) -> str:
    """The operator's command against the site's database: the printed link."""
    env = {**site.env, "REFLEX_API_URL": site.url}
    done = subprocess.run(
        [sys.executable, "-m", "agency_site.desk", "invite", email],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    [link] = re.findall(r"^http\S+$", done.stdout, re.MULTILINE)
    return link


def authenticator(page: Page) -> CDPSession:
    """A platform authenticator with the person's fingerprint, for this page's browser: it
    lives as long as its DevTools session (kept by the caller, never detached)."""
    session = page.context.new_cdp_session(page)
    session.send("WebAuthn.enable")
    session.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return session


def axe_violations(page: Page, session: CDPSession, axe_source: str) -> list[dict]:
    """axe-core's WCAG A/AA violations on the page as it is (test_a11y.py's run), axe put in
    through the authenticator's own DevTools session (the desk's CSP refuses an inline
    script; detaching a second session would take the virtual authenticator with it)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        session.send("Runtime.evaluate", {"expression": axe_source})
    settle(page)
    return page.evaluate(_RUN_AXE, AXE_TAGS)


def enroll(page: Page, site: SiteServer, email: str, label: str = "Portátil") -> None:
    """Open an invite's link and create the passkey: signed in, on the inbox."""
    page.goto(invite(site, email))
    assert "#" not in page.url  # The token left the address bar.
    page.get_by_label("Nombre de este dispositivo").fill(label)
    page.get_by_role("button", name="Crear mi passkey").click()
    expect(page).to_have_url(re.compile(re.escape(paths.DESK) + "$"))
    expect(page.get_by_role("heading", level=1, name="Bandeja")).to_be_visible()


def session_cookie(context: BrowserContext) -> dict:
    [cookie] = [c for c in context.cookies() if c["name"] == "desk_session"]
    return cookie


def test_invite_enroll_sign_in_and_a_lead_in_the_inbox_with_its_source(
    page: Page, site: SiteServer, context: BrowserContext
) -> None:
    _authenticator = authenticator(page)
    enroll(page, site, "ana@example.com")
    cookie = session_cookie(context)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert cookie["path"] == paths.DESK

    # A visitor comes from a campaign and leaves their address on Home.
    visitor = context.new_page()
    open_page(visitor, "/?utm_source=boletin&utm_campaign=otono")
    form = visitor.locator("#hero-capture-form")
    form.get_by_label(COPY.hero.fields["email"].label).fill("visitante.escritorio@example.com")
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.hero.success)).to_be_visible()
    visitor.close()

    page.reload()
    row = page.locator("tr", has_text="visitante.escritorio@example.com")
    expect(row).to_contain_text("Información (inicio)")
    expect(row).to_contain_text("Campaña: otono")
    expect(row).to_contain_text("Entrada: /")
    expect(row).to_contain_text("Español")
    page.get_by_role("searchbox", name="Buscar").fill("VISITANTE.ESCRITORIO")
    page.get_by_role("button", name="Buscar").click()
    expect(page).to_have_url(re.compile(r"q=VISITANTE.ESCRITORIO"))
    expect(page.locator("tbody tr")).to_have_count(1)
    href = row.get_by_role("link").get_attribute("href")
    assert href is not None and re.fullmatch(re.escape(paths.DESK) + r"/leads/\d+", href)

    # Signed out, then signed in again with the same passkey.
    page.get_by_role("button", name=re.compile("^Salir")).click()
    expect(page).to_have_url(re.compile(re.escape(sign_in.SIGN_IN) + "$"))
    page.get_by_role("button", name="Entrar con tu passkey").click()
    expect(page.get_by_role("heading", level=1, name="Bandeja")).to_be_visible()
    page.goto(LOG)
    expect(page.locator(".log")).to_contain_text("registró su primera passkey")
    expect(page.locator(".log")).to_contain_text("salió")
    expect(page.locator(".log")).to_contain_text("entró")


def test_after_sign_out_the_old_cookie_gets_nothing(
    page: Page, site: SiteServer, context: BrowserContext
) -> None:
    _authenticator = authenticator(page)
    enroll(page, site, "luis@example.com")
    old = session_cookie(context)["value"]
    headers = {"Cookie": f"desk_session={old}"}
    inbox = context.request.get(f"{site.url}{paths.DESK}", headers=headers, max_redirects=0)
    assert inbox.status == 200 and "Bandeja" in inbox.text()
    page.get_by_role("button", name=re.compile("^Salir")).click()
    expect(page).to_have_url(re.compile(re.escape(sign_in.SIGN_IN)))
    for path in (paths.DESK, ACCESS, LOG):
        answer = context.request.get(f"{site.url}{path}", headers=headers, max_redirects=0)
        assert answer.status == 303, path
        assert answer.headers["location"].startswith(sign_in.SIGN_IN)
        assert "luis@example.com" not in answer.text()


def test_a_cross_origin_post_is_refused(page: Page, site: SiteServer, context: BrowserContext):
    _authenticator = authenticator(page)
    enroll(page, site, "marta@example.com")
    cookie = session_cookie(context)["value"]
    refused = context.request.post(
        f"{site.url}{sign_in.SIGN_OUT}",
        headers={"Cookie": f"desk_session={cookie}", "Origin": "http://evil.example"},
        max_redirects=0,
    )
    assert refused.status == 403
    # From another origin's page in the browser: 127.0.0.1 is not the desk's localhost.
    other = site.url.replace("localhost", "127.0.0.1")
    stranger = context.browser.new_page()
    stranger.goto(f"{other}/robots.txt")
    status = stranger.evaluate(
        """async (url) => (await fetch(url, {method: "POST", mode: "no-cors",
            credentials: "include"})).status""",
        f"{site.url}{sign_in.SIGN_OUT}",
    )
    assert status == 0  # Opaque: and the server refused it (below, the session lives).
    stranger.close()
    page.reload()
    expect(page.get_by_role("heading", level=1, name="Bandeja")).to_be_visible()


def test_an_expired_invite_is_refused(page: Page, site: SiteServer) -> None:
    _authenticator = authenticator(page)
    link = invite(site, "caducada@example.com")
    with sqlite3.connect(site.db_path) as database:
        database.execute(
            "UPDATE desk_invites SET expires_at = '2000-01-01 00:00:00.000000' "
            "WHERE used_at IS NULL"
        )
    page.goto(link)
    page.get_by_role("button", name="Crear mi passkey").click()
    expect(page.get_by_role("alert")).to_contain_text(INVITE_REFUSED)
    expect(page).to_have_url(re.compile(re.escape(sign_in.ENROLL) + "$"))


@pytest.mark.parametrize("viewport", [DESKTOP, MOBILE], ids=["1280x800", "375x812"])
def test_axe_finds_nothing_on_the_desk(
    page: Page, site: SiteServer, axe_source: str, viewport: dict
) -> None:
    page.set_viewport_size(viewport)
    session = authenticator(page)
    page.goto(f"{site.url}{sign_in.SIGN_IN}")
    assert axe_violations(page, session, axe_source) == [], "sign-in"
    page.goto(invite(site, f"axe{viewport['width']}@example.com"))
    assert axe_violations(page, session, axe_source) == [], "enroll"
    page.get_by_role("button", name="Crear mi passkey").click()
    expect(page.get_by_role("heading", level=1, name="Bandeja")).to_be_visible()
    for path in (paths.DESK, f"{paths.DESK}?status=spam&q=nadie", LOG, ACCESS):
        page.goto(f"{site.url}{path}")
        assert axe_violations(page, session, axe_source) == [], path
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], (path, width)  # Nothing scrolls sideways.
    page.goto(f"{site.url}{sign_in.CONFIRM}")
    assert axe_violations(page, session, axe_source) == [], "confirm"

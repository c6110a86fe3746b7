"""Proof of work only when suspect, in Chromium (docs/leads.md "Spam"), on the split-origin
site (its backend keeps the real time trap; the widget's files come from the static host,
the challenge from the backend's origin): a visitor who sends a form faster than the time
trap (3 s) sees the ALTCHA widget, which solves the challenge by itself and sends the form
again; the lead reaches the fake EmailJS, in both languages, with nothing blocked by the
hashed CSP (the autouse fixture). A widget whose solving failed is reached with the
keyboard and retried with Space. A headless browser that waits 5 s, as a person does, is
delivered unchallenged (the harness's bot)."""

import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Page, expect
from pytest_httpserver import HTTPServer

from agency_site import locale, paths
from agency_site.content.form_words import COPY
from scripts.spam_bots import HEADLESS_WAIT_S, headless_submit
from tests.e2e.form_helpers import wait_for_sends
from tests.e2e.helpers import open_page
from tests.e2e.split_site import SplitSite

SUBMIT = "button[type=submit]"
# A first worker that cannot start: the widget's solving fails, and waits for the person.
_NO_FIRST_WORKER = """
(() => {
  const Original = window.Worker;
  let failed = false;
  window.Worker = function (url, options) {
    if (!failed && String(url).endsWith("/altcha/pbkdf2.js")) {
      failed = true;
      throw new Error("test: no worker this time");
    }
    return new Original(url, options);
  };
})();
"""


@pytest.fixture(scope="module")
def trapped_site(split_site: SplitSite) -> Iterator[SplitSite]:
    """The session's split-origin site (static pages, the backend on its own origin) with its
    backend up: the real time trap (3 s) and the challenge's defaults."""
    with split_site.backend():
        yield split_site


def lead_of(site: SplitSite, email: str) -> tuple[str, str | None]:
    """(status, spam_reason) of the lead of ``email``."""
    with sqlite3.connect(site.db_path) as db:
        return db.execute(
            "SELECT status, spam_reason FROM leads WHERE email_norm = ?", (email,)
        ).fetchone()


def send_too_fast(page: Page, site: SplitSite, language: str, email: str):
    """Open Home in ``language``, fill its form and send it at once: the form."""
    open_page(page, site.url + locale.localized_path(paths.HOME, language))
    form = page.locator("#hero-capture-form")
    with locale.active(language):
        label = COPY.hero.fields["email"].label
    form.get_by_label(label).fill(email)
    form.locator(SUBMIT).click()
    return form


@pytest.mark.parametrize("language", ["es", "ca"])
def test_a_too_fast_visitor_solves_the_widget_by_itself_and_the_lead_is_delivered(
    page: Page, fake: HTTPServer, trapped_site: SplitSite, language: str
) -> None:
    email = f"rapida-{language}@example.com"
    form = send_too_fast(page, trapped_site, language, email)
    with locale.active(language):
        notice, success = COPY.challenge.notice, COPY.hero.success
    expect(form.get_by_text(notice)).to_be_visible()
    # Solving at once, it says "verifying" then "verified" for a moment only (its label's
    # words, "No soy un robot", show while it waits for the person: the test below).
    expect(form.locator("altcha-widget")).to_have_attribute("language", language)
    expect(form.get_by_text(success)).to_be_visible(timeout=60_000)  # Solved, sent again.
    sends = wait_for_sends(fake, 1)
    assert [sent["template_params"]["from_email"] for sent in sends] == [email]
    assert lead_of(trapped_site, email) == ("sent", "too_fast")  # Why it was asked.


@pytest.mark.parametrize(
    ("language", "label"), [("es", "No soy un robot"), ("ca", "No sóc un robot")]
)
def test_a_widget_whose_solving_failed_is_reached_by_keyboard_and_retried_with_space(
    page: Page, fake: HTTPServer, trapped_site: SplitSite, language: str, label: str
) -> None:
    page.add_init_script(_NO_FIRST_WORKER)
    email = f"teclado-{language}@example.com"
    form = send_too_fast(page, trapped_site, language, email)
    widget = form.locator("altcha-widget")
    with locale.active(language):
        error, success = COPY.challenge.error, COPY.hero.success
    expect(widget.get_by_text(error)).to_be_visible(timeout=15_000)
    box = widget.get_by_role("checkbox", name=label)  # What a screen reader says: ours.
    expect(box).to_be_enabled()
    assert lead_of(trapped_site, email) == ("spam", "too_fast")  # Waiting, not lost.
    form.locator(SUBMIT).focus()
    for _ in range(10):  # The widget comes after the button in the hero form.
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement?.closest('altcha-widget') !== null"):
            break
    expect(box).to_be_focused()
    page.keyboard.press("Space")
    expect(form.get_by_text(success)).to_be_visible(timeout=60_000)
    assert [s["template_params"]["from_email"] for s in wait_for_sends(fake, 1)] == [email]


def test_a_headless_browser_that_waits_like_a_person_is_delivered_unchallenged(
    fake: HTTPServer, trapped_site: SplitSite
) -> None:
    email = "headless-bot@example.com"
    with ThreadPoolExecutor(1) as thread:  # Its own Playwright, beside the tests' one.
        shown = thread.submit(headless_submit, trapped_site.url, email, HEADLESS_WAIT_S)
        assert shown.result(timeout=120) == "sent"
    assert lead_of(trapped_site, email) == ("sent", None)

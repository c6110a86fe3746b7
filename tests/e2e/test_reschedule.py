"""A visitor moves their confirmed booking from the link of their e-mail, in Spanish and in
Catalan: book on /schedule, the agency confirms from its e-mail, the visitor opens the
manage link of the confirmation, picks another date and time, confirms, sees the new
time, and the updated calendar file (same UID, SEQUENCE 1) arrives by e-mail at once.

On the session's site (tests/e2e/conftest.py): its booking links are signed with the secret
it generated in its own data folder, and it has a visitor template.
"""

import re
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from pytest_httpserver import HTTPServer

from agency_site import locale, paths
from agency_site.content.bookings import COPY as BOOKINGS
from agency_site.content.form_words import COPY
from agency_site.forms.email import date_es
from tests.e2e.conftest import EMAILJS_E2E, VISITOR_TEMPLATE_E2E
from tests.e2e.form_helpers import SUBMIT, fill_booking, working_day
from tests.e2e.helpers import open_page
from tests.emailjs_fake import sent_payloads

VISITOR_TEMPLATE = VISITOR_TEMPLATE_E2E


def wait_for_params(fake: HTTPServer, match, timeout: float = 30) -> dict[str, str]:
    """The template parameters of the first send ``match`` accepts (waiting for it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for payload in sent_payloads(fake):
            if match(payload["template_id"], payload["template_params"]):
                return payload["template_params"]
        time.sleep(0.2)
    raise AssertionError("the e-mail was not sent")


def local(url: str, site_url: str) -> str:
    """An absolute link of an e-mail, as a path of the running site."""
    return url.removeprefix(site_url)


def calendar_file(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        assert answer.headers["content-type"].startswith("text/calendar")
        return answer.read().decode()


@pytest.mark.parametrize("language", ["es", "ca"])
def test_the_visitor_moves_a_confirmed_booking_from_their_link(
    browser: Browser, site, emailjs_fake: HTTPServer, language: str
) -> None:
    first, second = working_day(25), working_day(26)  # Days no other test was given.
    context = browser.new_context(base_url=site.url)
    page = context.new_page()
    with locale.active(language):
        # 1. The visitor books, on the page of their language.
        open_page(page, locale.localized_path(paths.SCHEDULE))
        email = fill_booking(page, first, "10:00")
        form = page.locator("#booking-form")
        form.locator(SUBMIT).click()
        expect(form.get_by_text(COPY.booking.success)).to_be_visible(timeout=30_000)

    # 2. The agency confirms from its e-mail (its pages are in Spanish).
    agency = wait_for_params(
        emailjs_fake,
        lambda t, p: t == EMAILJS_E2E["EMAILJS_BOOKING_TEMPLATE_ID"] and p["from_email"] == email,
    )
    page.goto(local(agency["confirm_url"], site.url))
    page.get_by_role("button", name=BOOKINGS.confirm.button).click()
    expect(page.get_by_text(BOOKINGS.confirm.done)).to_be_visible()

    with locale.active(language):
        confirmed = wait_for_params(
            emailjs_fake,
            lambda t, p: (
                t == VISITOR_TEMPLATE
                and p["to_email"] == email
                and p["subject"] == BOOKINGS.mails.confirmed.subject
            ),
        )
        before = calendar_file(confirmed["ics_url"])
        assert f"DTSTART;TZID=Europe/Madrid:{first:%Y%m%d}T100000" in before
        uid = re.search(r"^UID:(.+)$", before, re.MULTILINE).group(1).strip()

        # 3. The visitor opens the link of their confirmation, picks, confirms: four steps.
        page.goto(local(confirmed["cancel_url"], site.url))
        move = page.locator("#booking-move-form")
        expect(move).to_be_visible()
        move.get_by_label(COPY.booking.fields["date"].label).fill(second.isoformat())
        move.get_by_label(COPY.booking.fields["time"].label).select_option("16:00")
        move.get_by_role("button", name=BOOKINGS.manage.button).click()

        # 4. The new time, on the page...
        expect(page.get_by_text(BOOKINGS.manage.done)).to_be_visible()
        expect(page.locator(".summary")).to_contain_text(date_es(second.isoformat()))
        expect(page.locator(".summary")).to_contain_text("16:00")
        assert page.locator("html").get_attribute("lang") == locale.HTML_LANG[language]

        # 5. ...and the updated calendar file, by e-mail at once: same UID, SEQUENCE 1.
        moved = wait_for_params(
            emailjs_fake,
            lambda t, p: (
                t == VISITOR_TEMPLATE
                and p["to_email"] == email
                and p["subject"] == BOOKINGS.mails.moved.subject
            ),
        )
        after = calendar_file(moved["ics_url"])
        assert f"UID:{uid}" in after and "SEQUENCE:1" in after
        assert f"DTSTART;TZID=Europe/Madrid:{second:%Y%m%d}T160000" in after

        # The page's own link to the file says the same; the link opens the page again.
        with page.expect_download() as download:
            page.get_by_role("link", name=BOOKINGS.manage.calendar).click()
        assert "SEQUENCE:1" in Path(download.value.path()).read_text(encoding="utf-8")
        page.get_by_role("link", name=BOOKINGS.manage.again).click()
        expect(page.locator("#booking-move-form input[name=v]")).to_have_value("1")

    # The agency is told, in Spanish, from when to when.
    told = wait_for_params(
        emailjs_fake,
        lambda t, p: (
            t == EMAILJS_E2E["EMAILJS_CONTACT_TEMPLATE_ID"]
            and p.get("from_email") == email
            and "16:00" in p.get("message", "")
        ),
    )
    assert date_es(first.isoformat()) in told["message"]
    context.close()


def test_a_booking_moved_in_time_frees_its_old_slot_for_the_next_visitor(
    browser: Browser, site, emailjs_fake: HTTPServer
) -> None:
    """After the move, /schedule offers the old slot again."""
    day = working_day(27)
    context = browser.new_context(base_url=site.url)
    page = context.new_page()
    open_page(page, paths.SCHEDULE)
    email = fill_booking(page, day, "11:00")
    page.locator("#booking-form").locator(SUBMIT).click()
    expect(page.get_by_text(COPY.booking.success)).to_be_visible(timeout=30_000)
    agency = wait_for_params(
        emailjs_fake,
        lambda t, p: t == EMAILJS_E2E["EMAILJS_BOOKING_TEMPLATE_ID"] and p["from_email"] == email,
    )
    page.goto(local(agency["confirm_url"], site.url))
    page.get_by_role("button", name=BOOKINGS.confirm.button).click()
    confirmed = wait_for_params(
        emailjs_fake, lambda t, p: t == VISITOR_TEMPLATE and p["to_email"] == email
    )
    page.goto(local(confirmed["cancel_url"], site.url))
    move = page.locator("#booking-move-form")
    move.get_by_label(COPY.booking.fields["date"].label).fill(day.isoformat())
    move.get_by_label(COPY.booking.fields["time"].label).select_option("12:00")
    move.get_by_role("button", name=BOOKINGS.manage.button).click()
    expect(page.get_by_text(BOOKINGS.manage.done)).to_be_visible()
    free = page.request.get(f"{paths.FREE_SLOTS}?date={day.isoformat()}").json()
    assert "11:00" in free["free"] and "12:00" in free["taken"]
    context.close()

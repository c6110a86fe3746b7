"""Bookings in the browser: a slot requested once (two tabs at the same moment), the day's
free slots offered, the agency's clock said and the visitor's shown, and the lead saying
where the visit came from."""

import re

from playwright.sync_api import Browser, Page, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.bookings import COPY as BOOKINGS
from agency_site.content.form_words import COPY
from agency_site.forms.email import date_es
from agency_site.rules import TIME_SLOTS
from tests.e2e.conftest import SiteServer
from tests.e2e.form_helpers import (
    SUBMIT,
    fill_booking,
    leads,
    offered_slots,
    open_schedule,
    visit_source,
    wait_for_sends,
    working_day,
)
from tests.e2e.helpers import open_page

TAKEN_START = BOOKINGS.slots.taken.split("{slots}")[0]


def test_two_tabs_asking_for_one_slot_at_once_get_one_booking(
    browser: Browser, base_url: str, fake: HTTPServer, site: SiteServer
) -> None:
    day, before = working_day(20), len(leads(site))
    tabs = [browser.new_context(base_url=base_url).new_page() for _ in range(2)]
    forms = []
    for tab in tabs:
        forms.append(open_schedule(tab))
        fill_booking(tab, day, "10:00")
    # Both buttons pressed in the same instant, from the page itself.
    tabs[0].evaluate(
        "() => setTimeout(() => document.querySelector('#booking-form [type=submit]').click(), 300)"
    )
    tabs[1].evaluate(
        "() => setTimeout(() => document.querySelector('#booking-form [type=submit]').click(), 300)"
    )
    success = [form.get_by_text(COPY.booking.success) for form in forms]
    refused = [form.get_by_text(re.compile("^" + re.escape(TAKEN_START))) for form in forms]
    for tab_success, tab_refused in zip(success, refused, strict=True):
        expect(tab_success.or_(tab_refused)).to_be_visible(timeout=30_000)
    told = sorted("sent" if s.is_visible() else "taken" for s in success)
    assert told == ["sent", "taken"]
    message = next(r for r in refused if r.is_visible()).inner_text()
    assert f"11:00 del {date_es(day.isoformat())}" in message  # The nearest free slot.
    assert [lead[1:] for lead in leads(site)[before:]] == [("booking", "sent")]
    assert len(wait_for_sends(fake, 1)) == 1
    for tab in tabs:
        tab.context.close()


def test_a_slot_already_requested_is_not_offered(page: Page, fake: HTTPServer) -> None:
    day = working_day(21)
    form = open_schedule(page)
    fill_booking(page, day, "12:00")
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.booking.success)).to_be_visible()

    other = page.context.browser.new_context().new_page()
    other.goto(page.url)
    other_form = other.locator("#booking-form")
    other_form.get_by_label(COPY.booking.fields["date"].label).fill(day.isoformat())
    other.wait_for_function(
        "() => [...document.querySelectorAll('#booking-time option')]"
        ".some(o => o.value === '12:00' && o.hidden)"
    )
    assert offered_slots(other_form) == [s for s in TIME_SLOTS if s != "12:00"]
    other.context.close()


def test_the_form_says_its_clock_and_shows_the_visitors(browser: Browser, base_url: str) -> None:
    day = working_day(22)
    for zone, local in (("America/New_York", True), ("Europe/Madrid", False)):
        context = browser.new_context(base_url=base_url, timezone_id=zone)
        tab = context.new_page()
        form = open_schedule(tab)
        expect(form.get_by_text(COPY.booking.time_hint)).to_be_visible()
        form.get_by_label(COPY.booking.fields["date"].label).fill(day.isoformat())
        note = form.locator("#booking-time-zone")
        labels = form.locator("#booking-time option[value='16:00']")
        if local:
            # 16:00 in Madrid is 10:00 in New York (both on winter time, or both on summer).
            expect(labels).to_have_attribute("label", re.compile(r"^16:00 \((09|10|11):00 "))
            expect(note).to_be_visible()
            expect(note).to_contain_text("America/New_York")
        else:
            expect(labels).not_to_have_attribute("label", re.compile(".+"))
            expect(note).to_be_hidden()
        context.close()


def test_a_lead_says_where_the_visit_came_from(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    open_page(page, "/?utm_source=boletin&utm_medium=email&utm_campaign=otono")
    # Another page of the same visit: a link of the page (no reload).
    page.locator(f"main a[href='{paths.SCHEDULE}']").first.click()
    page.wait_for_url(f"**{paths.SCHEDULE}")
    form = page.locator("#booking-form")
    expect(form.locator(SUBMIT)).to_be_enabled()
    fill_booking(page, working_day(23), "17:00")
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.booking.success)).to_be_visible()
    [sent] = wait_for_sends(fake, 1)
    assert sent["template_params"]["source"] == visit_source(
        paths.SCHEDULE,
        "/",
        utm_source="boletin",
        utm_medium="email",
        utm_campaign="otono",
    )
    # Nothing of it was stored in the browser: no cookie, no storage entry.
    assert page.evaluate("() => document.cookie") == ""
    stored = page.evaluate("() => JSON.stringify({...sessionStorage, ...localStorage})")
    assert "boletin" not in stored

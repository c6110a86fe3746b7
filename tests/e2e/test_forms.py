"""The lead forms as a visitor uses them, against the production build and a fake EmailJS."""

import datetime as dt
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from zoneinfo import ZoneInfo

from playwright.sync_api import Page, expect
from pytest_httpserver import HTTPServer
from werkzeug import Response

from agency_site import paths
from agency_site.content.form_words import COPY
from agency_site.content.site import SITE
from agency_site.forms.email import kind_params
from agency_site.forms.kinds import LeadKind
from agency_site.leads.site_secret import CHALLENGE, FILE_NAME, FORM_TOKEN, NETWORK_DIGEST, derived
from agency_site.rules import AGENCY_TIME_ZONE, TIME_SLOTS
from agency_site.working_calendar import Closure, default_calendar
from tests.e2e.conftest import EMAILJS_E2E, SiteServer
from tests.e2e.form_helpers import (
    SUBMIT,
    assert_nothing_sent,
    book_while_refused,
    booking_params,
    expect_shown_for_about_five_seconds,
    fill_booking,
    first_day,
    leads,
    leads_health,
    madrid_today,
    offered_slots,
    open_schedule,
    payload,
    visit_source,
    wait_for_sends,
    wait_until_sent,
    working_day,
)
from tests.e2e.helpers import open_page
from tests.emailjs_fake import accept_sends, answer_sends, sent_payloads


def test_hero_sends_the_email_thanks_and_clears_the_field(page: Page, fake: HTTPServer) -> None:
    open_page(page, paths.HOME)
    form = page.locator("#hero-capture-form")
    form.get_by_label(COPY.hero.fields["email"].label).fill("visitante@example.com")
    form.locator(SUBMIT).click()

    expect(form.get_by_text(COPY.hero.success)).to_be_visible()
    assert wait_for_sends(fake, 1) == [
        payload(
            EMAILJS_E2E["EMAILJS_CONTACT_TEMPLATE_ID"],
            {
                "to_email": SITE.email,
                "from_email": "visitante@example.com",
                "message": COPY.hero.email_message.format(email="visitante@example.com"),
                "source": visit_source(paths.HOME),
                "language": "Español",
            }
            | kind_params(LeadKind.HERO),
        )
    ]
    expect(form.get_by_label(COPY.hero.fields["email"].label)).to_have_value("")
    expect_shown_for_about_five_seconds(page, COPY.hero.success)


def test_booking_sends_every_field_thanks_and_resets_the_form(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    form = open_schedule(page)
    expect(form.get_by_label(COPY.booking.fields["date"].label)).to_have_attribute(
        "min", madrid_today().isoformat()
    )
    day = working_day(3)
    email = fill_booking(page, day)
    form.locator(SUBMIT).click()

    expect(form.get_by_text(COPY.booking.success)).to_be_visible()
    assert wait_for_sends(fake, 1) == [
        payload(EMAILJS_E2E["EMAILJS_BOOKING_TEMPLATE_ID"], booking_params(day, "16:00", email))
    ]
    for field in (
        COPY.booking.fields["name"],
        COPY.booking.fields["email"],
        COPY.booking.fields["phone"],
        COPY.booking.fields["date"],
        COPY.booking.fields["time"],
    ):
        expect(form.get_by_label(field.label)).to_have_value("")
    expect(form.get_by_label(COPY.booking.fields["message"].label)).to_have_value("")
    assert leads(site)[-1][1:] == ("booking", "sent")
    expect_shown_for_about_five_seconds(page, COPY.booking.success)


def test_provider_failure_is_honest_and_the_lead_is_delivered_after_recovery(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    day = working_day(5)
    form, email = book_while_refused(page, fake, 500, "Internal Server Error", day, "09:00")
    expect(page.get_by_text(COPY.booking.success)).to_have_count(0)
    expect(form.get_by_role("link", name="WhatsApp")).to_have_attribute("href", SITE.whatsapp_url)
    expect(form.get_by_role("link", name=SITE.email)).to_have_attribute("href", SITE.mailto)
    lead_id, kind, status = leads(site)[-1]
    assert (kind, status) == ("booking", "queued")
    # The page stays usable: the button works again and the fields take input.
    expect(form.locator(SUBMIT)).to_be_enabled()
    form.get_by_label(COPY.booking.fields["name"].label).fill("Otra persona")
    expect(form.get_by_label(COPY.booking.fields["name"].label)).to_have_value("Otra persona")

    accept_sends(fake, forget=True)  # EmailJS is back: the retry loop delivers the stored lead.
    wait_until_sent(site, lead_id)
    assert sent_payloads(fake) == [
        payload(EMAILJS_E2E["EMAILJS_BOOKING_TEMPLATE_ID"], booking_params(day, "09:00", email))
    ]


def test_a_past_date_sends_nothing_and_says_why(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    before = leads(site)
    form = open_schedule(page)
    # A crafted submission: the browser's own date check is switched off.
    page.evaluate("document.getElementById('booking-form').noValidate = true")
    yesterday = madrid_today() - dt.timedelta(days=1)
    while default_calendar().closure(yesterday):  # A weekday, so its slots stay offered.
        yesterday -= dt.timedelta(days=1)
    fill_booking(page, yesterday)
    form.locator(SUBMIT).click()

    date = form.get_by_label(COPY.booking.fields["date"].label)
    expect(form.get_by_text(COPY.booking.date_past)).to_be_visible()
    expect(date).to_have_attribute("aria-invalid", "true")
    expect(date).to_have_attribute("aria-describedby", "booking-date-hint booking-date-error")
    expect(page.locator("#booking-date-error")).to_have_text(COPY.booking.date_past)
    expect(date).to_be_focused()
    expect(form.get_by_label(COPY.booking.fields["name"].label)).to_have_value("Ana García")
    assert_nothing_sent(fake, site, before)


def test_an_injected_time_slot_sends_nothing_and_says_why(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    before = leads(site)
    form = open_schedule(page)
    fill_booking(page, working_day(1))
    page.evaluate(
        """() => {
          const select = document.getElementById('booking-time');
          select.add(new Option('03:00', '03:00'));
          select.value = '03:00';
        }"""
    )
    form.locator(SUBMIT).click()

    expect(page.locator("#booking-time-error")).to_have_text(COPY.booking.fields["time"].error)
    expect(form.get_by_label(COPY.booking.fields["time"].label)).to_have_attribute(
        "aria-invalid", "true"
    )
    expect(page.get_by_text(COPY.booking.success)).to_have_count(0)
    assert_nothing_sent(fake, site, before)


def test_the_form_says_when_we_work_and_offers_only_open_slots(page: Page) -> None:
    # The browser's clock says 10:30 in Agramunt on a working day: with the default two
    # hours' notice only the afternoon is left today.
    today = working_day(7)
    page.clock.set_fixed_time(
        dt.datetime.combine(today, dt.time(10, 30), ZoneInfo(AGENCY_TIME_ZONE))
    )
    form = open_schedule(page)
    date = form.get_by_label(COPY.booking.fields["date"].label)
    expect(date).to_have_attribute("min", today.isoformat())
    expect(form.locator("#booking-date-hint")).to_have_text(COPY.booking.date_hint)
    expect(date).not_to_have_attribute("placeholder", re.compile(".*"))
    assert offered_slots(form) == list(TIME_SLOTS)  # No date yet: every slot.

    date.fill(today.isoformat())
    assert offered_slots(form) == ["15:00", "16:00", "17:00", "18:00"]
    form.get_by_label(COPY.booking.fields["time"].label).select_option("17:00")

    saturday = first_day(today, Closure.WEEKEND)
    date.fill(saturday.isoformat())
    assert offered_slots(form) == []
    expect(form.get_by_label(COPY.booking.fields["time"].label)).to_have_value(
        ""
    )  # 17:00 went too.
    assert date.evaluate("input => input.validationMessage") == COPY.booking.date_weekend

    holiday = first_day(today, Closure.HOLIDAY)
    date.fill(holiday.isoformat())
    assert offered_slots(form) == []
    assert date.evaluate("input => input.validationMessage") == COPY.booking.date_holiday

    date.fill(first_day(today + dt.timedelta(days=1), None).isoformat())
    assert offered_slots(form) == list(TIME_SLOTS)
    assert date.evaluate("input => input.validationMessage") == ""


def test_a_weekend_date_sends_nothing_and_says_why(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    before = leads(site)
    form = open_schedule(page)
    fill_booking(page, working_day(1))
    # A crafted submission for a Saturday: the browser's own checks are switched off and
    # the date is set without the events that would make the form drop the time.
    page.evaluate("document.getElementById('booking-form').noValidate = true")
    saturday = first_day(madrid_today() + dt.timedelta(days=1), Closure.WEEKEND)
    page.evaluate(
        "day => { document.getElementById('booking-date').value = day; }", saturday.isoformat()
    )
    form.locator(SUBMIT).click()

    expect(page.locator("#booking-date-error")).to_have_text(COPY.booking.date_weekend)
    expect(form.get_by_label(COPY.booking.fields["date"].label)).to_have_attribute(
        "aria-invalid", "true"
    )
    expect(page.get_by_text(COPY.booking.success)).to_have_count(0)
    assert_nothing_sent(fake, site, before)


def test_held_leads_come_back_by_themselves_once_emailjs_is_fixed(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    # The account has "non-browser applications" switched off: a configuration error.
    day = working_day(4)
    refused = "API calls are disabled for non-browser applications"
    _, email = book_while_refused(page, fake, 403, refused, day, "11:00")
    lead_id, kind, status = leads(site)[-1]
    assert (kind, status) == ("booking", "held")
    code, health = leads_health(site, "held")
    assert (code, health["status"], health["held"]) == (503, "held", 1)

    # The owner fixes the EmailJS dashboard; nobody restarts anything.
    accept_sends(fake, forget=True)
    wait_until_sent(site, lead_id)
    time.sleep(2)  # Another canary round would send it again: it must not.
    assert sent_payloads(fake) == [
        payload(EMAILJS_E2E["EMAILJS_BOOKING_TEMPLATE_ID"], booking_params(day, "11:00", email))
    ]
    code, health = leads_health(site, "ok")
    assert (code, health["status"], health["held"]) == (200, "ok", 0)
    assert health["last_delivery_at"] is not None


def test_a_double_click_sends_once_and_the_button_says_it_is_sending(
    page: Page, fake: HTTPServer, site: SiteServer
) -> None:
    def slow_ok(_request):
        time.sleep(1.5)
        return Response("OK")

    answer_sends(fake, slow_ok, forget=True)
    before = len(leads(site))
    open_page(page, paths.HOME)
    form = page.locator("#hero-capture-form")
    form.get_by_label(COPY.hero.fields["email"].label).fill("prisa@example.com")
    button = form.locator(SUBMIT)
    button.dblclick()

    expect(button).to_have_text(COPY.notices.sending)
    expect(button).to_be_disabled()
    expect(form.get_by_text(COPY.hero.success)).to_be_visible(timeout=10_000)
    expect(button).to_have_text(COPY.hero.submit)
    time.sleep(1)
    assert len(sent_payloads(fake)) == 1
    assert len(leads(site)) == before + 1


def test_no_emailjs_setting_reaches_the_browser(site: SiteServer) -> None:
    """Nor the site secret the site generated, nor a key derived from it (nor its log)."""
    built = site.web_dir / "build" / "client"
    files = [f for f in built.rglob("*") if f.is_file() and f.suffix in {".js", ".html", ".json"}]
    assert files, "the production build is missing"
    # A form's token is signed with a key of the site secret: asking for one makes it.
    with urllib.request.urlopen(f"{site.url}{paths.FORM_TOKEN}?form=quote", timeout=10):
        pass
    site_secret = Path(site.env["DEPLOY_DATA_DIR"], FILE_NAME).read_text().strip()
    assert len(site_secret) >= 32
    kept = [
        site_secret,
        *(derived(site_secret, use) for use in (FORM_TOKEN, CHALLENGE, NETWORK_DIGEST)),
    ]
    secrets = [v.encode() for v in (*EMAILJS_E2E.values(), *kept)]
    leaked = [(f.name, s) for f in files for s in secrets if s in f.read_bytes()]
    assert leaked == []
    log = site.log_path.read_text(errors="replace")
    assert [key for key in kept if key in log] == []

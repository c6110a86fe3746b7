"""What the browser tests of the lead forms share: filling a form, waiting for the fake
EmailJS, reading the site's leads, the working days a booking can ask for."""

import datetime as dt
import itertools
import json
import os
import re
import sqlite3
import time
import urllib.error
import urllib.request
from zoneinfo import ZoneInfo

from playwright.sync_api import Locator, Page, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.form_words import COPY
from agency_site.content.loader import fill
from agency_site.content.site import SITE
from agency_site.emailjs import LIB_VERSION
from agency_site.forms.email import date_es, kind_params
from agency_site.forms.kinds import LeadKind
from agency_site.leads import source as lead_source
from agency_site.rules import AGENCY_TIME_ZONE
from agency_site.working_calendar import Closure, default_calendar
from tests.e2e.conftest import EMAILJS_E2E, HEALTH_TOKEN_E2E, SiteServer
from tests.e2e.helpers import open_page
from tests.emailjs_fake import refuse_sends, sent_payloads

SUBMIT = "button[type=submit]"


def madrid_today() -> dt.date:
    return dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE)).date()


_DAYS_GIVEN: set[dt.date] = set()


def working_day(days_ahead: int) -> dt.date:
    """A day the agency works, at least ``days_ahead`` days from today, that no other test of
    this session was given: a slot is requested once, so two tests booking the same day and
    hour would see the second one refused (as two visitors would)."""
    calendar = default_calendar()
    day = calendar.next_working_day(madrid_today() + dt.timedelta(days=days_ahead))
    while day in _DAYS_GIVEN:
        day = calendar.next_working_day(day + dt.timedelta(days=1))
    _DAYS_GIVEN.add(day)
    return day


def wait_for_sends(fake: HTTPServer, count: int, timeout: float = 20) -> list[dict]:
    """Wait until the fake has received ``count`` sends."""
    deadline = time.monotonic() + timeout
    while len(sent_payloads(fake)) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return sent_payloads(fake)


def leads(site: SiteServer) -> list[tuple[int, str, str]]:
    """(id, kind, status) of every lead in the site's database."""
    with sqlite3.connect(site.db_path) as db:
        return db.execute("SELECT id, kind, status FROM leads ORDER BY id").fetchall()


def payload(template: str, params: dict) -> dict:
    """The exact JSON the site must send to EmailJS."""
    return {
        "lib_version": LIB_VERSION,
        "user_id": EMAILJS_E2E["EMAILJS_PUBLIC_KEY"],
        "service_id": EMAILJS_E2E["EMAILJS_SERVICE_ID"],
        "template_id": template,
        "template_params": params,
        "accessToken": EMAILJS_E2E["EMAILJS_PRIVATE_KEY"],
    }


_ADDRESSES = itertools.count(1)


def new_address() -> str:
    """An address no booking of this test session used: each gets the day's auto-reply."""
    return f"ana.{next(_ADDRESSES)}.{os.getpid()}@example.com"


def fill_booking(page: Page, day: dt.date, slot: str = "16:00", email: str | None = None) -> str:
    """Fill in every booking field; the address used (a new one unless given)."""
    email = email or new_address()
    form = page.locator("#booking-form")
    form.get_by_label(COPY.booking.fields["name"].label).fill("Ana García")
    form.get_by_label(COPY.booking.fields["email"].label).fill(email)
    form.get_by_label(COPY.booking.fields["phone"].label).fill("+34 600 12 34 56")
    form.get_by_label(COPY.booking.fields["date"].label).fill(day.isoformat())
    form.get_by_label(COPY.booking.fields["time"].label).select_option(slot)
    form.get_by_label(COPY.booking.fields["message"].label).fill("Queremos una tienda online.")
    return email


def book_while_refused(
    page: Page, fake: HTTPServer, status: int, text: str, day: dt.date, slot: str
) -> tuple[Locator, str]:
    """Make the fake answer every send with ``status``, then book ``day`` at ``slot``.

    The form, and the address booked with."""
    refuse_sends(fake, status, text, forget=True)
    form = open_schedule(page)
    email = fill_booking(page, day, slot)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.notices.queued)).to_be_visible()
    return form, email


def wait_until_sent(
    site: SiteServer, lead_id: int, timeout: float = 30, kind: str = "booking"
) -> None:
    """Wait for the site to deliver lead ``lead_id`` (the last one) on its own."""
    deadline = time.monotonic() + timeout
    while leads(site)[-1] != (lead_id, kind, "sent") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert leads(site)[-1] == (lead_id, kind, "sent")


def visit_source(page_path: str, landing: str | None = None, **more: str) -> str:
    """The ``source`` line of a lead sent from ``page_path`` in a visit that began on
    ``landing`` (default: the same page)."""
    return lead_source.describe({"page": page_path, "landing": landing or page_path, **more})


class SignedLink(str):
    """Equal to any link of the site's booking page ``action`` with a token: each link
    carries a new nonce, so never the same twice. The site signs them out of the box,
    with the secret it generated in its data folder (bookings/link_secret.py)."""

    def __eq__(self, other: object) -> bool:
        pattern = rf"https?://[^/]+{re.escape(paths.booking_link(str(self)))}\?t=[\w.-]+"
        return isinstance(other, str) and re.fullmatch(pattern, other) is not None

    __hash__ = str.__hash__


def booking_params(day: dt.date, slot: str, email: str) -> dict:
    """The booking's template variables; the first booking of ``email`` today, sent from
    /schedule opened directly."""
    return {
        "to_email": SITE.email,
        "from_name": "Ana García",
        "reply_name": "Ana García",
        "from_email": email,
        "phone": "+34 600 12 34 56",
        "date": day.isoformat(),
        "time": slot,
        "message": "Queremos una tienda online.",
        "reply_to": email,
        "date_es": date_es(day.isoformat()),
        "source": visit_source(paths.SCHEDULE),
        "language": "Español",
        "reply_subject": COPY.booking.autoreply_subject,
        "reply_message": fill(
            COPY.booking.autoreply_message,
            {"name": "Ana García", "date": date_es(day.isoformat()), "time": slot},
        ),
        "confirm_url": SignedLink("confirm"),
        "decline_url": SignedLink("decline"),
        "slot_note": "",  # The booking holds its slot (a drained one may not: it says so).
    } | kind_params(LeadKind.BOOKING)


def open_schedule(page: Page) -> Locator:
    """Open /schedule; the booking form."""
    open_page(page, paths.SCHEDULE)
    return page.locator("#booking-form")


def assert_nothing_sent(fake: HTTPServer, site: SiteServer, leads_before: list) -> None:
    """Wait a moment, then check that nothing was sent or stored."""
    time.sleep(1)
    assert sent_payloads(fake) == []
    assert leads(site) == leads_before


def expect_shown_for_about_five_seconds(page: Page, text: str) -> None:
    """The message appears, stays about 5 s, then goes."""
    message = page.get_by_text(text)
    expect(message).to_be_visible()
    shown = time.monotonic()
    expect(message).to_be_hidden(timeout=10_000)
    assert 4.0 <= time.monotonic() - shown <= 7.5


def offered_slots(form: Locator) -> list[str]:
    """The time options a visitor can pick right now."""
    return form.locator("#booking-time").evaluate(
        "select => [...select.options].filter(o => o.value && !o.disabled && !o.hidden)"
        ".map(o => o.value)"
    )


def first_day(start: dt.date, closure: Closure | None) -> dt.date:
    """The first day from ``start`` that is closed for ``closure`` (None: a working day)."""
    day = start
    while default_calendar().closure(day) is not closure:
        day += dt.timedelta(days=1)
    return day


def leads_health(site: SiteServer, status: str) -> tuple[int, dict]:
    """Status and details (the owner's, with the token) of the production server's
    /_site/leads/health, once it says ``status`` (each worker checks every 5 s at most;
    10 s at most)."""
    request = urllib.request.Request(
        f"{site.url}/_site/leads/health", headers={"Authorization": f"Bearer {HEALTH_TOKEN_E2E}"}
    )
    give_up = time.monotonic() + 10
    while True:
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                code, health = response.status, json.load(response)
        except urllib.error.HTTPError as error:
            code, health = error.code, json.load(error)
        if health.get("status") == status or time.monotonic() > give_up:
            return code, health
        time.sleep(0.5)

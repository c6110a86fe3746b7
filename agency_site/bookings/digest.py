"""The owner's morning digest: one Spanish e-mail to the agency inbox (the contact
template, as the agency's other booking notices) with the day's confirmed meetings (time,
name, then every other field the booking form declares, as its words label them
(``mails.booking_summary``), and the video call) and, for each confirmed meeting of the
previous working day (and the days off since) not marked yet, the signed links "asistió" /
"no asistió" (``LinkAction.ATTENDED`` / ``NO_SHOW``).

When: from ``BOOKING_DIGEST_HOUR`` (agency time, its wall clock across the changes of
clock) on working days; none on weekends, holidays and closed days, and none on a day with
nothing to say (no meeting today, none to mark). Once a day for every worker and host: the
day is claimed in the ``booking_digest`` row of ``lead_monitor`` (its ``state``: the last
day claimed, a conditional UPDATE so one worker wins), so a restart does not send it
again. A send EmailJS refuses gives the day back, so a later round tries again (one try
every ``RETRY_EVERY`` for all workers: the row's ``due_at``); a worker that dies between
the claim and the send loses that day's digest (at most once, never twice).
"""

import asyncio
import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import sqlalchemy as sa

from agency_site import locale
from agency_site.bookings import slots
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import LinkAction
from agency_site.bookings.mails import booking_summary, link
from agency_site.bookings.meeting import booking_meeting_url
from agency_site.bookings.models import Booking
from agency_site.content.bookings import COPY
from agency_site.content.site import SITE
from agency_site.content.template import render
from agency_site.forms.email import date_es
from agency_site.leads.models import Lead
from agency_site.leads.store import LeadStore
from agency_site.rules import AGENCY_TIME_ZONE
from agency_site.working_calendar import WorkingCalendar

logger = logging.getLogger(__name__)

BOOKING_DIGEST = "booking_digest"
# How often, at most, the workers together try a digest (again after a refused send).
RETRY_EVERY = dt.timedelta(minutes=5)
# How far back the "yesterday" of a Monday (or of the day after a holiday) may reach.
_MOST_DAYS_OFF = 14

# A signed link of ``action`` to a booking.
Linker = Callable[[LinkAction, Booking], str]


def digest_day(now: dt.datetime, hour: int, calendar: WorkingCalendar) -> dt.date | None:
    """The agency's day whose digest is due at ``now`` (aware), or None: not a working
    day, or before ``hour`` o'clock agency time."""
    local = now.astimezone(ZoneInfo(AGENCY_TIME_ZONE))
    if calendar.closure(local.date()) is not None or local.hour < hour:
        return None
    return local.date()


def previous_working_day(day: dt.date, calendar: WorkingCalendar) -> dt.date:
    """The working day before ``day`` (at most ``_MOST_DAYS_OFF`` back)."""
    before = day - dt.timedelta(days=1)
    for _ in range(_MOST_DAYS_OFF):
        if calendar.closure(before) is None:
            break
        before -= dt.timedelta(days=1)
    return before


@dataclass(frozen=True)
class Digest:
    """What one day's digest lists: today's confirmed meetings, and the passed ones to
    mark (each with its lead)."""

    day: dt.date
    today: list[tuple[Booking, Lead]]
    to_mark: list[tuple[Booking, Lead]]

    @property
    def empty(self) -> bool:
        return not self.today and not self.to_mark


def gather(engine: sa.Engine, day: dt.date, calendar: WorkingCalendar) -> Digest:
    """The digest of ``day``: its confirmed meetings, and the unmarked confirmed ones from
    the previous working day to the day before."""
    store = LeadStore(engine)

    def with_leads(bookings: list[Booking]) -> list[tuple[Booking, Lead]]:
        found = ((booking, store.get(booking.lead_id)) for booking in bookings)
        return [(booking, lead) for booking, lead in found if lead is not None]

    yesterday = day - dt.timedelta(days=1)
    passed = slots.confirmed_between(engine, previous_working_day(day, calendar), yesterday)
    return Digest(
        day,
        with_leads(slots.confirmed_between(engine, day, day)),
        with_leads([booking for booking in passed if booking.attendance is None]),
    )


def message(digest: Digest, linker: Linker | None) -> str:
    """The digest's text, in Spanish (``linker`` None: no signed links, nothing to mark)."""
    words = COPY.digest
    with locale.active(locale.DEFAULT_LOCALE):
        parts = [render(words.title, date_es=date_es(digest.day.isoformat()))]
        if digest.today:
            parts.append(render(words.today, count=len(digest.today)))
        else:
            parts.append(words.none_today)
        for booking, lead in digest.today:
            name = str(lead.fields.get("name", ""))
            rows = [
                *booking_summary(lead.fields, leave_out=("name",)),  # The name heads it.
                (words.meeting_link, booking_meeting_url(booking.link_key)),
            ]
            lines = [
                render(words.meeting, time=booking.time, name=name),
                *(f"{label}: {value}" for label, value in rows if value),
            ]
            parts.append("\n".join(lines))
        if digest.to_mark and linker is not None:
            parts.append(words.past)
            for booking, lead in digest.to_mark:
                when = date_es(booking.date.isoformat())
                name = str(lead.fields.get("name", ""))
                head = render(words.past_meeting, date_es=when, time=booking.time, name=name)
                attended = f"{COPY.attended.button}: {linker(LinkAction.ATTENDED, booking)}"
                no_show = f"{COPY.no_show.button}: {linker(LinkAction.NO_SHOW, booking)}"
                parts.append(f"{head}\n{attended}\n{no_show}")
    return "\n\n".join(parts)


async def send_when_due(
    store: LeadStore,
    desk: BookingDesk,
    calendar: WorkingCalendar,
    hour: int,
    now: dt.datetime,
) -> bool:
    """Send the digest due at ``now`` if this worker claims its day first; whether it was
    sent now."""
    day = digest_day(now, hour, calendar)
    if day is None:
        return False
    claimed = await asyncio.to_thread(store.monitor_state, BOOKING_DIGEST)
    if claimed >= day.isoformat():  # Sent (or being sent) already; "" is before any day.
        return False
    if not await asyncio.to_thread(store.claim_job, BOOKING_DIGEST, RETRY_EVERY):
        return False  # Tried less than RETRY_EVERY ago (by this worker or another).
    if not await asyncio.to_thread(store.switch_state, BOOKING_DIGEST, claimed, day.isoformat()):
        return False  # Another worker claimed it first.
    found = await asyncio.to_thread(gather, store.engine, day, calendar)
    if found.empty:
        return False
    signer = desk.signer
    linker = None
    if signer is not None:

        def linker(action: LinkAction, booking: Booking) -> str:
            return link(desk.api_url, signer, action, booking)

    text = message(found, linker)
    if await desk.send("agency", {"message": text, "from_email": SITE.email}):
        logger.info("The owner's digest of %s was sent.", day)
        return True
    logger.warning("The owner's digest of %s was not accepted; tried again later.", day)
    await asyncio.to_thread(store.switch_state, BOOKING_DIGEST, day.isoformat(), claimed)
    return False

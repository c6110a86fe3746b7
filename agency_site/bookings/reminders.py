"""The visitor's reminders before a confirmed meeting (``BOOKING_REMINDER_HOURS``, and
``BOOKING_SECOND_REMINDER_HOURS``): found, claimed and sent by the monitor (``watch``).

A reminder is due a fixed number of REAL elapsed hours before the start (the start is
the agency's wall-clock time, Europe/Madrid): 24 h before Monday 30 March 2026 09:00
(07:00 UTC) is Sunday 29 March 09:00, and 48 h before it is Saturday 28 March 08:00 local
time, the clock having changed in between.

Each reminder records in its column (``bookings.reminder_sequence``,
``second_reminder_sequence``) the booking ``sequence`` it was claimed for: below
``sequence``, the reminder of the current time is still to come. So a meeting moved after
its reminder gets one for its new time, and never one for the old time (the claim holds
only for the version read). ONE query finds the candidates (``due``); each is claimed by
a conditional UPDATE (``claim``) before it is sent, so two workers or backends never both
send it and a restart sends nothing twice (the claim is in the database). One the visitor
template did not take is released, tried again next round while still in time. Only a
confirmed booking is reminded (the claim checks the state). A reminder whose time passed
more than its window ago (half its lead time: the site was down) is skipped, not sent
late: claimed without sending, with a log line. So is one that was due before the booking
was confirmed or last moved: the visitor was just e-mailed about that time.
"""

import asyncio
import datetime as dt
import enum
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site import locale
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.mails import starts_at, visitor_mail
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.leads.models import utcnow
from agency_site.leads.store import LeadStore

logger = logging.getLogger(__name__)

# How often each worker looks for due reminders (the claims keep them to one send).
REMINDERS_EVERY = dt.timedelta(minutes=1)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


class Which(enum.StrEnum):
    """A booking's reminders, each with its column."""

    FIRST = "reminder_sequence"
    SECOND = "second_reminder_sequence"

    @property
    def column(self) -> sa.Column:
        return getattr(Booking, self.value)


@dataclass(frozen=True)
class Reminder:
    """One reminder: which, and how long before the start it is due."""

    which: Which
    before: dt.timedelta

    @property
    def window(self) -> dt.timedelta:
        """How late it may still go out: half its lead (12 h of a 24 h one)."""
        return self.before / 2


def plan(first_hours: float, second_hours: float = 0.0) -> tuple[Reminder, ...]:
    """The reminders of these settings (0 hours: that reminder is off)."""
    hours = ((Which.FIRST, first_hours), (Which.SECOND, second_hours))
    return tuple(Reminder(which, dt.timedelta(hours=h)) for which, h in hours if h > 0)


@dataclass(frozen=True)
class Due:
    """A reminder to claim for a booking's version (``late``: to skip, not send; ``news``:
    its time came before the visitor's last e-mail about the booking, to skip quietly)."""

    booking: Booking
    reminder: Reminder
    late: bool = False
    news: bool = False


def due(engine: sa.Engine, now: dt.datetime, reminders: tuple[Reminder, ...]) -> list[Due]:
    """The reminders due at ``now`` (aware) and not yet claimed for their booking's
    version, and those whose time passed more than their window ago (``late``): one query
    over the confirmed bookings of the days concerned, the exact times checked here."""
    if not reminders:
        return []
    furthest = max(r.before for r in reminders)
    query = select(Booking).where(
        Booking.state == BookingStatus.CONFIRMED,
        col(Booking.date) >= (now - dt.timedelta(days=1)).date(),
        col(Booking.date) <= (now + furthest + dt.timedelta(days=1)).date(),
        sa.or_(*(r.which.column < col(Booking.sequence) for r in reminders)),
    )
    with Session(engine, expire_on_commit=False) as session:
        bookings = session.exec(query.order_by(col(Booking.date), col(Booking.time))).all()
    found = []
    for booking in bookings:
        start = _utc_start(booking)
        for reminder in reminders:
            at = start - reminder.before
            claimed = getattr(booking, reminder.which.value)
            if claimed < booking.sequence and at <= now:
                late = now - at > reminder.window
                found.append(Due(booking, reminder, late=late, news=at < _last_told(booking)))
    return found


def _utc_start(booking: Booking) -> dt.datetime:
    """When ``booking`` starts, in UTC: Python subtracts hours from a Madrid time on the
    wall clock (48 h before Monday 30 March 2026 10:00 would be Saturday 10:00, 47 real
    hours before)."""
    return starts_at(booking).astimezone(dt.UTC)


def _last_told(booking: Booking) -> dt.datetime:
    """When the visitor was last e-mailed the booking's time: confirmed, or moved."""
    moments = (m for m in (booking.decided_at, booking.moved_at) if m is not None)
    # SQLite gives stored times back naive: the table stores UTC.
    return max((m if m.tzinfo else m.replace(tzinfo=dt.UTC) for m in moments), default=_EPOCH)


def claim(engine: sa.Engine, booking: Booking, which: Which) -> bool:
    """Claim reminder ``which`` of ``booking``'s version, if still confirmed, at that
    version and not claimed: whether this call claimed it (one caller ever does)."""
    with engine.begin() as connection:
        return bool(
            connection.execute(
                sa.update(Booking)
                .where(
                    col(Booking.lead_id) == booking.lead_id,
                    col(Booking.sequence) == booking.sequence,
                    Booking.state == BookingStatus.CONFIRMED,
                    which.column < booking.sequence,
                )
                .values({which.value: booking.sequence})
            ).rowcount
        )


def release(engine: sa.Engine, booking: Booking, which: Which) -> None:
    """Give back a claim whose e-mail was not accepted (tried again next round)."""
    with engine.begin() as connection:
        connection.execute(
            sa.update(Booking)
            .where(col(Booking.lead_id) == booking.lead_id, which.column == booking.sequence)
            .values({which.value: getattr(booking, which.value)})
        )


async def send_due(desk: BookingDesk, now: dt.datetime, reminders: tuple[Reminder, ...]) -> int:
    """Claim and send the reminders due at ``now`` (skip the late ones); how many sent."""
    if desk.signer is None:  # No manage or calendar links to send.
        return 0
    engine, sent = desk.engine, 0
    for item in await asyncio.to_thread(due, engine, now, reminders):
        booking, which = item.booking, item.reminder.which
        if not await asyncio.to_thread(claim, engine, booking, which):
            continue  # Another worker has it, or the booking changed meanwhile.
        if item.news:
            logger.info(
                "The %s reminder of booking %s was due before it was confirmed or moved: "
                "skipped (the visitor was just e-mailed).",
                which.name.lower(),
                booking.lead_id,
            )
            continue
        if item.late:
            logger.warning(
                "The %s reminder of booking %s (%s %s) was due %s ago: skipped, not sent late.",
                which.name.lower(),
                booking.lead_id,
                booking.date,
                booking.time,
                now - (_utc_start(booking) - item.reminder.before),
            )
            continue
        lead = await asyncio.to_thread(LeadStore(engine).get, booking.lead_id)
        if lead is None:
            continue
        with locale.active(lead.language):  # The visitor's e-mail: their language.
            mail = visitor_mail(
                booking,
                lead.fields,
                api_url=desk.api_url,
                site_url=desk.site_url,
                signer=desk.signer,
                reminder=True,
            )
        if await desk.send("visitor", mail.params):
            sent += 1
        else:
            await asyncio.to_thread(release, engine, booking, which)
            logger.error(
                "The reminder of booking %s was not accepted by the visitor template; tried "
                "again next round.",
                booking.lead_id,
            )
    return sent


@dataclass
class ReminderWatch:
    """The monitor's reminders round, at most every ``every`` in this process."""

    reminders: tuple[Reminder, ...]
    desk: Callable[[], BookingDesk]
    every: dt.timedelta = REMINDERS_EVERY
    _next: float = field(default=0.0, repr=False)

    async def watch(self) -> int:
        """Send the due reminders, if this process's turn has come; how many were sent."""
        if not self.reminders or time.monotonic() < self._next:
            return 0
        self._next = time.monotonic() + self.every.total_seconds()
        return await send_due(self.desk(), utcnow(), self.reminders)

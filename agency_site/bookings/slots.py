"""Claiming a slot for a booking, freeing it, and a booking's state changes.

A slot is claimed in the same transaction as its lead is stored
(``claim``, called by the leads store), so a visitor is told "received" only for a slot
the database gave them. Every later change is one conditional UPDATE (``decide``): the
booking changes only from a state that allows it, and a single-use link's digest is
inserted in the same transaction, so a replayed link changes nothing.
"""

import datetime as dt
import enum
from collections.abc import Iterable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.bookings.models import Booking, BookingLinkUse, BookingState, slot_key
from agency_site.leads.models import utcnow
from agency_site.rules import AGENCY_TIME_ZONE
from agency_site.working_calendar import WorkingCalendar

# How far ahead the nearest free slots are looked for when the asked one is taken.
_SEARCH_DAYS = 21


class SlotTaken(Exception):
    """The slot is already held by another pending or confirmed booking."""


class DayFull(Exception):
    """The day already has ``BOOKING_DAILY_LIMIT`` active bookings."""


def claim(session: Session, lead_id: int, date: dt.date, time: str, daily_limit: int) -> None:
    """Hold ``date`` ``time`` for lead ``lead_id`` in the caller's transaction.

    Raises ``SlotTaken`` (the unique index refused it) or ``DayFull``; the caller rolls
    back, so neither the booking nor its lead is stored.
    """
    if daily_limit and active_on(session, date) >= daily_limit:
        raise DayFull(date.isoformat())
    session.add(Booking(lead_id=lead_id, date=date, time=time, active_slot=slot_key(date, time)))
    try:
        session.flush()
    except sa.exc.IntegrityError as error:
        if "active_slot" in str(error.orig) or "ux_bookings_active_slot" in str(error.orig):
            raise SlotTaken(slot_key(date, time)) from None
        raise


def active_on(session: Session, date: dt.date) -> int:
    """How many bookings hold a slot on ``date``."""
    query = select(sa.func.count()).where(
        Booking.date == date, col(Booking.active_slot).is_not(None)
    )
    return session.exec(query).one()


def taken(engine: sa.Engine, dates: Iterable[dt.date]) -> dict[dt.date, set[str]]:
    """The slots held (pending or confirmed) on each of ``dates``."""
    dates = list(dates)
    held: dict[dt.date, set[str]] = {date: set() for date in dates}
    with Session(engine) as session:
        rows = session.exec(
            select(Booking.date, Booking.time).where(
                col(Booking.date).in_(dates), col(Booking.active_slot).is_not(None)
            )
        )
        for date, time in rows:
            held[date].add(time)
    return held


@dataclass(frozen=True)
class Availability:
    """What the form offers for a day."""

    free: tuple[str, ...]  # The day's slots still open and not held, in order.
    taken: tuple[str, ...]  # The day's slots held by a pending or confirmed booking.
    full: bool  # The day reached BOOKING_DAILY_LIMIT.


def availability(
    engine: sa.Engine, date: dt.date, now: dt.datetime, calendar: WorkingCalendar, daily_limit: int
) -> Availability:
    """The free slots of ``date`` at ``now``."""
    held = taken(engine, [date])[date]
    full = bool(daily_limit) and len(held) >= daily_limit
    free = () if full else tuple(s for s in calendar.open_slots(date, now) if s not in held)
    return Availability(free=free, taken=tuple(sorted(held)), full=full)


def nearest_free(
    engine: sa.Engine,
    date: dt.date,
    time: str,
    now: dt.datetime,
    calendar: WorkingCalendar,
    daily_limit: int,
    count: int = 3,
) -> list[tuple[dt.date, str]]:
    """Up to ``count`` free slots nearest to ``date`` ``time``: that day's first (closest
    in time), then the following working days' in order."""
    days = [date + dt.timedelta(days=n) for n in range(_SEARCH_DAYS)]
    held = taken(engine, days)
    found: list[tuple[dt.date, str]] = []
    for day in days:
        if daily_limit and len(held[day]) >= daily_limit:
            continue
        free = [s for s in calendar.open_slots(day, now) if s not in held[day]]
        if day == date:
            free.sort(key=lambda slot: abs(_minutes(slot) - _minutes(time)))
        found.extend((day, slot) for slot in free)
        if len(found) >= count:
            break
    return found[:count]


def _minutes(slot: str) -> int:
    hours, minutes = slot.split(":")
    return int(hours) * 60 + int(minutes)


class Decision(enum.StrEnum):
    """How a requested change ended."""

    DONE = "done"
    REPLAYED = "replayed"  # This single-use link was used before: nothing changed.
    NOT_ALLOWED = "not_allowed"  # The booking is in a state this change cannot leave.
    UNKNOWN = "unknown"  # No such booking (never, or erased).


# The states each target state may be reached from.
_FROM: dict[BookingState, tuple[BookingState, ...]] = {
    BookingState.CONFIRMED: (BookingState.PENDING,),
    BookingState.DECLINED: (BookingState.PENDING, BookingState.CONFIRMED),
    BookingState.CANCELLED: (BookingState.PENDING, BookingState.CONFIRMED),
}


def decide(
    engine: sa.Engine, lead_id: int, to: BookingState, link_digest: str | None = None
) -> tuple[Decision, Booking | None]:
    """Move booking ``lead_id`` to ``to`` (confirmed, declined or cancelled), once.

    With ``link_digest`` the link is spent in the same transaction: a second use of it
    is ``REPLAYED`` whatever the booking's state. Declining or cancelling frees the slot.
    Returns the outcome and the booking as it is afterwards.
    """
    with Session(engine, expire_on_commit=False) as session:
        booking = session.get(Booking, lead_id)
        if booking is None:
            return Decision.UNKNOWN, None
        if link_digest is not None:
            session.add(BookingLinkUse(digest=link_digest))
            try:
                session.flush()
            except sa.exc.IntegrityError:
                session.rollback()
                return Decision.REPLAYED, session.get(Booking, lead_id)
        values = {"state": to, "decided_at": utcnow()}
        if not to.active:
            values["active_slot"] = None
        changed = session.execute(
            sa.update(Booking)
            .where(col(Booking.lead_id) == lead_id, col(Booking.state).in_(_FROM[to]))
            .values(**values)
        ).rowcount
        if not changed:
            session.rollback()
            return Decision.NOT_ALLOWED, session.get(Booking, lead_id)
        session.commit()
        session.refresh(booking)
        return Decision.DONE, booking


def answer_due(requested_at: dt.datetime, calendar: WorkingCalendar) -> dt.datetime:
    """When the agency should have answered a booking requested at ``requested_at``: the
    same time on the next working day (a Friday-afternoon request: Monday afternoon)."""
    local = requested_at.astimezone(ZoneInfo(AGENCY_TIME_ZONE))
    day = calendar.next_working_day(local.date() + dt.timedelta(days=1))
    return dt.datetime.combine(day, local.timetz())


def unanswered(
    engine: sa.Engine, now: dt.datetime, calendar: WorkingCalendar | None = None
) -> list[Booking]:
    """Pending bookings whose answer is overdue at ``now`` and whose owner was not yet told."""
    calendar = calendar or WorkingCalendar()
    with Session(engine, expire_on_commit=False) as session:
        query = select(Booking).where(
            Booking.state == BookingState.PENDING,
            col(Booking.created_at) < now - dt.timedelta(days=1),
            col(Booking.reminded_at).is_(None),
        )
        found = session.exec(query.order_by(col(Booking.created_at)))
        return [b for b in found if answer_due(_utc(b.created_at), calendar) <= now]


def _utc(moment: dt.datetime) -> dt.datetime:
    """SQLite gives stored times back naive: the table stores UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def mark_reminded(engine: sa.Engine, lead_ids: Iterable[int]) -> None:
    """Record that the owner was told these bookings wait for an answer."""
    with Session(engine) as session:
        session.execute(
            sa.update(Booking)
            .where(col(Booking.lead_id).in_(list(lead_ids)))
            .values(reminded_at=utcnow())
        )
        session.commit()


def get(engine: sa.Engine, lead_id: int) -> Booking | None:
    """The booking of lead ``lead_id``."""
    with Session(engine, expire_on_commit=False) as session:
        return session.get(Booking, lead_id)


def forget(session: Session, lead_ids: Iterable[int]) -> None:
    """Delete the bookings (and free the slots) of leads being erased or purged."""
    session.execute(sa.delete(Booking).where(col(Booking.lead_id).in_(list(lead_ids))))

"""Claiming a slot for a booking, freeing it, and a booking's state changes.

A slot is claimed in the same transaction as its lead is stored
(``claim``, called by the leads store), so a visitor is told "received" only for a slot
the database gave them. Every later change is one conditional UPDATE (``decide``): the
booking changes only from a state that allows it, and a single-use link's digest is
inserted in the same transaction, so a replayed link changes nothing.

``BOOKING_DAILY_LIMIT`` is counted under a lock of the day (PostgreSQL's transaction
advisory lock; SQLite has one writer at a time anyway), so simultaneous requests cannot
count the same free place. A booking drained from the spool, or released from quarantine
by the owner, after its slot was taken (or over a cap, drained) is stored without it
(``slot_lost``, with its ``SlotLost`` reason); confirming it claims the slot, or is
refused. Pending bookings are capped per mailbox and per network (``caps.py``, counted in
the claiming transaction) and expire, freeing their slot, when left unanswered
(``expire_pending``).
Which slots are free is ``availability.py``'s; the visitor's or the owner's move of a
booking (one conditional UPDATE too) is ``reschedule.py``'s.
"""

import datetime as dt
import enum
import logging
from collections.abc import Iterable
from contextlib import nullcontext
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.bookings import events
from agency_site.bookings.models import (
    Attendance,
    Booking,
    BookingLinkUse,
    BookingStatus,
    SlotLost,
    slot_key,
)
from agency_site.leads.models import utcnow
from agency_site.rules import AGENCY_TIME_ZONE
from agency_site.working_calendar import WorkingCalendar

logger = logging.getLogger(__name__)

# The first key of the days' advisory locks (PostgreSQL): the second is the day's ordinal.
_DAY_LOCK_SPACE = 0x0B00C


class SlotTaken(Exception):
    """The slot is already held by another pending or confirmed booking."""


class SlotBusy(Exception):
    """The owner's calendar is busy then (``busy_times.py``)."""


class DayFull(Exception):
    """The day already has ``BOOKING_DAILY_LIMIT`` active bookings."""


def claim(
    session: Session,
    lead_id: int,
    date: dt.date,
    time: str,
    daily_limit: int,
    network: str | None = None,
    mailbox: str | None = None,
) -> None:
    """Hold ``date`` ``time`` for lead ``lead_id`` in the caller's transaction.

    Raises ``SlotTaken`` (the unique index refused it) or ``DayFull``; the caller rolls
    back, so neither the booking nor its lead is stored. ``network``: the claiming
    request's ``ratelimit.network_digest``, kept while the booking is pending; ``mailbox``: the
    visitor's ``mailbox_digest`` (both counted by ``caps.over``).
    """
    if day_full(session, date, daily_limit):
        raise DayFull(date.isoformat())
    session.add(
        Booking(
            lead_id=lead_id,
            date=date,
            time=time,
            active_slot=slot_key(date, time),
            network=network,
            mailbox=mailbox,
        )
    )
    try:
        session.flush()
    except sa.exc.IntegrityError as error:
        if "active_slot" in str(error.orig) or "ux_bookings_active_slot" in str(error.orig):
            raise SlotTaken(slot_key(date, time)) from None
        raise


def store_without_slot(
    session: Session,
    lead_id: int,
    date: dt.date,
    time: str,
    reason: SlotLost,
    network: str | None = None,
    mailbox: str | None = None,
) -> None:
    """Store the booking of a lead that must not be lost though its slot (or day) is taken,
    the owner is busy then, or its visitor is over a cap: it holds no slot, and is marked so
    for the agency (``slot_lost``, and why: ``reason``)."""
    session.add(
        Booking(
            lead_id=lead_id,
            date=date,
            time=time,
            slot_lost=True,
            slot_lost_reason=reason,
            network=network,
            mailbox=mailbox,
        )
    )
    logger.warning(
        "Booking lead %s stored WITHOUT its slot (%s: %s): the agency is told.",
        lead_id,
        slot_key(date, time),
        reason,
    )


def day_full(session: Session, date: dt.date, daily_limit: int) -> bool:
    """Whether ``date`` already has ``daily_limit`` active bookings (0: no limit).

    On PostgreSQL the day is locked first until the caller's transaction ends, so two
    transactions never both count the same last free place (READ COMMITTED).
    """
    if not daily_limit:
        return False
    if session.get_bind().dialect.name == "postgresql":
        session.execute(
            sa.text("SELECT pg_advisory_xact_lock(:space, :day)"),
            {"space": _DAY_LOCK_SPACE, "day": date.toordinal()},
        )
    return active_on(session, date) >= daily_limit


def active_on(session: Session, date: dt.date) -> int:
    """How many bookings hold a slot on ``date``."""
    query = select(sa.func.count()).where(
        Booking.date == date, col(Booking.active_slot).is_not(None)
    )
    return session.exec(query).one()


def taken(bind: sa.Engine | Session, dates: Iterable[dt.date]) -> dict[dt.date, set[str]]:
    """The slots held (pending or confirmed) on each of ``dates`` (``bind``: the database,
    or a session whose transaction to read in)."""
    dates = list(dates)
    held: dict[dt.date, set[str]] = {date: set() for date in dates}
    with nullcontext(bind) if isinstance(bind, Session) else Session(bind) as session:
        rows = session.exec(
            select(Booking.date, Booking.time).where(
                col(Booking.date).in_(dates), col(Booking.active_slot).is_not(None)
            )
        )
        for date, time in rows:
            held[date].add(time)
    return held


def spend_link(session: Session, link_digest: str | None) -> bool:
    """Spend a single-use link in the caller's transaction (``booking_link_uses``' primary
    key); False (the transaction rolled back) when it was spent before. None: no link."""
    if link_digest is None:
        return True
    session.add(BookingLinkUse(digest=link_digest))
    try:
        session.flush()
    except sa.exc.IntegrityError:
        session.rollback()
        return False
    return True


class Decision(enum.StrEnum):
    """How a requested change ended."""

    DONE = "done"
    REPLAYED = "replayed"  # This single-use link was used before: nothing changed.
    NOT_ALLOWED = "not_allowed"  # The booking is in a state this change cannot leave.
    UNKNOWN = "unknown"  # No such booking (never, or erased).
    # A booking stored without its slot (``slot_lost``) cannot be confirmed: its slot is
    # held by another booking, or its day is full. Nothing changed (the link still works).
    SLOT_TAKEN = "slot_taken"


# The states each target state may be reached from.
_FROM: dict[BookingStatus, tuple[BookingStatus, ...]] = {
    BookingStatus.CONFIRMED: (BookingStatus.PENDING,),
    BookingStatus.DECLINED: (BookingStatus.PENDING, BookingStatus.CONFIRMED),
    BookingStatus.CANCELLED: (BookingStatus.PENDING, BookingStatus.CONFIRMED),
}


def decide(
    engine: sa.Engine,
    lead_id: int,
    to: BookingStatus,
    link_digest: str | None = None,
    daily_limit: int = 0,
    version: int | None = None,
) -> tuple[Decision, Booking | None]:
    """Move booking ``lead_id`` to ``to`` (confirmed, declined or cancelled), once.

    With ``link_digest`` the link is spent in the same transaction: a second use of it
    is ``REPLAYED`` whatever the booking's state. Declining or cancelling frees the slot.
    Confirming a booking stored without its slot claims the slot in the same transaction
    (``SLOT_TAKEN`` when another booking holds it or the day is full: nothing changes).
    With ``version`` (its ``sequence`` when the owner's desk showed it) a booking moved
    since is ``NOT_ALLOWED`` too: the owner answers the time they saw, or nothing.
    Returns the outcome and the booking as it is afterwards.
    """
    with Session(engine, expire_on_commit=False) as session:
        booking = session.get(Booking, lead_id)
        if booking is None:
            return Decision.UNKNOWN, None
        if not spend_link(session, link_digest):
            return Decision.REPLAYED, session.get(Booking, lead_id)
        # Whatever the change, the booking is no longer pending: its network is not needed.
        values = {"state": to, "decided_at": utcnow(), "network": None}
        if not to.active:
            values["active_slot"] = None
        lost = to is BookingStatus.CONFIRMED and booking.slot_lost
        if lost:
            if day_full(session, booking.date, daily_limit):
                session.rollback()
                return Decision.SLOT_TAKEN, session.get(Booking, lead_id)
            values |= {"active_slot": slot_key(booking.date, booking.time), "slot_lost": False}
        try:
            seen = [] if version is None else [col(Booking.sequence) == version]
            changed = session.execute(
                sa.update(Booking)
                .where(col(Booking.lead_id) == lead_id, col(Booking.state).in_(_FROM[to]), *seen)
                .values(**values)
            ).rowcount
        except sa.exc.IntegrityError:  # The unique slot: another booking holds it.
            session.rollback()
            return Decision.SLOT_TAKEN, session.get(Booking, lead_id)
        if not changed:
            session.rollback()
            return Decision.NOT_ALLOWED, session.get(Booking, lead_id)
        events.queue(session, lead_id, f"booking.{to}")
        session.commit()
        session.refresh(booking)
        return Decision.DONE, booking


def slot_start(date: dt.date, time: str) -> dt.datetime:
    """When the slot ``date`` ``time`` starts (aware, the agency's wall clock)."""
    return dt.datetime.combine(date, dt.time.fromisoformat(time), ZoneInfo(AGENCY_TIME_ZONE))


def until(moment: dt.datetime, now: dt.datetime) -> dt.timedelta:
    """The real time from ``now`` to ``moment`` (both aware). Python subtracts two times of
    one time zone on their wall clocks; through UTC the hour a clock change adds or takes
    away counts as it passes."""
    return moment.astimezone(dt.UTC) - now.astimezone(dt.UTC)


def answer_due(
    requested_at: dt.datetime, calendar: WorkingCalendar, working_days: int = 1
) -> dt.datetime:
    """When the agency should have answered a booking requested at ``requested_at``: the
    same time ``working_days`` working days later (one, from a Friday afternoon: Monday
    afternoon)."""
    local = requested_at.astimezone(ZoneInfo(AGENCY_TIME_ZONE))
    day = local.date()
    for _ in range(working_days):
        day = calendar.next_working_day(day + dt.timedelta(days=1))
    return dt.datetime.combine(day, local.timetz())


def unanswered(
    engine: sa.Engine, now: dt.datetime, calendar: WorkingCalendar | None = None
) -> list[Booking]:
    """Pending bookings whose answer is overdue at ``now`` and whose owner was not yet told."""
    calendar = calendar or WorkingCalendar()
    with Session(engine, expire_on_commit=False) as session:
        query = select(Booking).where(
            Booking.state == BookingStatus.PENDING,
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


# --- Unanswered bookings expire -----------------------------------------------------------


def expire_pending(
    engine: sa.Engine, now: dt.datetime, calendar: WorkingCalendar, working_days: int
) -> list[int]:
    """Expire the bookings still pending ``working_days`` working days after they were
    requested (their slot is free again); the lead ids of those this call expired. Each
    one's ``booking.expired`` webhook is queued in the transaction that expires it."""
    if working_days <= 0:
        return []
    with Session(engine) as session:
        candidates = session.exec(
            select(Booking.lead_id, Booking.created_at).where(
                Booking.state == BookingStatus.PENDING,
                col(Booking.created_at) < now - dt.timedelta(days=working_days),
            )
        ).all()
    due = [
        lead_id
        for lead_id, created_at in candidates
        if answer_due(_utc(created_at), calendar, working_days) <= now
    ]
    expired = []
    for lead_id in due:
        with Session(engine) as session:
            changed = session.execute(
                sa.update(Booking)
                .where(col(Booking.lead_id) == lead_id, Booking.state == BookingStatus.PENDING)
                .values(
                    state=BookingStatus.EXPIRED,
                    decided_at=utcnow(),
                    active_slot=None,
                    network=None,
                )
            ).rowcount
            if changed:
                events.queue(session, lead_id, "booking.expired")
            session.commit()
        if changed:
            expired.append(lead_id)
    return expired


def expired_untold(engine: sa.Engine) -> list[Booking]:
    """Expired bookings whose visitor was not yet told, oldest first."""
    query = select(Booking).where(
        Booking.state == BookingStatus.EXPIRED, col(Booking.expiry_told_at).is_(None)
    )
    with Session(engine, expire_on_commit=False) as session:
        return list(session.exec(query.order_by(col(Booking.decided_at))).all())


def mark_expiry_told(engine: sa.Engine, lead_id: int) -> None:
    """Record that the visitor of booking ``lead_id`` was told it expired."""
    with engine.begin() as connection:
        connection.execute(
            sa.update(Booking)
            .where(col(Booking.lead_id) == lead_id)
            .values(expiry_told_at=utcnow())
        )


# --- Whether the visitor came (the owner's digest links) --------------------------------


def mark_attendance(
    engine: sa.Engine,
    lead_id: int,
    outcome: Attendance,
    link_digest: str | None,
    now: dt.datetime,
) -> tuple[Decision, Booking | None]:
    """Record ``outcome`` for booking ``lead_id``, once: only a confirmed booking whose
    meeting has started by ``now`` and is not marked yet (else ``NOT_ALLOWED``, nothing
    changes and the link is not spent). The link is spent, and the ``booking.attended`` or
    ``booking.no_show`` webhook queued, in the same transaction."""
    with Session(engine, expire_on_commit=False) as session:
        booking = session.get(Booking, lead_id)
        if booking is None:
            return Decision.UNKNOWN, None
        if not spend_link(session, link_digest):
            return Decision.REPLAYED, session.get(Booking, lead_id)
        if until(slot_start(booking.date, booking.time), now) > dt.timedelta(0):
            session.rollback()
            return Decision.NOT_ALLOWED, session.get(Booking, lead_id)
        changed = session.execute(
            sa.update(Booking)
            .where(
                col(Booking.lead_id) == lead_id,
                col(Booking.state) == BookingStatus.CONFIRMED,
                col(Booking.attendance).is_(None),
            )
            .values(attendance=outcome, attendance_at=utcnow())
        ).rowcount
        if not changed:
            session.rollback()
            return Decision.NOT_ALLOWED, session.get(Booking, lead_id)
        events.queue(session, lead_id, f"booking.{outcome}")
        session.commit()
        session.refresh(booking)
        return Decision.DONE, booking


def confirmed_between(engine: sa.Engine, first: dt.date, last: dt.date) -> list[Booking]:
    """The confirmed bookings from ``first`` to ``last`` (both included), in time order."""
    with Session(engine) as session:
        query = (
            select(Booking)
            .where(
                col(Booking.state) == BookingStatus.CONFIRMED,
                col(Booking.date) >= first,
                col(Booking.date) <= last,
            )
            .order_by(col(Booking.date), col(Booking.time))
        )
        return list(session.exec(query))

"""Moving a booking to another slot: the visitor's, from their manage link, or the owner's,
from the desk.

A move is one conditional UPDATE (``move``): the old slot freed and the new one claimed
together, only from the version (``sequence``) the page was shown, so a replayed form or a
move from another tab changes nothing. The visitor's moves are limited
(``MoveRules``); the visitor and the agency are e-mailed about each version once
(``moves_untold``, ``mark_move_told``).
"""

import datetime as dt
import enum
import logging
from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.bookings import caps, events
from agency_site.bookings.busy_times import NOTHING_BUSY, BusyTimes
from agency_site.bookings.models import Booking, BookingStatus, slot_key
from agency_site.bookings.slots import day_full, slot_start, until
from agency_site.leads.models import utcnow
from agency_site.leads.validation import one_year_after
from agency_site.working_calendar import WorkingCalendar

logger = logging.getLogger(__name__)


class MoveRefused(enum.StrEnum):
    """Why a booking cannot be moved now (the page offers phone and WhatsApp instead)."""

    TOO_LATE = "too_late"  # Inside BOOKING_CHANGE_NOTICE_HOURS of the appointment.
    TOO_MANY = "too_many"  # Already moved BOOKING_MAX_RESCHEDULES times.


@dataclass(frozen=True)
class MoveRules:
    """When a visitor may move their booking (``BOOKING_CHANGE_NOTICE_HOURS``,
    ``BOOKING_MAX_RESCHEDULES``) and whether a confirmed one moved is pending again
    (``BOOKING_RECONFIRM_MOVES``)."""

    notice: dt.timedelta = dt.timedelta(hours=24)
    max_moves: int = 3
    reconfirm: bool = False

    def refusal(self, booking: Booking, now: dt.datetime) -> MoveRefused | None:
        """Why ``booking`` cannot be moved at ``now`` (aware), or None when it can.

        The notice is counted in real hours (UTC instants): across a change of the clocks
        the wall clock's hours are one more or one less."""
        if until(slot_start(booking.date, booking.time), now) < self.notice:
            return MoveRefused.TOO_LATE
        if booking.reschedules >= self.max_moves:
            return MoveRefused.TOO_MANY
        return None


class Moved(enum.StrEnum):
    """How a move ended (besides ``MoveRefused``)."""

    DONE = "done"
    # The form was shown for an earlier version of the booking (the same move sent again,
    # or another tab moved it first): nothing changed.
    STALE = "stale"
    NOT_ALLOWED = "not_allowed"  # Declined, cancelled or expired: it holds no slot to move.
    UNKNOWN = "unknown"
    NOT_OPEN = "not_open"  # Not a bookable slot: closed day, too soon, too far, no such slot.
    SAME = "same"  # The slot the booking already holds.
    SLOT_TAKEN = "slot_taken"  # Another booking holds it, or its day is full.


def bookable(date: dt.date, time: str, now: dt.datetime, calendar: WorkingCalendar) -> bool:
    """Whether the form would accept ``date`` ``time`` at ``now``: an open slot of a working
    day from today to a year ahead (``leads.validation``'s date rule)."""
    return date <= one_year_after(now.date()) and time in calendar.open_slots(date, now)


def move(
    engine: sa.Engine,
    lead_id: int,
    date: dt.date,
    time: str,
    *,
    version: int,
    now: dt.datetime,
    rules: MoveRules,
    calendar: WorkingCalendar,
    daily_limit: int = 0,
    busy: BusyTimes = NOTHING_BUSY,
    pending_caps: caps.PendingCaps = caps.NO_CAPS,
    counted: bool = True,
) -> tuple[Moved | MoveRefused, Booking | None]:
    """Move booking ``lead_id`` to ``date`` ``time`` in one transaction, if it is still at
    ``version`` (its ``sequence`` when the form was shown). ``counted``: the move counts
    toward the visitor's ``rules.max_moves`` (a visitor's; the owner's, from the desk, not).

    One conditional UPDATE frees the old slot and claims the new one (the unique
    ``active_slot`` still allows one booking per slot: of two moves to one slot, one
    wins, the other is ``SLOT_TAKEN``), adds one to ``sequence`` and ``reschedules``,
    and, with ``rules.reconfirm``, makes a confirmed booking pending again. A replayed
    form finds the booking at a later version: ``STALE``, nothing changes. A slot the owner
    is ``busy`` for is answered as a taken one. A pending booking that holds no slot
    (``slot_lost``) claims one by moving: within ``pending_caps`` (``caps.over``, in this
    transaction), else answered as a taken slot. Returns the outcome and the booking as it
    is afterwards.
    """
    with Session(engine, expire_on_commit=False) as session:
        booking = session.get(Booking, lead_id)
        if booking is None:
            return Moved.UNKNOWN, None
        if why_not := _why_not(booking, version, now, rules) or _not_open(
            booking, date, time, now, calendar, busy
        ):
            return why_not, booking
        if not _room(session, booking, date, daily_limit, pending_caps):
            session.rollback()
            return Moved.SLOT_TAKEN, booking
        values = _moved_values(booking, date, time, rules, counted)
        if lost := _write(session, booking, version, values, pending_caps):
            session.rollback()
            return lost, session.get(Booking, lead_id)
        events.queue(session, lead_id, "booking.rescheduled")
        session.commit()
        session.refresh(booking)
        logger.info(
            "Booking %s moved by %s from %s to %s.",
            lead_id,
            "its visitor" if counted else "the agency",
            booking.moved_from,
            booking.active_slot,
        )
        return Moved.DONE, booking


def _why_not(
    booking: Booking, version: int, now: dt.datetime, rules: MoveRules
) -> Moved | MoveRefused | None:
    """Why ``booking`` cannot move at all now (a stale form, a state or ``rules``), or None."""
    state = BookingStatus(booking.state)
    if booking.sequence != version:
        return Moved.STALE
    if not state.active:
        return Moved.NOT_ALLOWED
    return rules.refusal(booking, now)


def _not_open(
    booking: Booking,
    date: dt.date,
    time: str,
    now: dt.datetime,
    calendar: WorkingCalendar,
    busy: BusyTimes,
) -> Moved | None:
    """Why ``booking`` cannot move to ``date`` ``time``, whatever the table holds, or None."""
    if (date, time) == (booking.date, booking.time) and booking.active_slot:
        return Moved.SAME
    if not bookable(date, time, now, calendar):
        return Moved.NOT_OPEN
    if busy.blocks(date, time):
        return Moved.SLOT_TAKEN
    return None


def _claims(booking: Booking) -> bool:
    """Whether moving ``booking`` claims a slot: a pending booking holding none."""
    return booking.active_slot is None and BookingStatus(booking.state) is BookingStatus.PENDING


def _room(
    session: Session,
    booking: Booking,
    date: dt.date,
    daily_limit: int,
    pending_caps: caps.PendingCaps,
) -> bool:
    """Whether ``date`` has room for ``booking`` (False: the caller rolls back)."""
    # A pending booking holding no slot claims one: its caps are locked before the day.
    if _claims(booking):
        caps.lock(session, pending_caps, booking.mailbox, booking.network)
    # A move within its own day leaves the day's count as it is.
    return date == booking.date or not day_full(session, date, daily_limit)


def _moved_values(
    booking: Booking, date: dt.date, time: str, rules: MoveRules, counted: bool
) -> dict[str, object]:
    """The columns a move of ``booking`` to ``date`` ``time`` writes."""
    values = {
        "date": date,
        "time": time,
        "active_slot": slot_key(date, time),
        "slot_lost": False,
        "sequence": Booking.sequence + 1,
        "reschedules": Booking.reschedules + (1 if counted else 0),
        "moved_from": slot_key(booking.date, booking.time),
        "moved_at": utcnow(),
    }
    if rules.reconfirm and BookingStatus(booking.state) is BookingStatus.CONFIRMED:
        values |= {"state": BookingStatus.PENDING, "decided_at": None}
    return values


def _write(
    session: Session,
    booking: Booking,
    version: int,
    values: dict[str, object],
    pending_caps: caps.PendingCaps,
) -> Moved | None:
    """Write the move of ``booking`` in ``session`` if it is still at ``version``: why it
    was not (the caller rolls back), or None."""
    lead_id = booking.lead_id
    claims = _claims(booking)  # Before the write: it changes ``booking.active_slot``.
    try:
        changed = session.execute(
            sa.update(Booking)
            .where(
                col(Booking.lead_id) == lead_id,
                col(Booking.sequence) == version,
                col(Booking.state).in_((BookingStatus.PENDING, BookingStatus.CONFIRMED)),
            )
            .values(**values)
        ).rowcount
    except sa.exc.IntegrityError:  # The unique slot: another booking holds it.
        return Moved.SLOT_TAKEN
    if not changed:  # Moved or cancelled meanwhile, by another request.
        return Moved.STALE
    # Counted after the write: on SQLite the transaction holds the write lock by now.
    if claims and caps.over(
        session, pending_caps, booking.mailbox, booking.network, exclude=lead_id
    ):
        logger.warning("Booking %s holds no slot and its visitor is over a cap.", lead_id)
        return Moved.SLOT_TAKEN
    return None


def moves_untold(engine: sa.Engine, before: dt.datetime) -> list[Booking]:
    """Bookings moved before ``before``, still pending or confirmed, whose last move the
    visitor or the agency was not yet e-mailed about, oldest move first."""
    query = select(Booking).where(
        col(Booking.moved_at) < before,
        col(Booking.state).in_((BookingStatus.PENDING, BookingStatus.CONFIRMED)),
        sa.or_(
            col(Booking.visitor_told_sequence) < col(Booking.sequence),
            col(Booking.agency_told_sequence) < col(Booking.sequence),
        ),
    )
    with Session(engine, expire_on_commit=False) as session:
        return list(session.exec(query.order_by(col(Booking.moved_at))).all())


def mark_move_told(engine: sa.Engine, lead_id: int, sequence: int, *, agency: bool) -> None:
    """Record that the visitor (or the agency) was e-mailed about version ``sequence``."""
    column = Booking.agency_told_sequence if agency else Booking.visitor_told_sequence
    with engine.begin() as connection:
        connection.execute(
            sa.update(Booking)
            .where(col(Booking.lead_id) == lead_id, col(column) < sequence)
            .values({column.key: sequence})
        )

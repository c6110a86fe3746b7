"""The bookings calendar's data: the week or month shown (``Period``), each day with its
requested and confirmed bookings, the owner's busy stretches (the intervals the booking
form leaves out, ``BookingDesk.busy``: ``busy_feed``/``busy_times``) and the slots still
open (``availability.availability``: the working calendar's, not held, not busy, as the form
offers them), and every booking still waiting for an answer, the oldest first, with how long
it has waited and whether it is past its answer's due time (``slots.answer_due``: one
working day, the rule the owner's "unanswered" alert follows). Each booking as the calendar
shows it says what the owner may do to it now (``answers_of``, ``movable``: the owner's
moves, ``OWNER_MOVES``, are not the visitor's; ``booking_answers.py``)."""

import datetime as dt
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site import paths
from agency_site.bookings import availability, reschedule, slots
from agency_site.bookings.busy_times import BusyTimes
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.desk.guard import AGENCY_ZONE, query_string
from agency_site.leads.models import Lead
from agency_site.working_calendar import Closure, WorkingCalendar

# How many bookings waiting for an answer the page lists (the oldest first).
WAITING_SHOWN = 100
# The owner's moves: until the meeting starts, as often as needed, a confirmed booking
# staying confirmed (the visitor's notice and limit are the visitor's: booking_answers.py).
OWNER_MOVES = reschedule.MoveRules(notice=dt.timedelta(0), max_moves=sys.maxsize, reconfirm=False)
_ACTIVE = (BookingStatus.PENDING, BookingStatus.CONFIRMED)
_YEARS = (2000, 2999)


class CalendarView(StrEnum):
    """How many days the calendar shows."""

    WEEK = "week"
    MONTH = "month"


class BookingAnswer(StrEnum):
    """What the owner does to a booking from the calendar (besides moving it)."""

    CONFIRM = "confirm"
    DECLINE = "decline"
    CANCEL = "cancel"
    ATTENDED = "attended"
    NO_SHOW = "no_show"


# --- The period shown -----------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    """The days a calendar page shows: a week (Monday to Sunday) or a month."""

    view: CalendarView
    first: dt.date
    last: dt.date

    @property
    def days(self) -> list[dt.date]:
        return [self.first + dt.timedelta(days=n) for n in range((self.last - self.first).days + 1)]

    @property
    def previous(self) -> dt.date:
        if self.view is CalendarView.WEEK:
            return self.first - dt.timedelta(days=7)
        return (self.first - dt.timedelta(days=1)).replace(day=1)

    @property
    def following(self) -> dt.date:
        return self.last + dt.timedelta(days=1)

    @property
    def grid(self) -> list[dt.date | None]:
        """The month's days in weeks from Monday (None: a day of another month)."""
        return [None] * self.first.weekday() + self.days + [None] * (6 - self.last.weekday())


def period(view: CalendarView, day: dt.date) -> Period:
    """The week (from Monday) or the month holding ``day``."""
    if view is CalendarView.WEEK:
        monday = day - dt.timedelta(days=day.weekday())
        return Period(view, monday, monday + dt.timedelta(days=6))
    first = day.replace(day=1)
    following = (first + dt.timedelta(days=32)).replace(day=1)
    return Period(view, first, following - dt.timedelta(days=1))


def parse_day(value: str | None, default: dt.date) -> dt.date:
    """A ``YYYY-MM-DD`` of a URL or a form, else ``default``."""
    try:
        day = dt.date.fromisoformat((value or "")[:10])
    except ValueError:
        return default
    return day if _YEARS[0] <= day.year <= _YEARS[1] else default


def parse_view(value: str | None) -> CalendarView:
    return CalendarView(value) if value in set(CalendarView) else CalendarView.WEEK


def calendar_url(view: CalendarView, day: dt.date, **more: Any) -> str:
    """The calendar page of ``view`` holding ``day`` (and ``more`` of the query)."""
    return paths.DESK_BOOKINGS + query_string({"view": str(view), "date": day.isoformat(), **more})


# --- What a day holds ----------------------------------------------------------------------


@dataclass(frozen=True)
class CalendarEntry:
    """A booking as the calendar shows it, and what the owner may do to it now."""

    lead_id: int
    name: str
    email: str
    phone: str
    date: dt.date
    time: str
    state: BookingStatus
    slot_lost: bool
    attendance: str | None
    sequence: int
    requested_at: dt.datetime
    started: bool  # Its meeting has started.
    overdue: bool  # Pending past its answer's due time (``slots.answer_due``).
    waited: dt.timedelta  # Since it was requested.
    answers: tuple[BookingAnswer, ...]
    movable: bool

    @property
    def waited_hours(self) -> int:
        return int(self.waited.total_seconds() // 3600)

    @property
    def waited_minutes(self) -> int:
        return int(self.waited.total_seconds() // 60)


def answers_of(booking: Booking, now: dt.datetime) -> tuple[BookingAnswer, ...]:
    """The answers a booking takes at ``now``: a pending one is confirmed or declined (or
    cancelled at the person's request) before its meeting, declined after; a confirmed one
    declined or cancelled before, marked attended or not once its meeting has started."""
    state = BookingStatus(booking.state)
    started = slots.slot_start(booking.date, booking.time) <= now
    if state is BookingStatus.PENDING:
        if started:
            return (BookingAnswer.DECLINE,)
        return (BookingAnswer.CONFIRM, BookingAnswer.DECLINE, BookingAnswer.CANCEL)
    if state is BookingStatus.CONFIRMED:
        if not started:
            return (BookingAnswer.DECLINE, BookingAnswer.CANCEL)
        if booking.attendance is None:
            return (BookingAnswer.ATTENDED, BookingAnswer.NO_SHOW)
    return ()


def movable(booking: Booking, now: dt.datetime) -> bool:
    """Whether the owner may move it: pending or confirmed, its meeting not started."""
    return BookingStatus(booking.state).active and OWNER_MOVES.refusal(booking, now) is None


def _utc(moment: dt.datetime) -> dt.datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _text(fields: Mapping[str, Any], name: str) -> str:
    value = fields.get(name) if isinstance(fields, Mapping) else None
    return value if isinstance(value, str) else ""


def entry(
    booking: Booking, fields: Mapping[str, Any], now: dt.datetime, calendar: WorkingCalendar
) -> CalendarEntry:
    requested = _utc(booking.created_at)
    state = BookingStatus(booking.state)
    return CalendarEntry(
        lead_id=booking.lead_id,
        name=_text(fields, "name"),
        email=_text(fields, "email"),
        phone=_text(fields, "phone"),
        date=booking.date,
        time=booking.time,
        state=state,
        slot_lost=booking.slot_lost,
        attendance=booking.attendance,
        sequence=booking.sequence,
        requested_at=requested,
        started=slots.slot_start(booking.date, booking.time) <= now,
        overdue=state is BookingStatus.PENDING and slots.answer_due(requested, calendar) <= now,
        waited=max(now - requested, dt.timedelta(0)),
        answers=answers_of(booking, now),
        movable=movable(booking, now),
    )


def booked(
    engine: sa.Engine, *where: Any, oldest_first: bool = False, limit: int | None = None
) -> list[tuple[Booking, Any]]:
    """Pending and confirmed bookings (``where``) with their leads' fields, in time order
    (``oldest_first``: of their requests)."""
    order = (Booking.created_at, Booking.lead_id) if oldest_first else (Booking.date, Booking.time)
    query = (
        select(Booking, Lead.fields)
        .join(Lead, col(Lead.id) == col(Booking.lead_id))
        .where(col(Booking.state).in_(_ACTIVE), *where)
        .order_by(*(col(column) for column in order))
        .limit(limit)
    )
    with Session(engine, expire_on_commit=False) as session:
        return list(session.exec(query).all())


@dataclass(frozen=True)
class CalendarDay:
    """One day of the calendar: its bookings, the owner's busy stretches (``HH:MM``, the
    agency's clock; ``24:00``: past midnight) and its slots still open."""

    date: dt.date
    closure: Closure | None
    bookings: list[CalendarEntry]
    busy: list[tuple[str, str]]
    free: tuple[str, ...]
    full: bool
    today: bool


def _clock(moment: dt.datetime) -> str:
    return moment.astimezone(AGENCY_ZONE).strftime("%H:%M")


def busy_on(busy: BusyTimes, day: dt.date) -> list[tuple[str, str]]:
    """The owner's busy stretches of ``day`` (its part of each interval)."""
    start = dt.datetime.combine(day, dt.time(), AGENCY_ZONE)
    end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), AGENCY_ZONE)
    stretches = []
    for interval in busy.intervals:
        if interval.start < end and interval.end > start:
            begins = _clock(max(interval.start, start))
            ends = _clock(interval.end) if interval.end < end else "24:00"
            stretches.append((begins, ends))
    return stretches


def calendar_days(tools: BookingDesk, days: list[dt.date], now: dt.datetime) -> list[CalendarDay]:
    """``days`` as the calendar shows them (blocking: a thread's)."""
    busy = tools.busy()
    rows = booked(tools.engine, col(Booking.date) >= days[0], col(Booking.date) <= days[-1])
    by_day: dict[dt.date, list[CalendarEntry]] = {day: [] for day in days}
    for booking, fields in rows:
        by_day[booking.date].append(entry(booking, fields, now, tools.calendar))
    today = now.astimezone(AGENCY_ZONE).date()
    shown = []
    for day in days:
        found = availability.availability(
            tools.engine, day, now, tools.calendar, tools.daily_limit, busy
        )
        shown.append(
            CalendarDay(
                date=day,
                closure=tools.calendar.closure(day),
                bookings=by_day[day],
                busy=busy_on(busy, day),
                free=found.free,
                full=found.full,
                today=day == today,
            )
        )
    return shown


def waiting(tools: BookingDesk, now: dt.datetime) -> list[CalendarEntry]:
    """Every booking still waiting for an answer, the oldest request first."""
    pending = Booking.state == BookingStatus.PENDING
    rows = booked(tools.engine, pending, oldest_first=True, limit=WAITING_SHOWN)
    return [entry(booking, fields, now, tools.calendar) for booking, fields in rows]

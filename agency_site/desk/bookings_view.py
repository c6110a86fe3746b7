""" "Reservas" (``paths.DESK_BOOKINGS``): the bookings of a week or a month beside the owner's
busy times and each day's open slots, and each booking's answers, inline.

**What it shows.** ``?view=week|month&date=YYYY-MM-DD`` (the week or month holding that
date; the week of today by default), kept in the URL: each day with its requested
(pending) and confirmed bookings (the person, the slot, the state, ``slot_lost`` flagged,
a link to the lead's page), the stretches the owner's calendars are busy (the intervals
the booking form leaves out, ``BookingDesk.busy``: ``busy_feed``/``busy_times``) and the
slots still open (``slots.availability``: the working calendar's, not held, not busy, as the
form offers them). Above the calendar, every booking still waiting for an answer, the
oldest first, with how long it has waited and whether it is past its answer's due time
(``slots.answer_due``: one working day, the rule the owner's "unanswered" alert follows).

**What it does**, each a POST form that works without JavaScript, answered with a redirect
back to the calendar saying what happened (``BookingOutcome``, its words in
``_words.html``), and a line of the audit log when something changed:

- *Confirmar*, *Rechazar*, *Cancelar*: ``BookingDesk.answer``, the signed links' own path
  (``slots.decide``, the same e-mails to the visitor, and to the agency for a cancel),
  only for the booking as the page showed it (its ``sequence`` and state: a booking moved,
  answered or cancelled meanwhile is left alone and the page says so).
- *Mover* (its own page: the free slots of a week): ``slots.move`` in one step (the old
  slot freed and the new one claimed together; a slot taken meanwhile is refused, pick
  another), under the **owner's** rules (``OWNER_MOVES``): the visitor's notice
  (``BOOKING_CHANGE_NOTICE_HOURS``) and move limit (``BOOKING_MAX_RESCHEDULES``) protect the
  agency from a visitor's late or repeated changes, and are not the agency's: the owner may
  move any booking until its meeting starts, as often as needed, and the owner's moves do
  not use up the visitor's (``counted=False``). The new slot is one the form would offer
  (the working calendar's, with its minimum notice, not held, not busy). A confirmed
  booking stays confirmed; a pending one moved by the owner is confirmed at its new time
  (the owner chose it). The visitor is e-mailed as for a move by link
  (``BookingDesk.tell_move``: the updated calendar file; retried by the monitor until
  accepted); the agency, who made the move, is not.
- *Vino* / *No vino*: ``slots.mark_attendance``, only for a confirmed booking whose meeting
  has started.
"""

import asyncio
import datetime as dt
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from agency_site import paths
from agency_site.bookings import slots
from agency_site.bookings.busy_times import BusyTimes
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import LinkAction
from agency_site.bookings.models import Attendance, Booking, BookingStatus
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import (
    AGENCY_ZONE,
    desk_of,
    form_body,
    query_string,
    record,
    render,
)
from agency_site.leads.models import Lead
from agency_site.leads.store import LeadStore
from agency_site.rules import TIME_SLOTS
from agency_site.working_calendar import Closure, WorkingCalendar

# How many bookings waiting for an answer the page lists (the oldest first).
WAITING_SHOWN = 100
# The owner's moves: until the meeting starts, as often as needed, a confirmed booking
# staying confirmed (the visitor's notice and limit are the visitor's: module doc).
OWNER_MOVES = slots.MoveRules(notice=dt.timedelta(0), max_moves=sys.maxsize, reconfirm=False)
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


class BookingOutcome(StrEnum):
    """What the page says after a form (``_words.html``'s ``BOOKING_OUTCOMES``)."""

    CONFIRMED = "confirmed"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    MOVED = "moved"
    MOVED_CONFIRMED = "moved_confirmed"  # A pending booking moved by the owner: confirmed.
    ATTENDED = "attended"
    NO_SHOW = "no_show"
    SLOT_TAKEN = "slot_taken"  # The slot is held by another booking now (or the day full).
    CHANGED = "changed"  # The booking changed since the page showed it: nothing done.
    NOT_STARTED = "not_started"  # Attendance before the meeting started.
    STARTED = "started"  # A move once the meeting started.
    NOT_OPEN = "not_open"  # Not a slot the form would offer (closed day, too soon...).
    SAME = "same"  # The slot it already holds.
    UNKNOWN = "unknown"  # No such booking (never, or erased).


DONE = {
    BookingAnswer.CONFIRM: (BookingOutcome.CONFIRMED, AuditAction.BOOKING_CONFIRMED),
    BookingAnswer.DECLINE: (BookingOutcome.DECLINED, AuditAction.BOOKING_DECLINED),
    BookingAnswer.CANCEL: (BookingOutcome.CANCELLED, AuditAction.BOOKING_CANCELLED),
    BookingAnswer.ATTENDED: (BookingOutcome.ATTENDED, AuditAction.BOOKING_ATTENDED),
    BookingAnswer.NO_SHOW: (BookingOutcome.NO_SHOW, AuditAction.BOOKING_NO_SHOW),
}
ATTENDANCE = {
    BookingAnswer.ATTENDED: Attendance.ATTENDED,
    BookingAnswer.NO_SHOW: Attendance.NO_SHOW,
}
# The e-mail answers, as the signed links name them.
LINKS = {
    BookingAnswer.CONFIRM: LinkAction.CONFIRM,
    BookingAnswer.DECLINE: LinkAction.DECLINE,
    BookingAnswer.CANCEL: LinkAction.CANCEL,
}


def booking_desk(request: Request) -> BookingDesk:
    """The booking desk the screen answers through: the signed links' own
    (``bookings.runtime.desk``, ``Desk.booking_desk``: ``desk/runtime.py``), or a test's."""
    wired = desk_of(request).booking_desk
    if wired is None:
        raise RuntimeError("Desk.booking_desk is not wired (desk/runtime.py)")
    return wired()


def today_of(request: Request) -> dt.date:
    """Today in the agency's time zone, by the desk's clock."""
    return desk_of(request).clock().astimezone(AGENCY_ZONE).date()


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


def _booked(
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
    rows = _booked(tools.engine, col(Booking.date) >= days[0], col(Booking.date) <= days[-1])
    by_day: dict[dt.date, list[CalendarEntry]] = {day: [] for day in days}
    for booking, fields in rows:
        by_day[booking.date].append(entry(booking, fields, now, tools.calendar))
    today = now.astimezone(AGENCY_ZONE).date()
    shown = []
    for day in days:
        found = slots.availability(tools.engine, day, now, tools.calendar, tools.daily_limit, busy)
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
    rows = _booked(tools.engine, pending, oldest_first=True, limit=WAITING_SHOWN)
    return [entry(booking, fields, now, tools.calendar) for booking, fields in rows]


# --- The pages ------------------------------------------------------------------------------


async def calendar_page(request: Request) -> Response:
    tools, now = booking_desk(request), desk_of(request).clock()
    params = request.query_params
    view = parse_view(params.get("view"))
    shown = period(view, parse_day(params.get("date"), today_of(request)))
    days = await asyncio.to_thread(calendar_days, tools, shown.days, now)
    pending = await asyncio.to_thread(waiting, tools, now)
    outcome = params.get("outcome")
    return render(
        request,
        "bookings.html",
        current="bookings",
        view=view,
        period=shown,
        days={day.date: day for day in days},
        waiting=pending,
        outcome=outcome if outcome in set(BookingOutcome) else None,
        told=params.get("told") == "1",
        about=int(params["booking"]) if params.get("booking", "").isdigit() else None,
        here=calendar_url(view, shown.first),
        calendar_url=calendar_url,
        views=list(CalendarView),
        today=today_of(request),
        now=now,
    )


async def move_page(request: Request) -> Response:
    """The free slots of a week to move a booking to (one button each)."""
    tools, desk = booking_desk(request), desk_of(request)
    now, lead_id = desk.clock(), request.path_params["lead_id"]
    found = await asyncio.to_thread(_booked, tools.engine, Booking.lead_id == lead_id)
    if not found:
        return render(request, "not_found.html", 404)
    booking, fields = found[0]
    params = request.query_params
    today = today_of(request)
    week = period(CalendarView.WEEK, max(parse_day(params.get("date"), today), today))
    days = await asyncio.to_thread(calendar_days, tools, week.days, now)
    outcome = params.get("outcome")
    return render(
        request,
        "booking_move.html",
        current="bookings",
        booking=entry(booking, fields, now, tools.calendar),
        week=week,
        days=days,
        earlier=week.first > today,
        view=parse_view(params.get("view")),
        back_date=parse_day(params.get("back"), booking.date),
        outcome=outcome if outcome in set(BookingOutcome) else None,
        calendar_url=calendar_url,
    )


# --- The answers ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AsShown:
    """What a form says of the booking as its page showed it, and where to go back."""

    sequence: int | None
    state: str
    view: CalendarView
    date: dt.date

    @classmethod
    def of(cls, form: Mapping[str, Any], default: dt.date) -> "AsShown":
        sequence = str(form.get("v", ""))
        return cls(
            sequence=int(sequence) if sequence.isdigit() and len(sequence) < 10 else None,
            state=str(form.get("s", ""))[:20],
            view=parse_view(str(form.get("view", ""))),
            date=parse_day(str(form.get("date", "")), default),
        )

    def matches(self, booking: Booking) -> bool:
        return (self.sequence, self.state) == (booking.sequence, booking.state)


def _back(shown: AsShown, outcome: BookingOutcome, lead_id: int, told: bool = False) -> Response:
    more = {"outcome": str(outcome), "booking": lead_id, "told": "1" if told else ""}
    return RedirectResponse(calendar_url(shown.view, shown.date, **more), status_code=303)


async def answer(request: Request) -> Response:
    """Confirm, decline, cancel, attended, no-show: once, for the booking as it was shown."""
    tools, desk = booking_desk(request), desk_of(request)
    lead_id, now = request.path_params["lead_id"], desk.clock()
    shown = AsShown.of(await form_body(request), today_of(request))
    try:
        action = BookingAnswer(request.path_params["action"])
    except ValueError:
        return render(request, "not_found.html", 404)
    booking = await asyncio.to_thread(slots.get, tools.engine, lead_id)
    if booking is None:
        return _back(shown, BookingOutcome.UNKNOWN, lead_id)
    if not shown.matches(booking):
        return _back(shown, BookingOutcome.CHANGED, lead_id)
    if action not in answers_of(booking, now):
        started = slots.slot_start(booking.date, booking.time) <= now
        early = action in ATTENDANCE and not started
        return _back(
            shown, BookingOutcome.NOT_STARTED if early else BookingOutcome.CHANGED, lead_id
        )
    told = False
    if outcome := ATTENDANCE.get(action):
        mark = partial(slots.mark_attendance, tools.engine, lead_id, outcome, None, now)
        decision, _ = await asyncio.to_thread(mark)
    else:
        decision, _, told = await tools.answer(lead_id, LINKS[action], version=booking.sequence)
    if decision is slots.Decision.DONE:
        done, audited = DONE[action]
        await record(request, audited, lead_id=lead_id)
        return _back(shown, done, lead_id, told)
    if decision is slots.Decision.SLOT_TAKEN:
        return _back(shown, BookingOutcome.SLOT_TAKEN, lead_id)
    if decision is slots.Decision.UNKNOWN:
        return _back(shown, BookingOutcome.UNKNOWN, lead_id)
    return _back(shown, BookingOutcome.CHANGED, lead_id)


MOVE_REFUSED = {
    slots.Moved.SLOT_TAKEN: BookingOutcome.SLOT_TAKEN,
    slots.Moved.NOT_OPEN: BookingOutcome.NOT_OPEN,
    slots.Moved.SAME: BookingOutcome.SAME,
}


def _move_again(lead_id: int, shown: AsShown, outcome: BookingOutcome, day: dt.date) -> Response:
    """The move page again (the week of the slot asked for), saying why not."""
    query = {"date": day.isoformat(), "view": str(shown.view), "back": shown.date.isoformat()}
    url = f"{paths.DESK_BOOKINGS}/{lead_id}/move" + query_string(query | {"outcome": outcome})
    return RedirectResponse(url, status_code=303)


async def move(request: Request) -> Response:
    """Move a booking to a free slot, in one step, under the owner's rules (module doc)."""
    tools, desk = booking_desk(request), desk_of(request)
    lead_id, now = request.path_params["lead_id"], desk.clock()
    form = await form_body(request)
    shown = AsShown.of(form, today_of(request))
    booking = await asyncio.to_thread(slots.get, tools.engine, lead_id)
    if booking is None:
        return _back(shown, BookingOutcome.UNKNOWN, lead_id)
    if not shown.matches(booking) or not BookingStatus(booking.state).active:
        return _back(shown, BookingOutcome.CHANGED, lead_id)
    day, time = parse_day(str(form.get("to_date", "")), booking.date), str(form.get("to_time"))
    if time not in TIME_SLOTS:
        return _move_again(lead_id, shown, BookingOutcome.NOT_OPEN, day)
    moved, after = await asyncio.to_thread(
        partial(
            slots.move,
            tools.engine,
            lead_id,
            day,
            time,
            version=booking.sequence,
            now=now,
            rules=OWNER_MOVES,
            calendar=tools.calendar,
            daily_limit=tools.daily_limit,
            busy=tools.busy(),
            counted=False,
        )
    )
    if moved in MOVE_REFUSED:
        return _move_again(lead_id, shown, MOVE_REFUSED[moved], day)
    if moved is slots.MoveRefused.TOO_LATE:
        return _back(shown, BookingOutcome.STARTED, lead_id)
    if moved is not slots.Moved.DONE or after is None:
        gone = moved is slots.Moved.UNKNOWN
        return _back(shown, BookingOutcome.UNKNOWN if gone else BookingOutcome.CHANGED, lead_id)
    await record(request, AuditAction.BOOKING_MOVED, lead_id=lead_id)
    confirmed = await asyncio.to_thread(_settled, tools.engine, after)
    if confirmed:
        await record(request, AuditAction.BOOKING_CONFIRMED, lead_id=lead_id)
    told = await _tell_moved(tools, lead_id)
    done = BookingOutcome.MOVED_CONFIRMED if confirmed else BookingOutcome.MOVED
    return _back(AsShown(None, "", shown.view, day), done, lead_id, told)


def _settled(engine: sa.Engine, moved: Booking) -> bool:
    """After the owner's move: the agency made it (its own e-mail of it is not sent), and a
    pending booking is confirmed at its new time; whether it was."""
    slots.mark_move_told(engine, moved.lead_id, moved.sequence, agency=True)
    if moved.state != BookingStatus.PENDING:
        return False
    decision, _ = slots.decide(
        engine, moved.lead_id, BookingStatus.CONFIRMED, version=moved.sequence
    )
    return decision is slots.Decision.DONE


async def _tell_moved(tools: BookingDesk, lead_id: int) -> bool:
    """E-mail the visitor the booking's new time (``tell_move``); whether it was taken."""
    booking = await asyncio.to_thread(slots.get, tools.engine, lead_id)
    lead = await asyncio.to_thread(LeadStore(tools.engine).get, lead_id)
    if booking is None or lead is None or not BookingStatus(booking.state).active:
        return False
    return await tools.tell_move(booking, lead)


ROUTES = [
    Route(paths.DESK_BOOKINGS, calendar_page, methods=["GET"], name="bookings"),
    Route(
        f"{paths.DESK_BOOKINGS}/{{lead_id:int}}/move",
        move_page,
        methods=["GET"],
        name="booking_move_page",
    ),
    Route(
        f"{paths.DESK_BOOKINGS}/{{lead_id:int}}/move", move, methods=["POST"], name="booking_move"
    ),
    Route(
        f"{paths.DESK_BOOKINGS}/{{lead_id:int}}/{{action}}",
        answer,
        methods=["POST"],
        name="booking_answer",
    ),
]

"""The bookings calendar's answers, each a POST form that works without JavaScript,
answered with a redirect back to the calendar saying what happened (``BookingOutcome``, its
words in ``_words.html``), and a line of the audit log when something changed:

- *Confirmar*, *Rechazar*, *Cancelar*: ``BookingDesk.answer``, the signed links' own path
  (``slots.decide``, the same e-mails to the visitor, and to the agency for a cancel),
  only for the booking as the page showed it (its ``sequence`` and state: a booking moved,
  answered or cancelled meanwhile is left alone and the page says so).
- *Mover* (its own page: the free slots of a week): ``reschedule.move`` in one step (the old
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
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from typing import Any

import sqlalchemy as sa
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from agency_site import paths
from agency_site.bookings import reschedule, slots
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import LinkAction
from agency_site.bookings.models import Attendance, Booking, BookingStatus
from agency_site.desk.audit import AuditAction
from agency_site.desk.booking_calendar import (
    OWNER_MOVES,
    BookingAnswer,
    CalendarView,
    answers_of,
    calendar_url,
    parse_day,
    parse_view,
)
from agency_site.desk.guard import AGENCY_ZONE, desk_of, form_body, query_string, record, render
from agency_site.leads.store import LeadStore
from agency_site.rules import TIME_SLOTS


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
    reschedule.Moved.SLOT_TAKEN: BookingOutcome.SLOT_TAKEN,
    reschedule.Moved.NOT_OPEN: BookingOutcome.NOT_OPEN,
    reschedule.Moved.SAME: BookingOutcome.SAME,
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
            reschedule.move,
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
    if moved is reschedule.MoveRefused.TOO_LATE:
        return _back(shown, BookingOutcome.STARTED, lead_id)
    if moved is not reschedule.Moved.DONE or after is None:
        gone = moved is reschedule.Moved.UNKNOWN
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
    reschedule.mark_move_told(engine, moved.lead_id, moved.sequence, agency=True)
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

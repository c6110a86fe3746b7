"""The visitor's manage page (their ``cancel`` link): the booking, a form to move it (the
next free slots, the booking form's date and time controls) and the cancel button; and the
move form's ``POST`` (``reschedule.move``, once per version the form was drawn for).
"""

import asyncio
import datetime as dt
from dataclasses import dataclass, field
from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from agency_site import locale, paths
from agency_site.bookings import availability, mails, reschedule, slots
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.link_page import (
    PRIVATE,
    button,
    posted,
    problem_page,
    resolve,
    summary,
    why_not,
)
from agency_site.bookings.links import LinkAction
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.content.bookings import COPY
from agency_site.content.template import render
from agency_site.forms.declarations import BY_KIND
from agency_site.forms.email import date_es
from agency_site.forms.field_markup import field_markup
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead
from agency_site.web_base.plain_page import alternatives_notice, field_html, page
from agency_site.working_calendar import agency_now, one_year_after

MOVE = paths.booking_link("move")
# The days whose free slots the manage page lists before its controls.
_FREE_DAYS = 5
# The booking form's date and time controls, drawn the same way on the manage page.
_BOOKING = BY_KIND[LeadKind.BOOKING]
_DATE, _TIME = _BOOKING.field("date"), _BOOKING.field("time")


@dataclass(frozen=True)
class MoveForm:
    """What the move form shows besides the booking: the slot asked for, and why it was not
    taken (next to the date or the time)."""

    date: str = ""
    time: str = ""
    errors: dict[str, str] = field(default_factory=dict)


def _slots_in_words(found: list[tuple[dt.date, str]]) -> str:
    return COPY.slots.nearest_joiner.join(
        render(COPY.slots.slot_in_words, time=slot, date_es=date_es(day.isoformat()))
        for day, slot in found
    )


def _free_day(day: dt.date, free: list[str]) -> str:
    times = COPY.slots.nearest_joiner.join(free)
    return render(COPY.manage.free_day, date_es=date_es(day.isoformat()), times=times)


def _hours(notice: dt.timedelta) -> str:
    hours = notice.total_seconds() / 3600
    return f"{hours:g}"


async def _move_part(desk: BookingDesk, token: str, booking: Booking, asked: MoveForm) -> str:
    """The move form (the next free slots, a date and a time, the booking's version), or,
    when the booking cannot be moved now, the agency's phone, WhatsApp and e-mail."""
    now = agency_now()
    refused = desk.moves.refusal(booking, now)
    if refused is reschedule.MoveRefused.TOO_LATE:
        return alternatives_notice(render(COPY.manage.too_late, hours=_hours(desk.moves.notice)))
    if refused is reschedule.MoveRefused.TOO_MANY:
        return alternatives_notice(COPY.manage.too_many)
    today = now.date()
    days = await asyncio.to_thread(
        availability.free_by_day,
        desk.engine,
        today,
        now,
        desk.calendar,
        desk.daily_limit,
        desk.busy(),
    )
    items = "".join(f"<li>{escape(_free_day(day, free))}</li>" for day, free in days[:_FREE_DAYS])
    intro = f"<p>{escape(COPY.manage.next_free)}</p><ul>{items}</ul>" if items else ""
    limits = {"min": today.isoformat(), "max": one_year_after(today).isoformat()}
    date = field_html(
        field_markup(_BOOKING, _DATE), asked.date, asked.errors.get("date", ""), limits
    )
    time = field_html(field_markup(_BOOKING, _TIME), asked.time, asked.errors.get("time", ""))
    return (
        f'{intro}<form method="post" action="{escape(MOVE, quote=True)}" id="booking-move-form">'
        f'<input type="hidden" name="t" value="{escape(token, quote=True)}">'
        f'<input type="hidden" name="v" value="{booking.sequence}">{date}{time}'
        f'<button type="submit">{escape(COPY.manage.button)}</button></form>'
    )


async def manage_page(
    desk: BookingDesk,
    token: str,
    booking: Booking,
    lead: Lead,
    asked: MoveForm = MoveForm(),
    note: str = "",
    status: int = 200,
) -> HTMLResponse:
    """The visitor's page: their booking, a move form (or how to reach the agency), the
    cancel button; ``note`` above them."""
    words = COPY.manage
    body = summary(booking, lead)
    if note:
        body += f'<p class="box note" role="status">{escape(note)}</p>'
    move = await _move_part(desk, token, booking, asked)
    body += f"<h2>{escape(words.move_title)}</h2>{move}"
    body += f"<h2>{escape(words.cancel_title)}</h2>{button(LinkAction.CANCEL, token)}"
    return HTMLResponse(page(words.title, body, desk.home()), status, headers=PRIVATE)


async def post_move(desk: BookingDesk, request: Request, body_timeout_s: float) -> Response:
    """POST of the manage page's move form (the visitor's link, the booking's version, a
    date and a time): the move, once, and the booking as it then is."""
    sent = await posted(request, body_timeout_s)
    token = sent.get("t", "")
    resolved = await resolve(desk, LinkAction.CANCEL, token)
    if isinstance(resolved, Response):
        return resolved
    link, _, lead = resolved
    asked = MoveForm(date=sent.get("date", "")[:10], time=sent.get("time", "")[:5])
    with locale.active(lead.language):
        try:
            date, version = dt.date.fromisoformat(asked.date), int(sent.get("v", ""))
        except ValueError:
            return await _moved_page(desk, token, lead, reschedule.Moved.NOT_OPEN, asked)
        outcome, booking, told = await desk.move(
            link.lead_id, date, asked.time, version, agency_now()
        )
        if booking is None:
            return problem_page(desk, COPY.problems.unknown, 404)
        if outcome is reschedule.Moved.DONE:
            return _moved_done(desk, token, booking, lead, told)
        return await _moved_page(desk, token, lead, outcome, asked, booking)


async def _moved_page(
    desk: BookingDesk,
    token: str,
    lead: Lead,
    outcome: reschedule.Moved | reschedule.MoveRefused,
    asked: MoveForm,
    booking: Booking | None = None,
) -> HTMLResponse:
    """The manage page again after a move that did not happen, saying why."""
    booking = booking or await asyncio.to_thread(slots.get, desk.engine, lead.id or 0)
    if booking is None:
        return problem_page(desk, COPY.problems.unknown, 404)
    if outcome is reschedule.Moved.NOT_ALLOWED:
        return why_not(desk, LinkAction.CANCEL, booking) or problem_page(
            desk, COPY.problems.unknown, 404
        )
    if outcome is reschedule.Moved.STALE:
        return await manage_page(desk, token, booking, lead, note=COPY.manage.stale, status=409)
    if isinstance(outcome, reschedule.MoveRefused):  # The page now offers the phone instead.
        return await manage_page(desk, token, booking, lead, status=409)
    errors = {"date": COPY.manage.not_open}
    if outcome is reschedule.Moved.SAME:
        errors = {"time": COPY.manage.same}
    elif outcome is reschedule.Moved.SLOT_TAKEN:
        errors = {"time": await _taken_words(desk, asked)}
    retry = MoveForm(asked.date, asked.time, errors)
    status = 409 if outcome is reschedule.Moved.SLOT_TAKEN else 400
    return await manage_page(desk, token, booking, lead, retry, status=status)


async def _taken_words(desk: BookingDesk, asked: MoveForm) -> str:
    """Why the slot asked for is not free, with the nearest free ones (as the form says)."""
    found = await asyncio.to_thread(
        availability.nearest_free,
        desk.engine,
        dt.date.fromisoformat(asked.date),
        asked.time,
        agency_now(),
        desk.calendar,
        desk.daily_limit,
        busy=desk.busy(),
    )
    if not found:
        return COPY.slots.taken_none
    return render(COPY.slots.taken, slots=_slots_in_words(found))


def _moved_done(
    desk: BookingDesk, token: str, booking: Booking, lead: Lead, told: bool
) -> HTMLResponse:
    """The booking at its new time: the updated calendar file (confirmed), and the same
    link to move or cancel again."""
    words = COPY.manage
    confirmed = booking.state == BookingStatus.CONFIRMED
    said = (words.done, words.sent if told else "", "" if confirmed else words.confirm_later)
    text = " ".join(part for part in said if part)
    links = ""
    if confirmed and desk.signer is not None:
        calendar = mails.link(desk.api_url, desk.signer, LinkAction.CALENDAR, booking)
        links += f'<p><a href="{escape(calendar, quote=True)}">{escape(words.calendar)}</a></p>'
    again = f"{paths.booking_link(str(LinkAction.CANCEL))}?t={token}"
    links += f'<p><a href="{escape(again, quote=True)}">{escape(words.again)}</a></p>'
    body = f'<p class="box ok" role="status">{escape(text)}</p>' + summary(booking, lead) + links
    return HTMLResponse(page(words.title, body, desk.home()), headers=PRIVATE)

"""The pages the booking links open, the calendar file, and the day's free slots.

- ``GET /_site/bookings/<confirm|decline|cancel>?t=<token>`` shows the booking and a
  button; only the button's ``POST`` acts, because link scanners and previews follow
  links (a GET never changes anything). No script; ``noindex``; the site's security
  headers (``server.py``) like every backend answer.
- The visitor's link (``cancel``) opens their manage page: the booking, a form to move it
  (the next free slots, the booking form's date and time controls) and the cancel button.
  ``POST /_site/bookings/move`` (the link, the booking's ``sequence`` as shown, a date and
  a time) moves it once (``reschedule.move``): the form carries the version it was drawn for,
  so the same form sent again (a double click, a reload, a replay) finds the booking at a
  later version and changes nothing, while the link itself stays the visitor's to move or
  cancel again. Inside ``BOOKING_CHANGE_NOTICE_HOURS``, or after
  ``BOOKING_MAX_RESCHEDULES`` moves, the page offers the phone and WhatsApp instead.
- The owner's digest links ``attended`` and ``no_show`` (after a confirmed meeting): the
  same GET page and POST button; they record the outcome once (``slots.mark_attendance``).
- ``GET /_site/bookings/calendar?t=<token>``: the confirmed appointment as ``text/calendar``
  (its ``SEQUENCE`` one more per move, the same UID).
- ``GET /_site/bookings/free-slots?date=YYYY-MM-DD``: ``{"date", "free": [...], "taken":
  [...], "full"}``: the day's slots open and not held, those open ones held or the owner's
  calendar is busy for (busy ones within ``BOOKING_BUSY_SHOWN_DAYS`` only), and whether the
  day reached its limit; a date the form does not take (past, over a year ahead) is a
  400. The form hides the taken ones (its own calendar copy judges the rest).

An expired, tampered or replayed link, a booking that no longer exists or has passed,
gets a clear page (4xx), never an error. A link whose key is not its booking's (made for
an earlier booking that had the same id) says it is no longer valid and shows nothing of
the booking it names.
"""

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from html import escape
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from agency_site import locale, paths
from agency_site.bookings import availability, mails, reschedule, slots
from agency_site.bookings.busy_times import NOTHING_BUSY
from agency_site.bookings.calendar_file import ics
from agency_site.bookings.desk import ATTENDANCE, BookingDesk
from agency_site.bookings.links import LinkAction, LinkProblem, VerifiedLink
from agency_site.bookings.mails import appointment, starts_at
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.content.bookings import COPY
from agency_site.content.template import render
from agency_site.forms.declarations import BY_KIND
from agency_site.forms.email import date_es
from agency_site.forms.field_markup import field_markup
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead
from agency_site.web_base.plain_page import alternatives_notice, field_html, page
from agency_site.web_base.request_body import SlowBody, read_body
from agency_site.working_calendar import agency_now, one_year_after

# Every page a link opens: never cached, and its URL (the token) never sent as a Referer.
PRIVATE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
# The button's body: its token, and no more, in time (``request_body.read_body``).
_TOKEN_BODY_MAX = 2048
_BODY_TIMEOUT_S = 10.0


def _summary(booking: Booking, lead: Lead) -> str:
    """The booking (its day and time) and its lead's fields (``mails.booking_summary``)."""
    labels = COPY.labels
    rows = [
        (labels.date, date_es(booking.date.isoformat())),
        (labels.time, f"{booking.time} ({labels.time_zone})"),
        *mails.booking_summary(lead.fields),
    ]
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows if v)
    state = getattr(COPY.states, str(booking.state))
    lost = ""
    if booking.slot_lost and booking.state == BookingStatus.PENDING:
        lost = f'<p class="box" role="alert">{escape(mails.slot_lost_note(booking))}</p>'
    return f'<dl class="summary">{items}</dl><p>{escape(state.capitalize())}.</p>{lost}'


def _problem(desk: BookingDesk, title: str, status: int) -> HTMLResponse:
    body = alternatives_notice(COPY.problems.text)
    return HTMLResponse(page(title, body, desk.home()), status, headers=PRIVATE)


def _why_not(desk: BookingDesk, action: LinkAction, booking: Booking) -> HTMLResponse | None:
    """The page of a booking this action cannot change, or None when it can."""
    state = BookingStatus(booking.state)
    if action in ATTENDANCE:
        return _why_not_mark(desk, booking)
    if action is LinkAction.CANCEL and starts_at(booking) <= agency_now():
        return _problem(desk, COPY.problems.past, 410)
    if (action is LinkAction.CONFIRM and state is not BookingStatus.PENDING) or not state.active:
        words = getattr(COPY.states, str(state))
        return _problem(desk, render(COPY.problems.already, state=words), 409)
    return None


def _why_not_mark(desk: BookingDesk, booking: Booking) -> HTMLResponse | None:
    """The page of a booking whose attendance cannot be marked (not confirmed, not started
    yet, or marked already), or None when it can."""
    if booking.attendance:
        outcome = getattr(COPY.attendance, booking.attendance)
        return _problem(desk, render(COPY.problems.marked, outcome=outcome), 409)
    if booking.state != BookingStatus.CONFIRMED:
        words = getattr(COPY.states, str(booking.state))
        return _problem(desk, render(COPY.problems.already, state=words), 409)
    if starts_at(booking) > agency_now():
        return _problem(desk, COPY.problems.not_yet, 409)
    return None


def _link_problem(desk: BookingDesk, problem: LinkProblem) -> HTMLResponse:
    if problem is LinkProblem.EXPIRED:
        return _problem(desk, COPY.problems.expired, 410)
    if problem is LinkProblem.STALE:
        return _problem(desk, COPY.problems.stale, 410)
    return _problem(desk, COPY.problems.tampered, 400)


async def _resolve(
    desk: BookingDesk, action: LinkAction | None, token: str
) -> tuple[VerifiedLink, Booking, Lead] | Response:
    """The link and its booking and lead, or the page saying why not."""
    if action is None:
        return _problem(desk, COPY.problems.tampered, 404)
    link = desk.verify(action, token)
    if isinstance(link, LinkProblem):
        return _link_problem(desk, link)
    found = await asyncio.to_thread(desk.booking, link.lead_id)
    if found is None:
        return _problem(desk, COPY.problems.unknown, 404)
    if not link.opens(found[0].link_key):  # A link to an earlier booking with this id.
        return _link_problem(desk, LinkProblem.STALE)
    if action is not LinkAction.CALENDAR and (refusal := _why_not(desk, action, found[0])):
        return refusal
    return link, *found


async def _show(desk: BookingDesk, request: Request) -> Response:
    """GET: the booking and the button that acts; nothing changes."""
    action = _action(request)
    token = request.query_params.get("t", "")
    resolved = await _resolve(desk, action, token)
    if isinstance(resolved, Response):
        return resolved
    _, booking, lead = resolved
    with locale.active(page_language(action, lead)):
        if action is LinkAction.CANCEL:  # The visitor's link: their manage page.
            return await _manage_page(desk, token, booking, lead)
        return _show_page(desk, action, token, booking, lead)


# The links the visitor gets (their e-mails); confirm and decline are the agency's.
VISITOR_ACTIONS = frozenset({LinkAction.CANCEL, LinkAction.CALENDAR})


def page_language(action: LinkAction | None, lead: Lead) -> str:
    """The language of a booking page: the visitor's own pages (cancel, calendar file) in
    their language, the agency's (confirm, decline) in Spanish."""
    return lead.language if action in VISITOR_ACTIONS else locale.DEFAULT_LOCALE


def _button(action: LinkAction, token: str) -> str:
    """The form whose button applies ``action`` with the link ``token``."""
    return (
        f'<form method="post" action="{escape(paths.booking_link(str(action)), quote=True)}">'
        f'<input type="hidden" name="t" value="{escape(token, quote=True)}">'
        f'<button type="submit">{escape(getattr(COPY, str(action)).button)}</button></form>'
    )


def _show_page(
    desk: BookingDesk, action: LinkAction, token: str, booking: Booking, lead: Lead
) -> Response:
    html = page(
        getattr(COPY, str(action)).title,
        _summary(booking, lead) + _button(action, token),
        desk.home(),
    )
    return HTMLResponse(html, headers=PRIVATE)


# --- The visitor's manage page: move the booking, or cancel it --------------------------

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


async def _manage_page(
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
    body = _summary(booking, lead)
    if note:
        body += f'<p class="box note" role="status">{escape(note)}</p>'
    move = await _move_part(desk, token, booking, asked)
    body += f"<h2>{escape(words.move_title)}</h2>{move}"
    body += f"<h2>{escape(words.cancel_title)}</h2>{_button(LinkAction.CANCEL, token)}"
    return HTMLResponse(page(words.title, body, desk.home()), status, headers=PRIVATE)


async def _move(desk: BookingDesk, request: Request, body_timeout_s: float) -> Response:
    """POST of the manage page's move form (the visitor's link, the booking's version, a
    date and a time): the move, once, and the booking as it then is."""
    try:
        body = await read_body(request, _TOKEN_BODY_MAX, body_timeout_s) or b""
    except SlowBody:
        body = b""
    sent = dict(parse_qsl(body.decode("utf-8", errors="replace")))
    token = sent.get("t", "")
    resolved = await _resolve(desk, LinkAction.CANCEL, token)
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
            return _problem(desk, COPY.problems.unknown, 404)
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
        return _problem(desk, COPY.problems.unknown, 404)
    if outcome is reschedule.Moved.NOT_ALLOWED:
        return _why_not(desk, LinkAction.CANCEL, booking) or _problem(
            desk, COPY.problems.unknown, 404
        )
    if outcome is reschedule.Moved.STALE:
        return await _manage_page(desk, token, booking, lead, note=COPY.manage.stale, status=409)
    if isinstance(outcome, reschedule.MoveRefused):  # The page now offers the phone instead.
        return await _manage_page(desk, token, booking, lead, status=409)
    errors = {"date": COPY.manage.not_open}
    if outcome is reschedule.Moved.SAME:
        errors = {"time": COPY.manage.same}
    elif outcome is reschedule.Moved.SLOT_TAKEN:
        errors = {"time": await _taken_words(desk, asked)}
    retry = MoveForm(asked.date, asked.time, errors)
    status = 409 if outcome is reschedule.Moved.SLOT_TAKEN else 400
    return await _manage_page(desk, token, booking, lead, retry, status=status)


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
    body = f'<p class="box ok" role="status">{escape(text)}</p>' + _summary(booking, lead) + links
    return HTMLResponse(page(words.title, body, desk.home()), headers=PRIVATE)


async def _act(
    desk: BookingDesk, request: Request, body_timeout_s: float = _BODY_TIMEOUT_S
) -> Response:
    """POST (the button): the change, once, and what it did."""
    action = _action(request)
    try:
        body = await read_body(request, _TOKEN_BODY_MAX, body_timeout_s) or b""
    except SlowBody:
        body = b""  # No token: "this link is not valid".
    token = dict(parse_qsl(body.decode("utf-8", errors="replace"))).get("t", "")
    resolved = await _resolve(desk, action, token)
    if isinstance(resolved, Response):
        return resolved
    link, _, lead = resolved
    assert action is not None
    with locale.active(page_language(action, lead)):
        return await _act_page(desk, action, link, lead)


async def _act_page(
    desk: BookingDesk, action: LinkAction, link: VerifiedLink, lead: Lead
) -> Response:
    decision, booking, told = await desk.answer(link.lead_id, action, link.digest)
    if decision is slots.Decision.REPLAYED:
        return _problem(desk, COPY.problems.replayed, 409)
    if decision is slots.Decision.SLOT_TAKEN:
        return _problem(desk, COPY.problems.slot_taken, 409)
    if decision is not slots.Decision.DONE or booking is None:
        refusal = _why_not(desk, action, booking) if booking else None
        return refusal or _problem(desk, COPY.problems.unknown, 404)
    copy = getattr(COPY, str(action))
    after = ""
    if action in (LinkAction.CONFIRM, LinkAction.DECLINE):
        email = str(lead.fields.get("email", ""))
        after = COPY.notified if told else render(COPY.not_notified, email=email)
    text = f'<p class="box ok" role="status">{escape(copy.done)} {escape(after)}</p>'
    html = page(copy.title, _summary(booking, lead) + text, desk.home())
    return HTMLResponse(html, headers=PRIVATE)


async def _calendar_file(desk: BookingDesk, request: Request) -> Response:
    """The appointment as an .ics (cancelled: STATUS:CANCELLED)."""
    resolved = await _resolve(desk, LinkAction.CALENDAR, request.query_params.get("t", ""))
    if isinstance(resolved, Response):
        return resolved
    _, booking, lead = resolved
    cancelled = booking.state != BookingStatus.CONFIRMED
    with locale.active(lead.language):  # The visitor's calendar: their language.
        body = ics(appointment(booking, lead.fields), cancelled=cancelled)
    headers = {
        "Content-Disposition": f'attachment; filename="consulta-{booking.date.isoformat()}.ics"',
        "Cache-Control": "no-store",
    }
    return Response(body, media_type="text/calendar; charset=utf-8", headers=headers)


async def _free_slots(desk: BookingDesk, request: Request) -> Response:
    """A day's free and taken slots, for the form: of the days the form takes only (today
    to a year ahead, ``leads/validation.py``'s rule: any other date is a 400 at once, no
    database read), of their open slots only (a closed day, an hour already passed: nothing
    said), the owner's busy ones mixed with the held ones and only within
    ``desk.busy_shown_days``: a visitor learns no more of the owner's calendar than the
    form needs to hide the coming weeks' busy hours. Further ahead a busy slot is offered
    and refused when booked, with the nearest free ones."""
    no_store = {"Cache-Control": "no-store"}
    try:
        date = dt.date.fromisoformat(request.query_params.get("date", "")[:10])
    except ValueError:
        return JSONResponse({"error": "date"}, status_code=400, headers=no_store)
    now = agency_now()
    today = now.date()
    if not today <= date <= one_year_after(today):
        return JSONResponse({"error": "date"}, status_code=400, headers=no_store)
    shown = desk.busy_shown_days
    told = shown is None or date < today + dt.timedelta(days=shown)
    found = await asyncio.to_thread(
        availability.availability,
        desk.engine,
        date,
        now,
        desk.calendar,
        desk.daily_limit,
        desk.busy() if told else NOTHING_BUSY,
    )
    open_slots = desk.calendar.open_slots(date, now)
    answer = {
        "date": date.isoformat(),
        "free": list(found.free),
        "taken": [slot for slot in found.taken if slot in open_slots],
        "full": found.full and bool(open_slots),
    }
    return JSONResponse(answer, headers=no_store)


Handler = Callable[[BookingDesk, Request], Awaitable[Response]]


def create_app(
    get_desk: Callable[[], BookingDesk], body_timeout_s: float = _BODY_TIMEOUT_S
) -> Starlette:
    """The Starlette app of the booking endpoints (the desk is built on first use)."""

    def bound(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await handler(get_desk(), request)

        return endpoint

    return Starlette(
        routes=[
            Route(paths.FREE_SLOTS, bound(_free_slots), methods=["GET"]),
            Route(
                paths.booking_link(str(LinkAction.CALENDAR)), bound(_calendar_file), methods=["GET"]
            ),
            Route(MOVE, bound(partial(_move, body_timeout_s=body_timeout_s)), methods=["POST"]),
            Route(paths.booking_link("{action}"), bound(_show), methods=["GET"]),
            Route(
                paths.booking_link("{action}"),
                bound(partial(_act, body_timeout_s=body_timeout_s)),
                methods=["POST"],
            ),
        ]
    )


def _action(request: Request) -> LinkAction | None:
    try:
        action = LinkAction(request.path_params["action"])
    except ValueError:
        return None
    return None if action is LinkAction.CALENDAR else action

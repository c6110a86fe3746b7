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

This module routes them; what every link page shares (the summary, the problem pages, the
link resolved to its booking) is ``link_page.py``'s, the manage page ``manage_page.py``'s.
"""

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from functools import partial
from html import escape

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from agency_site import locale, paths
from agency_site.bookings import availability, slots
from agency_site.bookings.busy_times import NOTHING_BUSY
from agency_site.bookings.calendar_file import ics
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
from agency_site.bookings.links import LinkAction, VerifiedLink
from agency_site.bookings.mails import appointment
from agency_site.bookings.manage_page import MOVE, manage_page, post_move
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.content.bookings import COPY
from agency_site.content.template import render
from agency_site.leads.models import Lead
from agency_site.web_base.plain_page import page
from agency_site.working_calendar import agency_now, one_year_after

# How long a button's (or the move form's) body may take to arrive (``link_page.posted``).
_BODY_TIMEOUT_S = 10.0


async def _show(desk: BookingDesk, request: Request) -> Response:
    """GET: the booking and the button that acts; nothing changes."""
    action = _action(request)
    token = request.query_params.get("t", "")
    resolved = await resolve(desk, action, token)
    if isinstance(resolved, Response):
        return resolved
    _, booking, lead = resolved
    with locale.active(page_language(action, lead)):
        if action is LinkAction.CANCEL:  # The visitor's link: their manage page.
            return await manage_page(desk, token, booking, lead)
        return _show_page(desk, action, token, booking, lead)


# The links the visitor gets (their e-mails); confirm and decline are the agency's.
VISITOR_ACTIONS = frozenset({LinkAction.CANCEL, LinkAction.CALENDAR})


def page_language(action: LinkAction | None, lead: Lead) -> str:
    """The language of a booking page: the visitor's own pages (cancel, calendar file) in
    their language, the agency's (confirm, decline) in Spanish."""
    return lead.language if action in VISITOR_ACTIONS else locale.DEFAULT_LOCALE


def _show_page(
    desk: BookingDesk, action: LinkAction, token: str, booking: Booking, lead: Lead
) -> Response:
    html = page(
        getattr(COPY, str(action)).title,
        summary(booking, lead) + button(action, token),
        desk.home(),
    )
    return HTMLResponse(html, headers=PRIVATE)


async def _act(
    desk: BookingDesk, request: Request, body_timeout_s: float = _BODY_TIMEOUT_S
) -> Response:
    """POST (the button): the change, once, and what it did."""
    action = _action(request)
    token = (await posted(request, body_timeout_s)).get("t", "")
    resolved = await resolve(desk, action, token)
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
        return problem_page(desk, COPY.problems.replayed, 409)
    if decision is slots.Decision.SLOT_TAKEN:
        return problem_page(desk, COPY.problems.slot_taken, 409)
    if decision is not slots.Decision.DONE or booking is None:
        refusal = why_not(desk, action, booking) if booking else None
        return refusal or problem_page(desk, COPY.problems.unknown, 404)
    copy = getattr(COPY, str(action))
    after = ""
    if action in (LinkAction.CONFIRM, LinkAction.DECLINE):
        email = str(lead.fields.get("email", ""))
        after = COPY.notified if told else render(COPY.not_notified, email=email)
    text = f'<p class="box ok" role="status">{escape(copy.done)} {escape(after)}</p>'
    html = page(copy.title, summary(booking, lead) + text, desk.home())
    return HTMLResponse(html, headers=PRIVATE)


async def _calendar_file(desk: BookingDesk, request: Request) -> Response:
    """The appointment as an .ics (cancelled: STATUS:CANCELLED)."""
    resolved = await resolve(desk, LinkAction.CALENDAR, request.query_params.get("t", ""))
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
            Route(MOVE, bound(partial(post_move, body_timeout_s=body_timeout_s)), methods=["POST"]),
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

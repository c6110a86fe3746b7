"""The pages the booking links open, the calendar file, and the day's free slots.

- ``GET /_site/bookings/<confirm|decline|cancel>?t=<token>`` shows the booking and a
  button; only the button's ``POST`` acts, because link scanners and previews follow
  links (a GET never changes anything). No script; ``noindex``; the site's security
  headers (``server.py``) like every backend answer.
- ``GET /_site/bookings/calendar?t=<token>``: the confirmed appointment as ``text/calendar``.
- ``GET /_site/bookings/free-slots?date=YYYY-MM-DD``: ``{"date", "free": [...], "taken":
  [...], "full"}``: the day's slots open and not held, those held or the owner's calendar
  is busy for, and whether the day reached its limit. The form hides the taken ones (its
  own calendar copy judges the rest).

An expired, tampered or replayed link, a booking that no longer exists or has passed,
gets a clear page (4xx), never an error. A link whose key is not its booking's (made for
an earlier booking that had the same id) says it is no longer valid and shows nothing of
the booking it names.
"""

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from functools import partial
from html import escape
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from agency_site import locale, paths
from agency_site.bookings import slots
from agency_site.bookings.calendar_file import ics
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import LinkAction, LinkProblem, VerifiedLink
from agency_site.bookings.mails import appointment, starts_at
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.content.bookings import COPY
from agency_site.content.template import render
from agency_site.forms.email import date_es
from agency_site.leads.models import Lead
from agency_site.plain_page import alternatives_notice, page
from agency_site.request_body import SlowBody, read_body
from agency_site.working_calendar import agency_now

# Every page a link opens: never cached, and its URL (the token) never sent as a Referer.
PRIVATE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
# The button's body: its token, and no more, in time (``request_body.read_body``).
_TOKEN_BODY_MAX = 2048
_BODY_TIMEOUT_S = 10.0


def _summary(booking: Booking, lead: Lead) -> str:
    labels, fields = COPY.labels, lead.fields
    rows = [
        (labels.date, date_es(booking.date.isoformat())),
        (labels.time, f"{booking.time} ({labels.time_zone})"),
        (labels.name, str(fields.get("name", ""))),
        (labels.email, str(fields.get("email", ""))),
        (labels.phone, str(fields.get("phone", ""))),
        (labels.message, str(fields.get("message", ""))),
    ]
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows if v)
    state = getattr(COPY.states, str(booking.state))
    lost = ""
    if booking.slot_lost and booking.state == BookingStatus.PENDING:
        words = {"date_es": date_es(booking.date.isoformat()), "time": booking.time}
        lost = f'<p class="box" role="alert">{escape(render(COPY.slot_lost, **words))}</p>'
    return f'<dl class="summary">{items}</dl><p>{escape(state.capitalize())}.</p>{lost}'


def _problem(desk: BookingDesk, title: str, status: int) -> HTMLResponse:
    body = alternatives_notice(COPY.problems.text)
    return HTMLResponse(page(title, body, desk.home()), status, headers=PRIVATE)


def _why_not(desk: BookingDesk, action: LinkAction, booking: Booking) -> HTMLResponse | None:
    """The page of a booking this action cannot change, or None when it can."""
    state = BookingStatus(booking.state)
    if action is LinkAction.CANCEL and starts_at(booking) <= agency_now():
        return _problem(desk, COPY.problems.past, 410)
    if (action is LinkAction.CONFIRM and state is not BookingStatus.PENDING) or not state.active:
        words = getattr(COPY.states, str(state))
        return _problem(desk, render(COPY.problems.already, state=words), 409)
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
    copy = getattr(COPY, str(action))
    form = (
        f'<form method="post" action="{escape(paths.booking_link(str(action)), quote=True)}">'
        f'<input type="hidden" name="t" value="{escape(token, quote=True)}">'
        f'<button type="submit">{escape(copy.button)}</button></form>'
    )
    html = page(copy.title, _summary(booking, lead) + form, desk.home())
    return HTMLResponse(html, headers=PRIVATE)


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
    if action is not LinkAction.CANCEL:
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
    """A day's free and taken slots, for the form."""
    try:
        date = dt.date.fromisoformat(request.query_params.get("date", "")[:10])
    except ValueError:
        return JSONResponse({"error": "date"}, status_code=400)
    found = await asyncio.to_thread(
        slots.availability,
        desk.engine,
        date,
        agency_now(),
        desk.calendar,
        desk.daily_limit,
        desk.busy(),
    )
    answer = {
        "date": date.isoformat(),
        "free": list(found.free),
        "taken": list(found.taken),
        "full": found.full,
    }
    return JSONResponse(answer, headers={"Cache-Control": "no-store"})


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

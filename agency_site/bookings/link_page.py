"""What every page a booking link opens shares: the booking's summary, the page saying why a
link cannot act (expired, tampered, replayed, a booking gone, passed or already answered),
the link resolved to its booking and lead, the button that acts and the form's posted body.
The pages themselves are ``pages.py``'s (the visitor's manage page: ``manage_page.py``).
"""

import asyncio
from html import escape
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from agency_site import paths
from agency_site.bookings import mails
from agency_site.bookings.desk import ATTENDANCE, BookingDesk
from agency_site.bookings.links import LinkAction, LinkProblem, VerifiedLink
from agency_site.bookings.mails import starts_at
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.content.bookings import COPY
from agency_site.content.template import render
from agency_site.forms.email import date_es
from agency_site.leads.models import Lead
from agency_site.web_base.plain_page import alternatives_notice, page
from agency_site.web_base.request_body import SlowBody, read_body
from agency_site.working_calendar import agency_now

# Every page a link opens: never cached, and its URL (the token) never sent as a Referer.
PRIVATE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
# The button's body: its token, and no more, in time (``request_body.read_body``).
_TOKEN_BODY_MAX = 2048


def summary(booking: Booking, lead: Lead) -> str:
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


def problem_page(desk: BookingDesk, title: str, status: int) -> HTMLResponse:
    body = alternatives_notice(COPY.problems.text)
    return HTMLResponse(page(title, body, desk.home()), status, headers=PRIVATE)


def why_not(desk: BookingDesk, action: LinkAction, booking: Booking) -> HTMLResponse | None:
    """The page of a booking this action cannot change, or None when it can."""
    state = BookingStatus(booking.state)
    if action in ATTENDANCE:
        return _why_not_mark(desk, booking)
    if action is LinkAction.CANCEL and starts_at(booking) <= agency_now():
        return problem_page(desk, COPY.problems.past, 410)
    if (action is LinkAction.CONFIRM and state is not BookingStatus.PENDING) or not state.active:
        words = getattr(COPY.states, str(state))
        return problem_page(desk, render(COPY.problems.already, state=words), 409)
    return None


def _why_not_mark(desk: BookingDesk, booking: Booking) -> HTMLResponse | None:
    """The page of a booking whose attendance cannot be marked (not confirmed, not started
    yet, or marked already), or None when it can."""
    if booking.attendance:
        outcome = getattr(COPY.attendance, booking.attendance)
        return problem_page(desk, render(COPY.problems.marked, outcome=outcome), 409)
    if booking.state != BookingStatus.CONFIRMED:
        words = getattr(COPY.states, str(booking.state))
        return problem_page(desk, render(COPY.problems.already, state=words), 409)
    if starts_at(booking) > agency_now():
        return problem_page(desk, COPY.problems.not_yet, 409)
    return None


def _link_problem(desk: BookingDesk, problem: LinkProblem) -> HTMLResponse:
    if problem is LinkProblem.EXPIRED:
        return problem_page(desk, COPY.problems.expired, 410)
    if problem is LinkProblem.STALE:
        return problem_page(desk, COPY.problems.stale, 410)
    return problem_page(desk, COPY.problems.tampered, 400)


async def resolve(
    desk: BookingDesk, action: LinkAction | None, token: str
) -> tuple[VerifiedLink, Booking, Lead] | Response:
    """The link and its booking and lead, or the page saying why not."""
    if action is None:
        return problem_page(desk, COPY.problems.tampered, 404)
    link = desk.verify(action, token)
    if isinstance(link, LinkProblem):
        return _link_problem(desk, link)
    found = await asyncio.to_thread(desk.booking, link.lead_id)
    if found is None:
        return problem_page(desk, COPY.problems.unknown, 404)
    if not link.opens(found[0].link_key):  # A link to an earlier booking with this id.
        return _link_problem(desk, LinkProblem.STALE)
    if action is not LinkAction.CALENDAR and (refusal := why_not(desk, action, found[0])):
        return refusal
    return link, *found


def button(action: LinkAction, token: str) -> str:
    """The form whose button applies ``action`` with the link ``token``."""
    return (
        f'<form method="post" action="{escape(paths.booking_link(str(action)), quote=True)}">'
        f'<input type="hidden" name="t" value="{escape(token, quote=True)}">'
        f'<button type="submit">{escape(getattr(COPY, str(action)).button)}</button></form>'
    )


async def posted(request: Request, body_timeout_s: float) -> dict[str, str]:
    """The fields a link page's form posted: its token and no more, in time
    (``request_body.read_body``); none when the body was too slow ("this link is not valid")."""
    try:
        body = await read_body(request, _TOKEN_BODY_MAX, body_timeout_s) or b""
    except SlowBody:
        body = b""
    return dict(parse_qsl(body.decode("utf-8", errors="replace")))

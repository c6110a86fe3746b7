"""The pages the booking links open, the calendar file, and the day's free slots.

- ``GET /_site/bookings/<confirm|decline|cancel>?t=<token>`` shows the booking and a
  button; only the button's ``POST`` acts, because link scanners and previews follow
  links (a GET never changes anything). No script; ``noindex``; the site's security
  headers (``server.py``) like every backend answer.
- ``GET /_site/bookings/calendar?t=<token>``: the confirmed appointment as ``text/calendar``.
- ``GET /_site/bookings/free-slots?date=YYYY-MM-DD``: ``{"date", "free": [...], "full"}``,
  the slots the form offers for that day.

An expired, tampered or replayed link, a booking that no longer exists or has passed,
gets a clear page (4xx), never an error.
"""

import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from html import escape
from urllib.parse import parse_qsl

import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from agency_site import paths
from agency_site.bookings import slots
from agency_site.bookings.calendar_file import ics
from agency_site.bookings.links import Action, Link, LinkProblem, LinkSigner
from agency_site.bookings.mails import appointment, fill, starts_at, visitor_mail
from agency_site.bookings.models import Booking, BookingState
from agency_site.content.bookings import COPY
from agency_site.leads.calendar import WorkingCalendar, agency_now
from agency_site.leads.delivery import date_es
from agency_site.leads.models import Lead
from agency_site.leads.store import LeadStore
from agency_site.plain_page import alternatives_notice, page

logger = logging.getLogger(__name__)

# A visitor's cancel and calendar links work until the appointment (checked apart).
VISITOR_LINK_DAYS = 400
_TOKEN_BODY_MAX = 2048
# Each action's target state.
_TARGET = {
    Action.CONFIRM: BookingState.CONFIRMED,
    Action.DECLINE: BookingState.DECLINED,
    Action.CANCEL: BookingState.CANCELLED,
}

# Sends an e-mail through a template: (template kind, params) -> whether it was accepted.
Sender = Callable[[str, dict[str, str]], Awaitable[bool]]


@dataclass(frozen=True)
class BookingPages:
    """What the pages need: the database, the signer, how to e-mail, the site's URLs."""

    engine: sa.Engine
    signer: LinkSigner | None  # None: BOOKING_LINK_SECRET unset, every link is refused.
    send: Sender
    calendar: WorkingCalendar
    api_url: str
    site_url: str
    agency_link_days: int
    daily_limit: int = 0

    def max_age_s(self, action: Action) -> float:
        agency = action in (Action.CONFIRM, Action.DECLINE)
        return dt.timedelta(
            days=self.agency_link_days if agency else VISITOR_LINK_DAYS
        ).total_seconds()

    def verify(self, action: Action, token: str) -> Link | LinkProblem:
        if self.signer is None:
            return LinkProblem.TAMPERED
        link = self.signer.verify(token, self.max_age_s(action))
        if isinstance(link, Link) and link.action is not action:
            return LinkProblem.TAMPERED
        return link

    def booking(self, lead_id: int) -> tuple[Booking, Lead] | None:
        booking = slots.get(self.engine, lead_id)
        lead = LeadStore(self.engine).get(lead_id)
        return None if booking is None or lead is None else (booking, lead)

    def home(self) -> str:
        return self.site_url.rstrip("/") + "/"


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
    return f'<dl class="summary">{items}</dl><p>{escape(state.capitalize())}.</p>'


def _problem(pages: BookingPages, title: str, status: int) -> HTMLResponse:
    body = alternatives_notice(COPY.problems.text)
    return HTMLResponse(page(title, body, pages.home()), status)


def _why_not(pages: BookingPages, action: Action, booking: Booking) -> HTMLResponse | None:
    """The page of a booking this action cannot change, or None when it can."""
    state = BookingState(booking.state)
    if action is Action.CANCEL and starts_at(booking) <= agency_now():
        return _problem(pages, COPY.problems.past, 410)
    if (action is Action.CONFIRM and state is not BookingState.PENDING) or not state.active:
        words = getattr(COPY.states, str(state))
        return _problem(pages, fill(COPY.problems.already, {"state": words}), 409)
    return None


def _link_problem(pages: BookingPages, problem: LinkProblem) -> HTMLResponse:
    if problem is LinkProblem.EXPIRED:
        return _problem(pages, COPY.problems.expired, 410)
    return _problem(pages, COPY.problems.tampered, 400)


def create_app(pages: BookingPages) -> Starlette:
    """The Starlette app of the booking endpoints."""

    def resolve(action: Action | None, token: str) -> tuple[Link, Booking, Lead] | Response:
        """The link and its booking and lead, or the page saying why not."""
        if action is None:
            return _problem(pages, COPY.problems.tampered, 404)
        link = pages.verify(action, token)
        if isinstance(link, LinkProblem):
            return _link_problem(pages, link)
        found = pages.booking(link.lead_id)
        if found is None:
            return _problem(pages, COPY.problems.unknown, 404)
        if action is not Action.CALENDAR and (refusal := _why_not(pages, action, found[0])):
            return refusal
        return link, *found

    async def show(request: Request) -> Response:
        action = _action(request)
        token = request.query_params.get("t", "")
        resolved = resolve(action, token)
        if isinstance(resolved, Response):
            return resolved
        _, booking, lead = resolved
        copy = getattr(COPY, str(action))
        form = (
            f'<form method="post" action="{escape(paths.booking_link(str(action)), quote=True)}">'
            f'<input type="hidden" name="t" value="{escape(token, quote=True)}">'
            f'<button type="submit">{escape(copy.button)}</button></form>'
        )
        html = page(copy.title, _summary(booking, lead) + form, pages.home())
        return HTMLResponse(
            html, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        )

    async def act(request: Request) -> Response:
        action = _action(request)
        small = int(request.headers.get("content-length") or 0) <= _TOKEN_BODY_MAX
        body = await request.body() if small else b""
        token = dict(parse_qsl(body.decode("utf-8", errors="replace"))).get("t", "")
        resolved = resolve(action, token)
        if isinstance(resolved, Response):
            return resolved
        link, booking, lead = resolved
        assert action is not None
        decision, booking = slots.decide(pages.engine, link.lead_id, _TARGET[action], link.digest)
        if decision is slots.Decision.REPLAYED:
            return _problem(pages, COPY.problems.replayed, 409)
        if decision is not slots.Decision.DONE or booking is None:
            return (
                _why_not(pages, action, booking)
                if booking
                else _problem(pages, COPY.problems.unknown, 404)
            )
        logger.info("Booking %s %s through its link.", booking.lead_id, booking.state)
        told = await _tell(pages, action, booking, lead)
        copy = getattr(COPY, str(action))
        after = ""
        if action is not Action.CANCEL:
            email = str(lead.fields.get("email", ""))
            after = COPY.notified if told else fill(COPY.not_notified, {"email": email})
        text = f'<p class="box ok" role="status">{escape(copy.done)} {escape(after)}</p>'
        html = page(copy.title, _summary(booking, lead) + text, pages.home())
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    async def calendar_file(request: Request) -> Response:
        resolved = resolve(Action.CALENDAR, request.query_params.get("t", ""))
        if isinstance(resolved, Response):
            return resolved
        _, booking, lead = resolved
        cancelled = booking.state != BookingState.CONFIRMED
        body = ics(appointment(booking, lead.fields), cancelled=cancelled)
        headers = {
            "Content-Disposition": f'attachment; filename="consulta-{booking.date.isoformat()}.ics"',
            "Cache-Control": "no-store",
        }
        return Response(body, media_type="text/calendar; charset=utf-8", headers=headers)

    async def free_slots(request: Request) -> Response:
        try:
            date = dt.date.fromisoformat(request.query_params.get("date", "")[:10])
        except ValueError:
            return JSONResponse({"error": "date"}, status_code=400)
        found = slots.availability(
            pages.engine, date, agency_now(), pages.calendar, pages.daily_limit
        )
        answer = {"date": date.isoformat(), "free": list(found.free), "full": found.full}
        return JSONResponse(answer, headers={"Cache-Control": "no-store"})

    return Starlette(
        routes=[
            Route(paths.FREE_SLOTS, free_slots, methods=["GET"]),
            Route(paths.booking_link(str(Action.CALENDAR)), calendar_file, methods=["GET"]),
            Route(paths.booking_link("{action}"), show, methods=["GET"]),
            Route(paths.booking_link("{action}"), act, methods=["POST"]),
        ]
    )


def _action(request: Request) -> Action | None:
    try:
        action = Action(request.path_params["action"])
    except ValueError:
        return None
    return None if action is Action.CALENDAR else action


async def _tell(pages: BookingPages, action: Action, booking: Booking, lead: Lead) -> bool:
    """E-mail the visitor where their booking stands (and the agency of a cancel)."""
    if pages.signer is None:
        return False
    mail = visitor_mail(
        booking, lead.fields, api_url=pages.api_url, site_url=pages.site_url, signer=pages.signer
    )
    told = await pages.send("visitor", mail.params)
    if action is Action.CANCEL:
        words = {
            "name": str(lead.fields.get("name", "")),
            "email": str(lead.fields.get("email", "")),
            "date_es": date_es(booking.date.isoformat()),
            "time": booking.time,
        }
        await pages.send(
            "agency", {"message": fill(COPY.agency_cancelled, words), "from_email": words["email"]}
        )
    return told

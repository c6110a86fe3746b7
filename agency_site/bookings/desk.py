"""Answering a booking: confirm, decline or cancel it once, and tell the visitor (and, for a
cancel, the agency) by e-mail. The links' pages and the operator command both go through
``BookingDesk.answer``; the visitor's manage page moves a booking through ``BookingDesk.move``
(both told by e-mail at once, retried by the monitor until accepted: ``tell_move``)."""

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial

import sqlalchemy as sa

from agency_site import locale
from agency_site.bookings import reschedule, slots
from agency_site.bookings.busy_times import BusySource, nothing_busy
from agency_site.bookings.caps import PendingCaps
from agency_site.bookings.links import LinkAction, LinkProblem, LinkSigner, VerifiedLink
from agency_site.bookings.mails import agency_links, agency_move_message, visitor_mail
from agency_site.bookings.models import Attendance, Booking, BookingStatus
from agency_site.content.bookings import COPY
from agency_site.content.template import render
from agency_site.forms.email import date_es
from agency_site.leads.models import Lead
from agency_site.leads.store import LeadStore
from agency_site.working_calendar import WorkingCalendar

logger = logging.getLogger(__name__)

# A visitor's cancel and calendar links work until the appointment (checked apart).
VISITOR_LINK_DAYS = 400
# Each action's target state.
TARGET = {
    LinkAction.CONFIRM: BookingStatus.CONFIRMED,
    LinkAction.DECLINE: BookingStatus.DECLINED,
    LinkAction.CANCEL: BookingStatus.CANCELLED,
}

# What the attendance links record.
ATTENDANCE = {LinkAction.ATTENDED: Attendance.ATTENDED, LinkAction.NO_SHOW: Attendance.NO_SHOW}

# Sends an e-mail through a template: (template kind, params) -> whether it was accepted.
Sender = Callable[[str, dict[str, str]], Awaitable[bool]]


@dataclass(frozen=True)
class BookingDesk:
    """A booking's answers, from its links' pages or the operator command: the database, the
    signer, how to e-mail, the site's URLs."""

    engine: sa.Engine
    signer: LinkSigner | None  # None: BOOKING_LINK_SECRET unset, every link is refused.
    send: Sender
    calendar: WorkingCalendar
    api_url: str
    site_url: str
    agency_link_days: int
    daily_limit: int = 0
    busy: BusySource = nothing_busy  # The owner's busy times (``BOOKING_BUSY_ICS_URLS``).
    # The free slots' answer tells the owner's busy slots of this many days ahead only
    # (``BOOKING_BUSY_SHOWN_DAYS``; None: of every day the form takes).
    busy_shown_days: int | None = None
    # When the visitor may move their booking.
    moves: reschedule.MoveRules = field(default_factory=reschedule.MoveRules)
    # The pending caps a booking holding no slot meets when its visitor moves it to one.
    caps: PendingCaps = field(default_factory=PendingCaps)

    def max_age_s(self, action: LinkAction) -> float:
        days = self.agency_link_days if action.agency else VISITOR_LINK_DAYS
        return dt.timedelta(days=days).total_seconds()

    def verify(self, action: LinkAction, token: str) -> VerifiedLink | LinkProblem:
        if self.signer is None:
            return LinkProblem.TAMPERED
        link = self.signer.verify(token, self.max_age_s(action))
        if isinstance(link, VerifiedLink) and link.action is not action:
            return LinkProblem.TAMPERED
        return link

    def booking(self, lead_id: int) -> tuple[Booking, Lead] | None:
        booking = slots.get(self.engine, lead_id)
        lead = LeadStore(self.engine).get(lead_id)
        return None if booking is None or lead is None else (booking, lead)

    def home(self) -> str:
        return self.site_url.rstrip("/") + "/"

    async def answer(
        self,
        lead_id: int,
        action: LinkAction,
        link_digest: str | None = None,
        version: int | None = None,
    ) -> tuple[slots.Decision, Booking | None, bool]:
        """Apply ``action`` to booking ``lead_id`` once (``version``: only to the booking
        as the owner's desk showed it, ``slots.decide``); the outcome, the booking after
        it, and whether the visitor was told by e-mail."""
        if outcome := ATTENDANCE.get(action):  # The agency marks a passed meeting.
            marked = partial(slots.mark_attendance, self.engine, lead_id, outcome, link_digest)
            return *(await asyncio.to_thread(marked, dt.datetime.now(dt.UTC))), False
        decision, booking = await asyncio.to_thread(
            slots.decide,
            self.engine,
            lead_id,
            TARGET[action],
            link_digest,
            self.daily_limit,
            version,
        )
        if decision is not slots.Decision.DONE or booking is None:
            return decision, booking, False
        logger.info("Booking %s %s.", booking.lead_id, booking.state)
        lead = await asyncio.to_thread(LeadStore(self.engine).get, lead_id)
        told = lead is not None and await _tell(self, action, booking, lead)
        return decision, booking, told

    async def move(
        self, lead_id: int, date: dt.date, time: str, version: int, now: dt.datetime
    ) -> tuple[reschedule.Moved | reschedule.MoveRefused, Booking | None, bool]:
        """Move booking ``lead_id`` (shown at ``version``) to ``date`` ``time`` once; the
        outcome, the booking after it, and whether the visitor was e-mailed about it."""
        moved, booking = await asyncio.to_thread(
            partial(
                reschedule.move,
                self.engine,
                lead_id,
                date,
                time,
                version=version,
                now=now,
                rules=self.moves,
                calendar=self.calendar,
                daily_limit=self.daily_limit,
                busy=self.busy(),
                pending_caps=self.caps,
            )
        )
        if moved is not reschedule.Moved.DONE or booking is None:
            return moved, booking, False
        lead = await asyncio.to_thread(LeadStore(self.engine).get, lead_id)
        told = lead is not None and await self.tell_move(booking, lead)
        return moved, booking, told

    async def tell_move(self, booking: Booking, lead: Lead) -> bool:
        """E-mail the visitor (their language: the updated calendar file) and the agency
        about the booking's last move, each unless already told; recorded per version, so
        the monitor retries only what was not accepted. Whether the visitor is told."""
        if self.signer is None:
            return False
        sequence = booking.sequence
        visitor = booking.visitor_told_sequence >= sequence
        if not visitor:
            with locale.active(lead.language):
                mail = visitor_mail(
                    booking,
                    lead.fields,
                    api_url=self.api_url,
                    site_url=self.site_url,
                    signer=self.signer,
                    moved=True,
                )
            if visitor := await self.send("visitor", mail.params):
                await asyncio.to_thread(
                    reschedule.mark_move_told, self.engine, booking.lead_id, sequence, agency=False
                )
        if booking.agency_told_sequence < sequence:
            links = ""
            if booking.state == BookingStatus.PENDING:
                urls = agency_links(self.api_url, self.signer, self.engine, booking.lead_id)
                links = f"{urls['confirm_url']}\n{urls['decline_url']}"
            message = agency_move_message(booking, lead.fields, links)
            email = str(lead.fields.get("email", ""))
            if await self.send("agency", {"message": message, "from_email": email}):
                await asyncio.to_thread(
                    reschedule.mark_move_told, self.engine, booking.lead_id, sequence, agency=True
                )
        return visitor

    async def tell_expired(self, booking: Booking, lead: Lead) -> bool:
        """E-mail the visitor that their unanswered booking expired (their language);
        whether the visitor template took it."""
        with locale.active(lead.language):
            mail = visitor_mail(
                booking, lead.fields, api_url=self.api_url, site_url=self.site_url, signer=None
            )
        return await self.send("visitor", mail.params)


async def _tell(pages: BookingDesk, action: LinkAction, booking: Booking, lead: Lead) -> bool:
    """E-mail the visitor where their booking stands (and the agency of a cancel)."""
    if pages.signer is None:
        return False
    with locale.active(lead.language):  # The visitor's e-mail: their language.
        mail = visitor_mail(
            booking,
            lead.fields,
            api_url=pages.api_url,
            site_url=pages.site_url,
            signer=pages.signer,
        )
    told = await pages.send("visitor", mail.params)
    if action is LinkAction.CANCEL:
        words = {
            "name": str(lead.fields.get("name", "")),
            "email": str(lead.fields.get("email", "")),
            "date_es": date_es(booking.date.isoformat()),
            "time": booking.time,
        }
        with locale.active(locale.DEFAULT_LOCALE):  # The agency's: Spanish.
            words["date_es"] = date_es(booking.date.isoformat())
            message = render(COPY.agency_cancelled, **words)
        await pages.send("agency", {"message": message, "from_email": words["email"]})
    return told

"""The consultation bookings, plugged into the lead core (``LEADS_PLUGINS``, the default).

A booking is a lead of the ``booking`` form (``LeadKind.BOOKING``) plus its row of
``bookings``; every hook leaves the other kinds of lead alone:

- ``hold``: the slot, claimed in the transaction that stores the lead or releases it from
  quarantine, on one decision for every path: the pending bookings' caps per mailbox and
  per network (``BOOKING_MAX_PENDING_PER_*``, ``caps.py``: counted there, under locks;
  not for the owner's release), then a slot taken or one the owner's calendar is busy for
  (with the nearest free ones) or a full day. The intake and the visitor's release
  (a solved challenge) are refused with the form's field errors; a drained booking, or
  one the owner released, is stored without its slot (``slot_lost``, and why) instead;
- ``forget``: the bookings of erased or purged leads are deleted, their slots free;
- ``email_params``: the agency's e-mail's confirm/decline links and the note of a booking
  holding no slot (``mails.agency_params``);
- ``watchers``: the owner told of bookings unanswered after a working day; the bookings
  left pending ``BOOKING_PENDING_EXPIRY_DAYS`` working days expire (every
  ``EXPIRY_EVERY``, one worker: the ``booking_expiry`` row), their visitors told; the
  owner's calendars fetched when due (``busy_feed.BusyFeed.watch_in_background``, every
  worker, in a task of its own that the round does not wait for);
  e-mails of a visitor's move not accepted at once are sent again (``tell_moves``); the
  visitors' reminders before their meetings (``reminders.ReminderWatch``, every worker);
  the owner's morning digest (``digest.py``, one worker a day: the ``booking_digest`` row);
- ``health``: the owner's calendars failing for ``BOOKING_BUSY_ALERT_MINUTES``, and those
  whose last copy is older than ``BOOKING_BUSY_STALE_HOURS`` (``calendar_stale``), on
  ``/_site/leads/health`` (by number and host, never the address);
- ``lead_notes``: each booking's slot, state and attendance in ``leads list`` / ``export``;
- ``webhook_data``: the booking in its lead's ``lead.created`` webhook; each change of state
  queues its own ``booking.*`` webhook in the change's transaction (``events.py``), the
  events it declares (``webhook_events``), each with its first line in a chat
  (``chat_line``: ``chat_booking``);
- ``commands``: ``confirm``, ``decline`` and ``cancel ID``, as the e-mail's buttons.
"""

import argparse
import asyncio
import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TextIO

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site import locale
from agency_site.bookings import availability, busy_feed, digest, events, reschedule, slots
from agency_site.bookings.busy_times import BusySource, nothing_busy
from agency_site.bookings.caps import (
    PendingCaps,
    TooManyPending,
    over,
    pending_caps,
)
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.link_secret import link_secrets
from agency_site.bookings.links import LinkAction, LinkSigner
from agency_site.bookings.mails import agency_links, agency_params
from agency_site.bookings.models import Booking, BookingChange, SlotLost
from agency_site.bookings.reminders import ReminderWatch, plan
from agency_site.content.bookings import COPY as BOOKINGS
from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.forms.email import date_es
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead, mailbox_digest, utcnow
from agency_site.leads.monitor import Monitor
from agency_site.leads.plugins import Hold, LeadPlugin, Refused, Watcher
from agency_site.leads.store import LeadStore
from agency_site.settings import Settings
from agency_site.working_calendar import WorkingCalendar, agency_now, default_calendar

logger = logging.getLogger(__name__)

BOOKING_EXPIRY = "booking_expiry"
EXPIRY_EVERY = dt.timedelta(minutes=10)
# A move's e-mails go out at once from its page; what was not accepted is retried by one
# worker every MOVES_EVERY (the ``booking_moves`` row), once a move is MOVE_TOLD_GRACE old.
BOOKING_MOVES = "booking_moves"
MOVES_EVERY = dt.timedelta(minutes=5)
MOVE_TOLD_GRACE = dt.timedelta(minutes=2)
ACTIONS = {
    "confirm": "confirm a booking and e-mail the visitor (with the calendar file)",
    "decline": "decline a booking (its slot is free again) and e-mail the visitor",
    "cancel": "cancel a booking (its slot is free again) and e-mail the visitor",
}


class _OverCap(Exception):
    """The visitor's mailbox or network holds the most pending bookings allowed."""

    def __init__(self, which: TooManyPending) -> None:
        super().__init__(which)
        self.which = which
        self.lost = SlotLost.EMAIL_CAP if which is TooManyPending.EMAIL else SlotLost.NETWORK_CAP


# Why a booking not held strictly is stored without its slot, by what refused it.
_LOST = {
    slots.SlotTaken: SlotLost.TAKEN,
    slots.SlotBusy: SlotLost.BUSY,
    slots.DayFull: SlotLost.DAY_FULL,
}


def no_links(engine: sa.Engine, lead_id: int) -> dict[str, str]:
    """The agency answers by hand: no confirm/decline links."""
    return {"confirm_url": "", "decline_url": ""}


def links_and_note(
    api_url: str, secrets: tuple[str, ...], engine: sa.Engine, lead_id: int
) -> dict[str, str]:
    """The agency's booking e-mail's links (to the backend at ``api_url``, signed with
    ``secrets``; none without) and its note when the booking holds no slot."""
    links = partial(agency_links, api_url, LinkSigner(secrets), engine) if secrets else None
    return agency_params(engine, links, lead_id)


def _runtime_desk() -> BookingDesk:
    """The booking desk of this process (built on first use: it needs Reflex's config)."""
    from agency_site.bookings.runtime import desk

    return desk()


@dataclass
class BookingsPlugin(LeadPlugin):
    """The bookings' hooks, with the ``BOOKING_*`` settings (``plugin``)."""

    daily_limit: int = 0  # BOOKING_DAILY_LIMIT (0: none).
    caps: PendingCaps = field(default_factory=PendingCaps, repr=False)
    calendar: WorkingCalendar = field(default_factory=default_calendar)
    # Working days a booking may stay pending before it expires (0: never).
    pending_expiry_days: int = 0
    # What the agency's booking e-mail adds (engine, lead id) -> params.
    agency_email: Callable[[sa.Engine, int], dict[str, str]] = field(default=no_links, repr=False)
    # The booking desk (e-mails the visitor); None: expired bookings' visitors are not
    # told and the answering commands say bookings are not available.
    desk: Callable[[], BookingDesk] | None = None
    # The owner's busy times (``BOOKING_BUSY_ICS_URLS``), and the feed the monitor
    # refreshes (None: no calendar to fetch).
    busy: BusySource = nothing_busy
    owner_calendars: busy_feed.BusyFeed | None = field(default=None, repr=False)
    # The visitors' reminders (``BOOKING_REMINDER_HOURS``...); None: none sent.
    reminders: ReminderWatch | None = field(default=None, repr=False)
    # The hour (agency time) of the owner's morning digest; None: no digest.
    digest_hour: int | None = None

    # --- Storing: the caps, the slot, the erasures ---------------------------------------

    def hold(self, session: Session, lead: Lead, hold: Hold) -> str | None:
        """Hold a booking's slot, in the transaction storing or releasing its lead (written
        already: on SQLite the write lock is this transaction's before anything is counted).

        One decision: its mailbox and network within the caps (unless the owner released
        it, ``hold.caps``), the slot not busy, not taken, its day not full. A refusal is
        the form's field errors (``hold.strict``), else the booking is stored holding no
        slot (``slot_lost``) and the reason is answered (``SlotLost``). The booking keeps
        the claiming request's network digest and the visitor's mailbox digest.
        """
        if lead.kind != LeadKind.BOOKING:
            return None
        assert lead.id is not None
        date, time = dt.date.fromisoformat(str(lead.fields["date"])), str(lead.fields["time"])
        email = lead.fields.get("email")
        mailbox = mailbox_digest(email) if isinstance(email, str) else None
        network = hold.network  # The claiming request's, a digest the core made.
        lost: SlotLost | None = None
        try:
            too_many = over(session, self.caps, mailbox, network) if hold.caps else None
            if too_many is not None:
                raise _OverCap(too_many)
            if self.busy().blocks(date, time):
                raise slots.SlotBusy(slots.slot_key(date, time))
            with session.begin_nested():
                slots.claim(session, lead.id, date, time, self.daily_limit, network, mailbox)
        except (_OverCap, slots.SlotTaken, slots.SlotBusy, slots.DayFull) as refused:
            if hold.strict:
                with locale.active(lead.language):  # The visitor's words.
                    raise Refused(self._slot_errors(session, date, time, refused)) from None
            lost = _LOST[type(refused)] if not isinstance(refused, _OverCap) else refused.lost
            slots.store_without_slot(session, lead.id, date, time, lost, network, mailbox)
        events.queue(session, lead.id, "booking.requested")
        return lost

    def _slot_errors(
        self,
        session: Session,
        date: dt.date,
        time: str,
        refused: "_OverCap | slots.SlotTaken | slots.SlotBusy | slots.DayFull",
    ) -> dict[str, str]:
        """The message next to the e-mail (its mailbox is over its cap), the date (its
        network is, or the day is full) or the time (a taken or busy slot, with the nearest
        free ones)."""
        if isinstance(refused, _OverCap):
            logger.warning(
                "A booking was refused: its %s holds too many pending bookings.", refused.which
            )
            if refused.which is TooManyPending.EMAIL:
                return {"email": BOOKINGS.slots.too_many_email}
            return {"date": BOOKINGS.slots.too_many_network}
        if isinstance(refused, slots.DayFull):
            return {"date": BOOKINGS.slots.day_full}
        busy = isinstance(refused, slots.SlotBusy)
        nearest = availability.nearest_free(
            session, date, time, agency_now(), self.calendar, self.daily_limit, busy=self.busy()
        )
        if not nearest:
            return {"time": BOOKINGS.slots.busy_none if busy else BOOKINGS.slots.taken_none}
        words = BOOKINGS.slots.nearest_joiner.join(
            render(BOOKINGS.slots.slot_in_words, time=slot, date_es=date_es(day.isoformat()))
            for day, slot in nearest
        )
        return {"time": render(BOOKINGS.slots.busy if busy else BOOKINGS.slots.taken, slots=words)}

    def forget(self, connection: sa.Connection) -> None:
        """Delete the bookings (freeing their slots) and their history of leads just
        deleted: PostgreSQL cascades, SQLite does not enforce foreign keys, so both are told."""
        connection.execute(sa.delete(Booking).where(col(Booking.lead_id).not_in(select(Lead.id))))
        connection.execute(
            sa.delete(BookingChange).where(col(BookingChange.lead_id).not_in(select(Lead.id)))
        )

    def email_params(self, engine: sa.Engine, kind: LeadKind, lead_id: int) -> dict[str, str]:
        return self.agency_email(engine, lead_id) if kind is LeadKind.BOOKING else {}

    # --- The monitor's rounds ------------------------------------------------------------

    def watchers(self, monitor: Monitor) -> list[Watcher]:
        watchers = [
            partial(self.watch_unanswered, monitor),
            partial(self.expire_when_due, monitor),
            partial(self.tell_moves_when_due, monitor),
        ]
        if self.owner_calendars is not None:  # Started in a task of its own: never waited for.
            watchers.append(partial(self.owner_calendars.watch_in_background, monitor.alert))
        if self.reminders is not None:
            watchers.append(self.reminders.watch)
        if self.digest_hour is not None:
            watchers.append(partial(self.send_digest, monitor))
        return watchers

    async def watch_unanswered(self, monitor: Monitor) -> None:
        """Tell the owner, once per booking, of bookings unanswered after a working day."""
        engine = monitor.store.engine
        late = await asyncio.to_thread(slots.unanswered, engine, utcnow(), self.calendar)
        if not late:
            return
        await asyncio.to_thread(slots.mark_reminded, engine, [b.lead_id for b in late])
        listed = ", ".join(f"n.º {b.lead_id}: {b.date.isoformat()} {b.time}" for b in late)
        await monitor.alert(render(ALERTS.booking_unanswered, count=len(late), bookings=listed))

    async def expire_when_due(self, monitor: Monitor) -> None:
        """``expire`` on one worker every ``EXPIRY_EVERY`` (the ``booking_expiry`` row)."""
        if await asyncio.to_thread(monitor.store.claim_job, BOOKING_EXPIRY, EXPIRY_EVERY):
            await self.expire(monitor)

    async def expire(self, monitor: Monitor) -> int:
        """Expire the bookings left unanswered too long, then tell each one's visitor (those
        not told yet too); how many expired now."""
        store = monitor.store
        engine = store.engine
        expired = await asyncio.to_thread(
            slots.expire_pending, engine, utcnow(), self.calendar, self.pending_expiry_days
        )
        if expired:
            logger.warning(
                "%s booking(s) expired unanswered after %s working days: their slots are free.",
                len(expired),
                self.pending_expiry_days,
            )
        untold = await asyncio.to_thread(slots.expired_untold, engine)
        if not untold:
            return len(expired)
        desk = self.desk() if self.desk else None
        for booking in untold:
            lead = await asyncio.to_thread(store.get, booking.lead_id)
            if lead is None:
                continue
            if desk is not None and await desk.tell_expired(booking, lead):
                await asyncio.to_thread(slots.mark_expiry_told, engine, booking.lead_id)
            else:
                logger.error(
                    "The visitor of expired booking %s could not be e-mailed (visitor "
                    "template unset or refused); tried again later.",
                    booking.lead_id,
                )
        return len(expired)

    async def tell_moves_when_due(self, monitor: Monitor) -> None:
        """``tell_moves`` on one worker every ``MOVES_EVERY`` (the ``booking_moves`` row)."""
        if await asyncio.to_thread(monitor.store.claim_job, BOOKING_MOVES, MOVES_EVERY):
            await self.tell_moves(monitor)

    async def tell_moves(self, monitor: Monitor) -> int:
        """E-mail again the moves whose visitor or agency e-mail was not accepted; how many
        moves were looked at."""
        desk = self.desk() if self.desk else None
        if desk is None:
            return 0
        store = monitor.store
        before = utcnow() - MOVE_TOLD_GRACE
        untold = await asyncio.to_thread(reschedule.moves_untold, store.engine, before)
        for booking in untold:
            if lead := await asyncio.to_thread(store.get, booking.lead_id):
                await desk.tell_move(booking, lead)
        return len(untold)

    async def send_digest(self, monitor: Monitor, now: dt.datetime | None = None) -> bool:
        """The owner's digest, when due and not sent yet today (``digest.send_when_due``)."""
        desk = self.desk() if self.desk else None
        if desk is None or self.digest_hour is None:
            return False
        now = now or dt.datetime.now(dt.UTC)
        return await digest.send_when_due(monitor.store, desk, self.calendar, self.digest_hour, now)

    def health(self, now: dt.datetime) -> dict[str, Any]:
        """The owner's calendars failing for ``BOOKING_BUSY_ALERT_MINUTES`` or longer, and
        those whose last copy is older than ``BOOKING_BUSY_STALE_HOURS`` (``calendar_stale``:
        still blocking with it), by number and host (never the secret address)."""
        feed = self.owner_calendars
        if feed is None:
            return {}
        notes: dict[str, Any] = {}
        if failing := feed.failing(now):
            notes["owner_calendars_failing"] = [
                {
                    "calendar": copy.name,
                    "problem": copy.problem,
                    "since": copy.failing_since.isoformat() if copy.failing_since else None,
                }
                for copy in failing
            ]
        if stale := feed.stale(now):
            notes["calendar_stale"] = [
                {
                    "calendar": copy.name,
                    "fetched_at": copy.good_at.isoformat() if copy.good_at else None,
                }
                for copy in stale
            ]
        return notes

    def health_problem(self, now: dt.datetime) -> str | None:
        """``calendar_stale`` while a calendar's last copy is older than
        ``BOOKING_BUSY_STALE_HOURS``: it still blocks what it blocked, and the owner must
        look (a changed address, a revoked share)."""
        feed = self.owner_calendars
        return "calendar_stale" if feed is not None and feed.stale(now) else None

    # --- The listing ---------------------------------------------------------------------

    def lead_notes(self, engine: sa.Engine, lead_ids: list[int]) -> dict[int, str]:
        """Each booking's slot, state and attendance: ``2026-03-10 10:00 confirmed,
        attended``."""
        with Session(engine) as session:
            found = session.exec(select(Booking).where(col(Booking.lead_id).in_(lead_ids)))
            return {
                booking.lead_id: f"{booking.date} {booking.time} {booking.state}"
                + (f", {booking.attendance}" if booking.attendance else "")
                for booking in found
            }

    def webhook_data(self, engine: sa.Engine, lead_id: int) -> dict[str, Any]:
        """A booking's ``lead.created`` webhook carries its state as it is when sent."""
        return events.current(engine, lead_id)

    def webhook_events(self) -> tuple[str, ...]:
        return events.EVENTS

    def chat_line(self, payload: dict[str, Any]) -> str:
        return events.chat_line(payload)

    # --- The operator command ------------------------------------------------------------

    def commands(self, subparsers: "argparse._SubParsersAction[Any]") -> None:
        for action, text in ACTIONS.items():
            answer = subparsers.add_parser(action, help=text)
            answer.add_argument("id", type=int, metavar="ID", help="the booking's lead id (list)")
            answer.set_defaults(plugin_command=self.answer)

    def answer(self, args: argparse.Namespace, store: LeadStore, out: TextIO) -> int:
        """Confirm, decline or cancel booking ``args.id``, as its e-mail's buttons do."""
        lead_id = args.id
        desk = self.desk() if self.desk else None
        if desk is None:
            print("Bookings are not available here.", file=out)
            return 1
        decision, booking, told = asyncio.run(desk.answer(lead_id, LinkAction(args.command)))
        if decision is slots.Decision.UNKNOWN or booking is None:
            print(f"No booking {lead_id}.", file=out)
            return 1
        if decision is slots.Decision.SLOT_TAKEN:
            print(
                f"Booking {lead_id} holds no slot and {booking.date} {booking.time} is taken "
                "(or the day is full): nothing changed. Offer the visitor another time, or "
                "decline.",
                file=out,
            )
            return 1
        if decision is not slots.Decision.DONE:
            print(f"Booking {lead_id} is {booking.state}: nothing changed.", file=out)
            return 1
        visitor = "the visitor was e-mailed" if told else "the visitor was NOT e-mailed"
        print(
            f"Booking {lead_id} ({booking.date} {booking.time}) {booking.state}; {visitor}.",
            file=out,
        )
        return 0


def plugin(settings: Settings) -> BookingsPlugin:
    """The bookings of these settings (``LEADS_PLUGINS`` loads it)."""
    booking = settings.booking
    secrets = link_secrets(settings)
    feed = busy_feed.shared()
    return BookingsPlugin(
        daily_limit=booking.daily_limit,
        caps=pending_caps(settings),
        calendar=default_calendar(),
        pending_expiry_days=booking.pending_expiry_days,
        agency_email=partial(links_and_note, settings.reflex.api_url, secrets),
        desk=_runtime_desk,
        busy=feed.busy,
        owner_calendars=feed if feed.copies else None,
        # Without the visitor template no reminder could go out: none is looked for.
        reminders=ReminderWatch(
            plan(booking.reminder_hours, booking.second_reminder_hours), _runtime_desk
        )
        if settings.emailjs.visitor_template_id
        else None,
        digest_hour=booking.digest_hour if booking.digest else None,
    )

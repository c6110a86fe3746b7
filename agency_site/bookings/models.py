"""The ``bookings`` table (one row per booking lead: its slot and where it stands),
``booking_history`` (each change of a booking, for the desk's page of its lead) and
``booking_link_uses`` (the links already used)."""

import datetime as dt
import enum

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from agency_site.bookings.links import new_link_key
from agency_site.leads.models import utcnow


class BookingStatus(enum.StrEnum):
    """Where a consultation booking stands."""

    PENDING = "pending"  # Requested; the agency has not answered yet.
    CONFIRMED = "confirmed"
    DECLINED = "declined"  # By the agency; the slot is free again.
    CANCELLED = "cancelled"  # By the visitor or the operator; the slot is free again.
    # Left pending past BOOKING_PENDING_EXPIRY_DAYS working days: the slot is free again
    # and the visitor is told (``expiry_told_at``).
    EXPIRED = "expired"

    @property
    def active(self) -> bool:
        """Whether a booking in this state holds its slot."""
        return self in (BookingStatus.PENDING, BookingStatus.CONFIRMED)


class SlotLost(enum.StrEnum):
    """Why a booking was stored holding no slot (``slot_lost``): for the agency's e-mail."""

    TAKEN = "taken"  # Another booking held it.
    BUSY = "busy"  # The owner's calendar was busy then.
    DAY_FULL = "day_full"  # The day had BOOKING_DAILY_LIMIT bookings.
    # Its address (mailbox) or network already held the most pending bookings allowed.
    EMAIL_CAP = "email_cap"
    NETWORK_CAP = "network_cap"


class Attendance(enum.StrEnum):
    """Whether the visitor came to a confirmed meeting (the owner's digest links)."""

    ATTENDED = "attended"
    NO_SHOW = "no_show"


def slot_key(date: dt.date, time: str) -> str:
    """The value of ``active_slot`` for a slot: ``2026-12-14T10:00``."""
    return f"{date.isoformat()}T{time}"


class Booking(SQLModel, table=True):
    """A consultation booking: the slot its lead asked for, and its state.

    ``active_slot`` is the slot while the booking holds it (pending or confirmed) and NULL
    once declined or cancelled. It is UNIQUE: both SQLite and PostgreSQL let any number of
    NULLs through, so the database itself allows one active booking per slot, however many
    workers and hosts insert at the same moment.
    """

    __tablename__ = "bookings"
    __table_args__ = (
        sa.Index("ux_bookings_active_slot", "active_slot", unique=True),
        sa.Index("ix_bookings_date", "date"),
        sa.Index("ix_bookings_network", "network"),
        # The pending bookings of one mailbox (``caps.py``), counted in the claim's transaction.
        sa.Index("ix_bookings_mailbox_state", "mailbox", "state"),
        # The watchers' reads, without reading every booking kept (``slots.py``): those
        # unanswered (every worker's poll), to expire, expired and untold; the moves to tell
        # (``reschedule.py``).
        sa.Index("ix_bookings_state_created_at", "state", "created_at"),
        sa.Index("ix_bookings_moved_at", "moved_at"),
    )

    lead_id: int = Field(primary_key=True, foreign_key="leads.id", ondelete="CASCADE")
    date: dt.date
    time: str = Field(max_length=5)
    state: str = Field(default=BookingStatus.PENDING, max_length=20)
    active_slot: str | None = Field(default=None, max_length=16)
    created_at: dt.datetime = Field(default_factory=utcnow)
    decided_at: dt.datetime | None = None
    # Set when the owner was alerted that it waits for an answer (once).
    reminded_at: dt.datetime | None = None
    # Stored without its slot: drained from the spool or released from quarantine after
    # its slot (or the day) was taken or the owner's calendar became busy then, or over a
    # cap (drained), and why (``SlotLost``; NULL in rows from before reasons). Confirming
    # it must claim the slot first; the agency's e-mail says so.
    slot_lost: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    slot_lost_reason: str | None = Field(default=None, max_length=20)
    # A keyed digest of the claiming request's network (``ratelimit.network_digest``), to cap the
    # pending bookings per network; kept only while the booking is pending.
    network: str | None = Field(default=None, max_length=64)
    # The digest of the visitor's mailbox (``leads.models.mailbox_digest``: Gmail's dots
    # and any +tag make no new one), to cap the pending bookings per mailbox (``caps.py``).
    mailbox: str | None = Field(default=None, max_length=64)
    # When the visitor was e-mailed that their unanswered booking expired.
    expiry_told_at: dt.datetime | None = None
    # Random; every link to this booking carries it (``links.py``), so a link made for an
    # earlier booking with the same id opens nothing. NULL: made before links had keys.
    link_key: str | None = Field(default_factory=new_link_key, max_length=32)
    # The calendar event's SEQUENCE: one more per move, so calendar apps move the event
    # (same UID) instead of adding a second one. Also the version a manage page's move
    # form carries: a move applies only to the version it was shown (``reschedule.move``).
    sequence: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # Moves the visitor made (``BOOKING_MAX_RESCHEDULES``), the slot it held before the
    # last one (``slot_key``), and when that move was made.
    reschedules: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    moved_from: str | None = Field(default=None, max_length=16)
    moved_at: dt.datetime | None = None
    # The last ``sequence`` the visitor, and the agency, were e-mailed about: below
    # ``sequence``, a move is still to be told (retried by the monitor).
    visitor_told_sequence: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    agency_told_sequence: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # The ``sequence`` the visitor's first and second reminders were claimed for
    # (``reminders.py``; -1: none): below ``sequence``, the reminder of the current time
    # is still to come, so a booking moved after its reminder gets one for the new time.
    reminder_sequence: int = Field(default=-1, sa_column_kwargs={"server_default": "-1"})
    second_reminder_sequence: int = Field(default=-1, sa_column_kwargs={"server_default": "-1"})
    # Whether the visitor came (``Attendance``; NULL: not marked), marked once by the
    # agency after the meeting, and when.
    attendance: str | None = Field(default=None, max_length=10)
    attendance_at: dt.datetime | None = None


class BookingChange(SQLModel, table=True):
    """One change of a booking, as its webhook event names it (``requested``,
    ``confirmed``, ``declined``, ``cancelled``, ``rescheduled``, ``expired``,
    ``attended``, ``no_show``), and the booking right after it: written by
    ``events.queue`` in the change's own transaction, whether or not any webhook is in
    use, so the desk shows a booking's whole history (a ``bookings`` row keeps only its
    last decision and move). Deleted with its lead (``plugin.forget``; the foreign key's
    cascade on PostgreSQL)."""

    __tablename__ = "booking_history"
    __table_args__ = (sa.Index("ix_booking_history_lead_id", "lead_id"),)

    id: int | None = Field(default=None, primary_key=True)
    lead_id: int = Field(foreign_key="leads.id", ondelete="CASCADE")
    at: dt.datetime = Field(default_factory=utcnow)
    event: str = Field(max_length=20)
    date: dt.date
    time: str = Field(max_length=5)
    # A move's slot before (``slot_key``); None for any other change.
    moved_from: str | None = Field(default=None, max_length=16)
    slot_lost: bool = False


class BookingLinkUse(SQLModel, table=True):
    """A single-use link already used: the digest of its action, booking and nonce."""

    __tablename__ = "booking_link_uses"

    digest: str = Field(primary_key=True, max_length=64)
    used_at: dt.datetime = Field(default_factory=utcnow)

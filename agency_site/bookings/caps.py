"""The pending bookings one visitor may hold: per mailbox and per network.

``BOOKING_MAX_PENDING_PER_EMAIL`` and ``BOOKING_MAX_PENDING_PER_NETWORK`` cap the pending
bookings that hold a slot (a booking stored without one, ``slot_lost``, hoards nothing).
They are counted by ``over`` inside the transaction that claims the slot, on every path
that claims one (``BookingsPlugin.hold``: the intake's insert, the visitor's release from
quarantine, the spool's drain; a visitor's move of a booking that holds no slot), so no
path can skip them and no count is read before the write it decides:

- **PostgreSQL**: a transaction advisory lock of the mailbox, then of the network, is
  taken before counting and held until the claim commits, so concurrent requests of one
  mailbox or one network take turns and each sees the others' bookings (READ COMMITTED
  reads what committed before each statement). Every transaction takes its locks in the
  same order (mailbox, network, then the day's, ``slots.day_full``): none waits in a cycle.
- **SQLite**: one writer at a time. The caller has written the lead's row (or released it)
  before ``over`` runs, so its transaction already holds the database's write lock and no
  other claim can commit between the count and the insert.

A mailbox is ``leads.models.mailbox_digest`` of the address (as the auto-reply allowance
compares them: Gmail's dots and any ``+tag`` make no new one), stored on the booking
(``bookings.mailbox``). A network is the claiming request's /24, or IPv6 /48, as the
keyed digest the core makes of it (``leads.ratelimit.network_digest``), kept while the
booking is pending.
"""

import enum
import logging
from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.bookings.models import Booking, BookingStatus
from agency_site.settings import Settings

logger = logging.getLogger(__name__)

# The first keys of the advisory locks (PostgreSQL): the second is 32 bits of the digest.
_MAILBOX_LOCK_SPACE = 0x0B00D
_NETWORK_LOCK_SPACE = 0x0B00E


@dataclass(frozen=True)
class PendingCaps:
    """How many pending bookings one mailbox and one network may hold (0: any)."""

    per_email: int = 0
    per_network: int = 0


def pending_caps(settings: Settings) -> PendingCaps:
    """The caps of these settings."""
    booking = settings.booking
    return PendingCaps(booking.max_pending_per_email, booking.max_pending_per_network)


NO_CAPS = PendingCaps()


class TooManyPending(enum.StrEnum):
    """Which cap a booking request would pass."""

    EMAIL = "email"
    NETWORK = "network"


def _lock(session: Session, space: int, digest: str) -> None:
    """PostgreSQL's transaction advisory lock of ``digest`` in ``space`` (nothing on
    SQLite, whose writer holds the whole database)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    key = int.from_bytes(bytes.fromhex(digest[:8]), "big", signed=True)
    session.execute(
        sa.text("SELECT pg_advisory_xact_lock(:space, :key)"), {"space": space, "key": key}
    )


def lock(session: Session, caps: PendingCaps, mailbox: str | None, network: str | None) -> None:
    """Lock the mailbox, then the network, whose caps apply (PostgreSQL; until the
    transaction ends): before any other lock a claim takes (the day's, a slot's index
    entry), so every transaction takes them in one order."""
    if caps.per_email and mailbox:
        _lock(session, _MAILBOX_LOCK_SPACE, mailbox)
    if caps.per_network and network:
        _lock(session, _NETWORK_LOCK_SPACE, network)


def held(session: Session, column: sa.ColumnElement, value: str, exclude: int | None = None) -> int:
    """How many pending bookings holding a slot have ``column == value`` (but ``exclude``)."""
    query = select(sa.func.count()).where(
        column == value,
        Booking.state == BookingStatus.PENDING,
        col(Booking.active_slot).is_not(None),
    )
    if exclude is not None:
        query = query.where(col(Booking.lead_id) != exclude)
    return session.exec(query).one()


def over(
    session: Session,
    caps: PendingCaps,
    mailbox: str | None,
    network: str | None,
    exclude: int | None = None,
) -> TooManyPending | None:
    """In the claiming transaction, after its write (the lead's row, or the moved booking,
    ``exclude``: not counted): which cap one more pending booking of ``mailbox`` from
    ``network`` (a ``ratelimit.network_digest``) would pass, or None. Locks them first (``lock``)."""
    lock(session, caps, mailbox, network)
    counted = (
        (TooManyPending.EMAIL, caps.per_email, Booking.mailbox, mailbox),
        (TooManyPending.NETWORK, caps.per_network, Booking.network, network),
    )
    for which, cap, column, value in counted:
        if cap and value and held(session, col(column), value, exclude) >= cap:
            return which
    return None

"""The desk's audit log: who did what to which lead, request or person, and when.

Every screen writes through ``record`` (one function, one row), in the transaction of what
it records when it passes its connection: a lead erased and the line saying so commit
together. A line keeps ids and digests only (``digest``: e.g. the ``email_digest`` of an
address a request is about), never a copy of personal data, and is deleted
``DESK_AUDIT_MONTHS`` (24) after it was written, by the daily round (``plugin.py``), as
both privacy policies say. The "Registro" screen (``log.py``) shows it, newest first.

A new kind of line is a member of ``AuditAction`` and its Spanish words in
``templates/_words.html`` (``ACTIONS``); ``tests/desk/test_audit.py`` checks every member
has them.
"""

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import col

from agency_site.desk.models import DETAIL_MAX, DeskAudit
from agency_site.leads.rgpd import months_before


class AuditAction(StrEnum):
    """What a line of the log records."""

    INVITED = "invited"  # The operator printed an invite (subject: the person).
    ENROLLED = "enrolled"  # A person enrolled a passkey through an invite.
    SIGNED_IN = "signed_in"
    SIGNED_OUT = "signed_out"
    SIGNED_OUT_EVERYWHERE = "signed_out_everywhere"
    CONFIRMED = "confirmed"  # Proved it with the passkey again (before an export, an erasure).
    PASSKEY_ADDED = "passkey_added"
    PASSKEY_REMOVED = "passkey_removed"
    # A passkey's signature counter went backwards (a cloned authenticator?): refused.
    PASSKEY_REPLAYED = "passkey_replayed"
    LEAD_VIEWED = "lead_viewed"  # Opened a lead's own page.
    STAGE_CHANGED = "stage_changed"  # Moved a lead in the agency's pipeline.
    NOTE_ADDED = "note_added"  # Wrote a private note on a lead.
    SPAM_REVIEWED = "spam_reviewed"  # Opened the spam review (its leads count as shown).
    SPAM_RELEASED = "spam_released"  # "No es spam": the lead delivered as if just arrived.
    SPAM_CONFIRMED = "spam_confirmed"  # "Es spam".
    INBOX_EXPORTED = "inbox_exported"  # The inbox as CSV (detail: its filters).
    # A booking answered from the calendar (lead: the booking's), as its e-mail's links do.
    BOOKING_CONFIRMED = "booking_confirmed"
    BOOKING_DECLINED = "booking_declined"
    BOOKING_CANCELLED = "booking_cancelled"
    BOOKING_MOVED = "booking_moved"
    BOOKING_ATTENDED = "booking_attended"
    BOOKING_NO_SHOW = "booking_no_show"
    # A privacy request's steps (request: its number; digest: its address's email_digest).
    PRIVACY_RECORDED = "privacy_recorded"
    PRIVACY_VIEWED = "privacy_viewed"  # What the site holds of the address was shown.
    PRIVACY_EXPORTED = "privacy_exported"
    PRIVACY_ERASED = "privacy_erased"
    PRIVACY_CLOSED = "privacy_closed"


def record(
    bind: sa.Engine | sa.Connection,
    person_id: int | None,
    action: AuditAction,
    *,
    lead_id: int | None = None,
    request_id: int | None = None,
    subject_id: int | None = None,
    digest: str | None = None,
    at: dt.datetime | None = None,
    detail: str | None = None,
) -> None:
    """Write one line: ``person_id`` (None: the operator's command on the server) did
    ``action`` to a lead, a privacy request, a desk person (``subject_id``) or an address
    (its ``digest``), ``at`` (now); ``detail``: what else says what it did, never personal
    data (an export's filters). With a ``Connection``, in its transaction."""
    statement = sa.insert(DeskAudit).values(
        at=at or dt.datetime.now(dt.UTC),
        person_id=person_id,
        action=str(AuditAction(action)),
        lead_id=lead_id,
        request_id=request_id,
        subject_id=subject_id,
        digest=digest,
        detail=detail[:DETAIL_MAX] if detail else None,
    )
    if isinstance(bind, sa.Connection):
        bind.execute(statement)
        return
    with bind.begin() as connection:
        connection.execute(statement)


@dataclass(frozen=True)
class Page:
    """One page of the log, newest first, and the id to continue from (None: the end)."""

    lines: list[DeskAudit]
    before: int | None


def read(
    engine: sa.Engine, *, before: int | None = None, lead_id: int | None = None, size: int = 50
) -> Page:
    """The newest ``size`` lines (before the line ``before``; of one lead if given)."""
    query = sa.select(DeskAudit).order_by(col(DeskAudit.id).desc()).limit(size + 1)
    if before is not None:
        query = query.where(col(DeskAudit.id) < before)
    if lead_id is not None:
        query = query.where(DeskAudit.lead_id == lead_id)
    with engine.connect() as connection:
        rows = [DeskAudit.model_validate(row._mapping) for row in connection.execute(query)]
    more = len(rows) > size
    lines = rows[:size]
    return Page(lines, lines[-1].id if more and lines else None)


def cutoff(months: int, now: dt.datetime) -> dt.datetime:
    """Lines written before this moment are past their keeping."""
    return months_before(now, months)


def purge(engine: sa.Engine, months: int, now: dt.datetime) -> int:
    """Delete the lines older than ``months``; how many."""
    with engine.begin() as connection:
        return connection.execute(
            sa.delete(DeskAudit).where(col(DeskAudit.at) < cutoff(months, now))
        ).rowcount

"""The desk's tables: the agency's people, their passkeys, one-time invites, WebAuthn
challenges, sign-in sessions and the audit log (migration ``e7c3a1f9b250``); the agency's
own pipeline stage of a lead and its private notes on it (migration ``f3b9d2c7e481``:
personal data about the lead's person, deleted with the lead); the privacy requests
(``c5e8a2d4f716``).

Nothing here holds a secret a reader of the database could use: an invite and a session
are named by a random token the browser holds, and the table keeps only its SHA-256
(``tokens.digest``); a challenge is kept by its digest too; a passkey is a public key.
The audit log keeps ids and digests, never a copy of a lead's personal data.

Also the index the inbox reads the leads through, newest first (``ix_leads_created_at_id``:
``created_at`` then ``id``, so one keyset page is one range of the index); it belongs to
the ``leads`` table and is declared here because only the desk reads through it.
"""

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from agency_site.leads.models import EMAIL_KEY_MAX, Lead, utcnow

# The inbox's order: received (then id, for leads received at the same instant).
LEADS_BY_ARRIVAL = sa.Index(
    "ix_leads_created_at_id", Lead.__table__.c.created_at, Lead.__table__.c.id
)
# Hex SHA-256.
DIGEST_LENGTH = 64
# The label a person types for a passkey ("Portátil", "iPhone de Ana").
LABEL_MAX = 60
NAME_MAX = 120
# An audit line's detail; a note's text.
DETAIL_MAX = 200
NOTE_MAX = 2000


class DeskPerson(SQLModel, table=True):
    """A person of the agency who may sign in (created by the first invite)."""

    __tablename__ = "desk_people"
    __table_args__ = (sa.Index("ux_desk_people_email", "email", unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    # ``leads.models.email_key`` of the address the invite was made for.
    email: str = Field(max_length=EMAIL_KEY_MAX)
    name: str | None = Field(default=None, max_length=NAME_MAX)
    # WebAuthn's user handle: random, never the address (the authenticator keeps it).
    user_handle: str = Field(max_length=88)
    created_at: dt.datetime = Field(default_factory=utcnow)


class DeskPasskey(SQLModel, table=True):
    """One passkey of a person: its public key, as enrolled, and its use."""

    __tablename__ = "desk_passkeys"
    __table_args__ = (
        sa.Index("ux_desk_passkeys_credential_id", "credential_id", unique=True),
        sa.Index("ix_desk_passkeys_person_id", "person_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(foreign_key="desk_people.id", ondelete="CASCADE")
    # base64url of the credential's id, as the browser's JSON names it.
    credential_id: str = Field(max_length=1400)
    public_key: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False))
    sign_count: int = Field(default=0, sa_column=sa.Column(sa.BigInteger, nullable=False))
    # How the browser may reach it (internal, hybrid, usb...): a hint for the next ceremony.
    transports: list[str] = Field(
        default_factory=list, sa_column=sa.Column(sa.JSON, nullable=False)
    )
    label: str = Field(default="", max_length=LABEL_MAX)
    created_at: dt.datetime = Field(default_factory=utcnow)
    last_used_at: dt.datetime | None = None


class DeskInvite(SQLModel, table=True):
    """A one-time link that enrolls a person's passkey: valid ``invites.VALID`` once."""

    __tablename__ = "desk_invites"
    __table_args__ = (sa.Index("ux_desk_invites_token_digest", "token_digest", unique=True),)

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(foreign_key="desk_people.id", ondelete="CASCADE")
    token_digest: str = Field(max_length=DIGEST_LENGTH)
    created_at: dt.datetime = Field(default_factory=utcnow)
    expires_at: dt.datetime
    used_at: dt.datetime | None = None


class DeskChallenge(SQLModel, table=True):
    """A WebAuthn challenge the server issued: used once, within minutes, for one purpose
    (and one person, or one invite)."""

    __tablename__ = "desk_challenges"
    __table_args__ = (
        sa.Index("ux_desk_challenges_digest", "digest", unique=True),
        sa.Index("ix_desk_challenges_expires_at", "expires_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    digest: str = Field(max_length=DIGEST_LENGTH)
    purpose: str = Field(max_length=20)
    person_id: int | None = None
    invite_id: int | None = None
    expires_at: dt.datetime


class DeskSession(SQLModel, table=True):
    """A signed-in browser: its cookie's random token, by digest; ends when idle or old."""

    __tablename__ = "desk_sessions"
    __table_args__ = (
        sa.Index("ux_desk_sessions_token_digest", "token_digest", unique=True),
        sa.Index("ix_desk_sessions_person_id", "person_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(foreign_key="desk_people.id", ondelete="CASCADE")
    token_digest: str = Field(max_length=DIGEST_LENGTH)
    created_at: dt.datetime = Field(default_factory=utcnow)
    last_seen_at: dt.datetime = Field(default_factory=utcnow)
    # The last time this session's person proved it with a passkey (its sign-in, or a
    # confirmation since): export and erase ask for one within ``sessions.FRESH``.
    fresh_at: dt.datetime = Field(default_factory=utcnow)


class DeskAudit(SQLModel, table=True):
    """One line of the audit log: who did what to which lead, request or person, when.

    Ids and digests only (``digest``: e.g. ``leads.models.email_digest`` of an address a
    request is about), never a copy of personal data. ``person_id`` is who did it (None:
    the operator's command on the server); the ids are kept as numbers, not foreign keys,
    so a line outlives what it names (an erased lead, a removed person).
    """

    __tablename__ = "desk_audit"
    __table_args__ = (
        sa.Index("ix_desk_audit_at", "at"),
        sa.Index("ix_desk_audit_lead_id", "lead_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    at: dt.datetime = Field(default_factory=utcnow)
    person_id: int | None = None
    action: str = Field(max_length=40)
    lead_id: int | None = None
    request_id: int | None = None
    # Another desk person the action was about (an invite, a passkey's owner).
    subject_id: int | None = None
    digest: str | None = Field(default=None, max_length=DIGEST_LENGTH)
    # What else says what the line did, never personal data: an export's filters
    # (``form=quote&status=delivered``; the search text is kept as its ``digest`` only).
    detail: str | None = Field(default=None, max_length=DETAIL_MAX)


class DeskLeadStage(SQLModel, table=True):
    """Where the agency stands with a lead (``pipeline.Stage``: new, contacted, won,
    lost): no row is ``new``. Deleted with its lead (``purge_plugin.DeskPlugin.forget``;
    the foreign key's cascade on PostgreSQL)."""

    __tablename__ = "desk_lead_stages"

    lead_id: int = Field(primary_key=True, foreign_key="leads.id", ondelete="CASCADE")
    stage: str = Field(max_length=12)
    changed_at: dt.datetime = Field(default_factory=utcnow)
    person_id: int | None = None


class DeskNote(SQLModel, table=True):
    """A private note of a person of the agency on a lead (``NOTE_MAX`` characters):
    personal data about the lead's person, deleted with the lead (``DeskLeadStage``'s
    way)."""

    __tablename__ = "desk_lead_notes"
    __table_args__ = (sa.Index("ix_desk_lead_notes_lead_id", "lead_id"),)

    id: int | None = Field(default=None, primary_key=True)
    lead_id: int = Field(foreign_key="leads.id", ondelete="CASCADE")
    person_id: int | None = None
    at: dt.datetime = Field(default_factory=utcnow)
    text: str = Field(max_length=NOTE_MAX)


class DeskPrivacyRequest(SQLModel, table=True):
    """A privacy request (the RGPD's rights) the agency recorded: who, which right, when it
    came; what the desk did (exported, erased); when it was closed and how.

    The address is kept while the request is open (to find, export and erase); closing it
    clears ``email`` and ``by_hand``: what stays proves the answer without the person's
    data (the address's ``email_digest``, the right, the dates, the outcome, the number of
    leads erased), for ``DESK_AUDIT_MONTHS`` after the closing, as the audit log's lines
    about it (migration ``c5e8a2d4f716``; docs/desk.md).
    """

    __tablename__ = "desk_privacy_requests"
    __table_args__ = (sa.Index("ix_desk_privacy_requests_closed_on", "closed_on"),)

    id: int | None = Field(default=None, primary_key=True)
    # The address as the agency typed it, while open (None once closed).
    email: str | None = Field(default=None, max_length=EMAIL_KEY_MAX)
    # ``leads.models.email_digest`` of the address: kept after the closing.
    email_digest: str = Field(max_length=DIGEST_LENGTH)
    right: str = Field(max_length=20)  # ``privacy_requests.PrivacyRight``
    received_on: dt.date
    recorded_at: dt.datetime = Field(default_factory=utcnow)
    exported_at: dt.datetime | None = None
    erased_at: dt.datetime | None = None
    erased_leads: int | None = None
    # What the agency must still delete by hand after the erasure (destinations and the
    # ids they answered, never personal data), while open.
    by_hand: list[dict[str, Any]] | None = Field(default=None, sa_column=sa.Column(sa.JSON))
    closed_on: dt.date | None = None
    outcome: str | None = Field(default=None, max_length=20)  # ``PrivacyOutcome``


TABLES: tuple[Any, ...] = (
    DeskPerson,
    DeskPasskey,
    DeskInvite,
    DeskChallenge,
    DeskSession,
    DeskAudit,
    DeskLeadStage,
    DeskNote,
    DeskPrivacyRequest,
)

"""The ``leads`` table: every valid submission, written before any e-mail is attempted."""

import datetime as dt
import hashlib
import unicodedata
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from agency_site.leads.statuses import LeadStatus
from agency_site.rules import EMAIL_MAX

# Longest ``email_key`` of an address validation accepts (at most ``EMAIL_MAX``
# characters, already NFC): case folding turns one character into three at most
# (``ΐ``, ``ﬃ``), so a 130-character Greek address folds to 378.
EMAIL_KEY_MAX = 3 * EMAIL_MAX


def utcnow() -> dt.datetime:
    """The current time, timezone-aware in UTC (how the table stores every timestamp)."""
    return dt.datetime.now(dt.UTC)


def email_key(address: str) -> str:
    """An e-mail address as the table matches it: NFC, trimmed, case-folded (any script).

    SQLite's ``lower()`` folds ASCII only, so every lookup (find, erase, purge) compares
    this value, computed once in Python when stored.
    """
    return unicodedata.normalize("NFC", address.strip()).casefold()


def email_digest(address: str) -> str:
    """A one-way digest of ``email_key(address)``: what the erasure log keeps instead
    of the address itself."""
    return hashlib.sha256(email_key(address).encode()).hexdigest()


# Domains whose mailboxes ignore dots in the local part (googlemail.com is gmail.com).
_DOTLESS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def mailbox_key(address: str) -> str:
    """The mailbox an address reaches, as far as the auto-reply allowance is concerned:
    ``email_key`` without a ``+tag`` in the local part (any domain) nor, at Gmail, its
    dots, so ``A.na+1@googlemail.com`` is ``ana@gmail.com``. Wider than ``email_key``
    on purpose: one mailbox cannot get a second auto-reply by spelling itself anew."""
    local, at, domain = email_key(address).rpartition("@")
    if not at:
        return email_key(address)
    local = local.split("+", 1)[0]
    if domain in _DOTLESS:
        local, domain = local.replace(".", ""), _DOTLESS[domain]
    return f"{local}@{domain}"


def mailbox_digest(address: str) -> str:
    """A one-way digest of ``mailbox_key(address)``: the auto-reply allowance's key."""
    return hashlib.sha256(mailbox_key(address).encode()).hexdigest()


class Lead(SQLModel, table=True):
    """A visitor's request and the state of its delivery to the agency's inbox."""

    __tablename__ = "leads"
    __table_args__ = (
        sa.Index("ix_leads_status_next_attempt_at", "status", "next_attempt_at"),
        sa.Index("ux_leads_idempotency_key", "idempotency_key", unique=True),
        sa.Index("ix_leads_email_norm", "email_norm"),
        # The last delivery (store.summary, polled): max(sent_at) read from the index's end.
        sa.Index("ix_leads_sent_at", "sent_at"),
        # SQLite too never hands out an id again (an erased lead's), as PostgreSQL's
        # sequence does not: a booking link names its lead's id.
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=20)
    fields: dict[str, Any] = Field(
        default_factory=dict, sa_column=sa.Column(sa.JSON, nullable=False)
    )
    created_at: dt.datetime = Field(default_factory=utcnow)
    status: str = Field(default=LeadStatus.QUEUED, max_length=20)
    attempts: int = 0
    # Sends whose outcome is unknown: no answer after the request went out, or a worker
    # that died holding the claim. A later send of such a lead is marked as a resend.
    unconfirmed_sends: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    last_error: str | None = Field(default=None, sa_column=sa.Column(sa.Text))
    next_attempt_at: dt.datetime | None = None
    sent_at: dt.datetime | None = None
    # The worker sending it right now, and until when its claim holds.
    claim_token: str | None = Field(default=None, max_length=64)
    claimed_until: dt.datetime | None = None
    # Fingerprint of the EmailJS settings that refused it (status HELD).
    held_config: str | None = Field(default=None, max_length=64)
    # The key the visitor's page sent (or the server made): one submission tried over the
    # websocket and the HTTP path, or spooled and drained, is stored once (unique).
    idempotency_key: str | None = Field(default=None, max_length=64)
    # ``email_key`` of ``fields["email"]``: what find, erase and purge compare.
    email_norm: str | None = Field(default=None, max_length=EMAIL_KEY_MAX)
    # Whether this lead's send may trigger the visitor's auto-reply (one per address and day).
    autoreply: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    # Where it came from (``leads/source.py``): the page, the visit's entry page, utm_*,
    # the referring host, as the browser told them (checked); None when it told nothing.
    source: dict[str, str] | None = Field(default=None, sa_column=sa.Column(sa.JSON))
    # The language of the page its form was sent from (``agency_site.locale``): the
    # visitor's e-mails go out in it.
    language: str = Field(default="es", max_length=8, sa_column_kwargs={"server_default": "es"})
    # Why it was taken for spam (a ``SpamReason``); kept when the owner releases it, so
    # the checks' false alarms can be counted.
    spam_reason: str | None = Field(default=None, max_length=20)
    # When the owner was first shown it while taken for spam (the daily spam digest
    # delivered, the desk's spam page, ``leads spam``): purged LEADS_SPAM_KEEP_DAYS after
    # that, never before (``rgpd.py``). None: not shown yet.
    spam_listed_at: dt.datetime | None = None
    # When the owner confirmed it is spam (the desk's "Es spam"): the review it was kept
    # for is done, so it goes a day later (``rgpd.CONFIRMED_SPAM_GRACE``), not
    # LEADS_SPAM_KEEP_DAYS after it was shown. None: not confirmed.
    spam_confirmed_at: dt.datetime | None = None


class AttemptOutcome(StrEnum):
    """How one delivery attempt of a lead's e-mail ended (a ``lead_attempts`` row)."""

    SENT = "sent"
    RETRY = "retry"  # Failed (or no answer): queued again.
    HELD = "held"  # EmailJS refused the configuration: held until it changes.
    REJECTED = "rejected"  # EmailJS refused its content (or its e-mail cannot be made).


# Longest provider answer an attempt keeps (EmailJS's short text, "HTTP 400: ...").
ATTEMPT_ANSWER_MAX = 200


class LeadAttempt(SQLModel, table=True):
    """One recorded delivery attempt of a lead's e-mail: when, how it ended, and the
    provider's short answer (bounded; never the lead's data). Written in the transaction
    that records the outcome on the lead (``claims.py``), so the two always agree; deleted
    with its lead (``rgpd.py``; and by the foreign key's cascade on PostgreSQL)."""

    __tablename__ = "lead_attempts"
    __table_args__ = (sa.Index("ix_lead_attempts_lead_id", "lead_id"),)

    id: int | None = Field(default=None, primary_key=True)
    lead_id: int = Field(foreign_key="leads.id", ondelete="CASCADE")
    at: dt.datetime = Field(default_factory=utcnow)
    outcome: str = Field(max_length=10)
    answer: str = Field(default="", max_length=ATTEMPT_ANSWER_MAX)


class LeadAutoreply(SQLModel, table=True):
    """One row per mailbox (``mailbox_digest``) and agency day that already got the
    visitor auto-reply.

    Inserted at most once (primary key), so the allowance holds across workers and hosts.
    """

    __tablename__ = "lead_autoreplies"

    email_hash: str = Field(primary_key=True, max_length=64)
    day: dt.date = Field(primary_key=True)


class LeadMonitor(SQLModel, table=True):
    """Shared state of the owner's side, one row per job, so every worker and host agrees.

    ``held_alert``: ``state`` is ``ok`` or ``held``, the last state the owner was told.
    ``canary``, ``purge`` and ``spam_digest``: ``due_at`` is when a worker may next run
    the job; it is claimed with a conditional UPDATE, so one worker runs it at a time.
    """

    __tablename__ = "lead_monitor"

    name: str = Field(primary_key=True, max_length=32)
    state: str = Field(default="", max_length=20)
    due_at: dt.datetime | None = None
    changed_at: dt.datetime | None = None


class LeadWebhook(SQLModel, table=True):
    """One event of a lead for one webhook endpoint (``webhooks/channel.py``): queued in the
    transaction that stores the lead (or changes its booking), then claimed, sent, retried
    on its own schedule, independent of the lead's e-mail."""

    __tablename__ = "lead_webhooks"
    __table_args__ = (
        sa.Index("ix_lead_webhooks_status_next_attempt_at", "status", "next_attempt_at"),
        sa.Index("ix_lead_webhooks_lead_id", "lead_id"),
        # One message per endpoint: an event queued twice is sent once.
        sa.Index("ux_lead_webhooks_message", "message_id", "endpoint", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    lead_id: int
    # The event (``lead.created``, ``booking.confirmed``...) and its ``webhook-id``: the
    # lead's idempotency key and the event, so receivers deduplicate a retried message.
    event: str = Field(max_length=40)
    message_id: str = Field(max_length=160)
    # ``webhooks.endpoint_key`` of the URL: the URL itself may carry a token.
    endpoint: str = Field(max_length=16)
    # What the event adds to the lead's body (a booking's state at that moment).
    data: dict[str, Any] | None = Field(default=None, sa_column=sa.Column(sa.JSON))
    created_at: dt.datetime = Field(default_factory=utcnow)
    status: str = Field(default="queued", max_length=20)
    attempts: int = 0
    next_attempt_at: dt.datetime | None = None
    claim_token: str | None = Field(default=None, max_length=64)
    claimed_until: dt.datetime | None = None
    last_error: str | None = Field(default=None, sa_column=sa.Column(sa.Text))
    sent_at: dt.datetime | None = None
    # What the receiver answered as its own id for the message, if it did (a CRM's record).
    remote_id: str | None = Field(default=None, max_length=200)


class LeadWebhookEndpoint(SQLModel, table=True):
    """The state of one webhook endpoint, shared by every worker: ``active``, or
    ``paused`` (answered 410 Gone, or failing for a day) until the operator's
    ``leads retry``. ``failing_since``: its first failure since its last success."""

    __tablename__ = "lead_webhook_endpoints"

    endpoint: str = Field(primary_key=True, max_length=16)
    state: str = Field(default="active", max_length=20)
    failing_since: dt.datetime | None = None
    last_error: str | None = Field(default=None, sa_column=sa.Column(sa.Text))
    changed_at: dt.datetime | None = None

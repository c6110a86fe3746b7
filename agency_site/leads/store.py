"""Reading and writing the ``leads`` table; every state change is one conditional UPDATE.

Several backend workers (and the operator command) share the table, so a lead is
claimed with ``UPDATE … WHERE <still claimable>`` and a rowcount check: exactly
one claimer wins, and only the claimer may record how its attempt went.
"""

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
import sqlalchemy.orm
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from agency_site.bookings import slots
from agency_site.bookings.models import Booking
from agency_site.forms.kinds import LeadKind
from agency_site.leads.kinds import LeadStatus
from agency_site.leads.models import (
    Lead,
    LeadAutoreply,
    LeadMonitor,
    email_digest,
    email_key,
    mailbox_digest,
    utcnow,
)
from agency_site.locale import DEFAULT_LOCALE

# Longest error text kept per lead.
_ERROR_MAX = 1000


def _claimable(now: dt.datetime) -> sa.ColumnElement[bool]:
    """Queued leads that are due, or claims whose holder gave up (crashed) before finishing."""
    return sa.or_(
        sa.and_(Lead.status == LeadStatus.QUEUED, col(Lead.next_attempt_at) <= now),
        sa.and_(Lead.status == LeadStatus.SENDING, col(Lead.claimed_until) < now),
    )


def _email_is(email: str) -> sa.ColumnElement[bool]:
    """Leads of this address, whatever its case or script (``email_key``, stored once)."""
    return Lead.email_norm == email_key(email)


def _forget_orphan_bookings(connection: sa.Connection) -> None:
    """Delete the bookings (freeing their slots) of leads just deleted: PostgreSQL cascades,
    SQLite does not enforce foreign keys, so both are told."""
    connection.execute(sa.delete(Booking).where(col(Booking.lead_id).not_in(select(Lead.id))))


@dataclass(frozen=True)
class Slot:
    """A booking's slot, to hold in the transaction that stores its lead."""

    date: dt.date
    time: str
    daily_limit: int = 0
    strict: bool = True  # False: a slot already taken is not an error (a drained lead).
    network: str | None = None  # The requester's ``slots.network_digest``.

    def claim(self, session: Session, lead_id: int) -> None:
        try:
            with session.begin_nested():
                slots.claim(session, lead_id, self.date, self.time, self.daily_limit, self.network)
        except (slots.SlotTaken, slots.DayFull):
            if self.strict:
                raise
            slots.store_without_slot(session, lead_id, self.date, self.time, self.network)


class DuplicateSubmission(Exception):
    """A lead with this idempotency key is already stored (the same submission again)."""

    def __init__(self, lead_id: int, status: str) -> None:
        super().__init__(f"lead {lead_id} has this idempotency key ({status})")
        self.lead_id = lead_id
        self.status = status


def _aware(moment: dt.datetime | None) -> dt.datetime | None:
    """Aggregates come back naive from SQLite: the table stores UTC."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment


@dataclass(frozen=True)
class LeadSummary:
    """Counts of waiting leads, the oldest one's arrival and the last delivery."""

    queued: int
    sending: int
    held: int
    oldest_waiting_at: dt.datetime | None
    last_sent_at: dt.datetime | None
    rejected: int = 0  # Refused by EmailJS for their content: for the owner to see.


class LeadStore:
    """The leads table behind one SQLAlchemy engine (SQLite file or Postgres)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    def add(
        self, kind: LeadKind, fields: dict[str, Any], *, claim_token: str | None, **options: Any
    ) -> int:
        """Store a new lead and return its id (``add_lead``'s options)."""
        lead = self.add_lead(kind, fields, claim_token=claim_token, **options)
        assert lead.id is not None
        return lead.id

    def add_lead(
        self,
        kind: LeadKind,
        fields: dict[str, Any],
        *,
        claim_token: str | None,
        lease: dt.timedelta,
        idempotency_key: str | None = None,
        autoreply_day: dt.date | None = None,
        created_at: dt.datetime | None = None,
        slot: Slot | None = None,
        source: dict[str, str] | None = None,
        language: str = DEFAULT_LOCALE,
        spam: bool = False,
    ) -> Lead:
        """Store a new lead and return it (``language``: its form's page's).

        With ``claim_token`` the caller holds it and sends it right away; without, it
        waits queued for the retry loop (delivery not configured, or drained from the
        spool). ``idempotency_key``: raises ``DuplicateSubmission`` when a lead with it
        is already stored (nothing is written). ``autoreply_day``: the agency's day, for a
        lead whose send may trigger the visitor's auto-reply; it does only if its address
        has not had one that day (claimed in the same transaction as the insert).
        ``slot``: a booking's date and time, held in the same transaction (``bookings``):
        raises ``SlotTaken`` or ``DayFull`` (nothing is written) unless ``slot.strict`` is
        False (a lead drained from the spool: stored anyway, holding no slot).
        ``spam``: stored as ``SPAM`` (its honeypot was filled), never sent until released.
        """
        now = utcnow()
        email = fields.get("email")
        lead = Lead(
            kind=kind,
            fields=fields,
            created_at=created_at or now,
            status=LeadStatus.SPAM
            if spam
            else (LeadStatus.SENDING if claim_token else LeadStatus.QUEUED),
            next_attempt_at=None if spam else now,
            claim_token=claim_token,
            claimed_until=now + lease if claim_token else None,
            idempotency_key=idempotency_key,
            email_norm=email_key(email) if isinstance(email, str) else None,
            source=source or None,
            language=language,
        )
        try:
            with Session(self.engine, expire_on_commit=False) as session:
                if autoreply_day is not None and isinstance(email, str):
                    lead.autoreply = self._claim_autoreply(session, email, autoreply_day)
                session.add(lead)
                session.flush()  # The idempotency key's unique index speaks first.
                if slot is not None:
                    assert lead.id is not None
                    slot.claim(session, lead.id)
                session.commit()
                return lead
        except sa.exc.IntegrityError:
            existing = self.by_key(idempotency_key) if idempotency_key else None
            if existing is None or existing.id is None:
                raise
            raise DuplicateSubmission(existing.id, existing.status) from None

    @staticmethod
    def _claim_autoreply(session: Session, email: str, day: dt.date) -> bool:
        """Take this mailbox's auto-reply of ``day`` (``mailbox_key``: Gmail's dots and
        any ``+tag`` make no new one); False when it was already taken."""
        values = {"email_hash": mailbox_digest(email), "day": day}
        dialect = session.get_bind().dialect.name
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        statement = (
            insert(LeadAutoreply)
            .values(**values)
            .on_conflict_do_nothing()
            .returning(col(LeadAutoreply.day))
        )
        return session.execute(statement).first() is not None

    def by_key(self, idempotency_key: str) -> Lead | None:
        """The lead stored with this idempotency key, if any."""
        query = select(Lead).where(Lead.idempotency_key == idempotency_key)
        with Session(self.engine, expire_on_commit=False) as session:
            return session.exec(query).first()

    def get(self, lead_id: int) -> Lead | None:
        """One lead by id."""
        with Session(self.engine, expire_on_commit=False) as session:
            return session.get(Lead, lead_id)

    def all(self, status: LeadStatus | None = None) -> list[Lead]:
        """Every lead (optionally of one status), oldest first."""
        query = select(Lead).order_by(col(Lead.id))
        if status is not None:
            query = query.where(Lead.status == status)
        with Session(self.engine, expire_on_commit=False) as session:
            return list(session.exec(query).all())

    def claim_due(self, token: str, lease: dt.timedelta, limit: int = 20) -> list[Lead]:
        """Claim up to ``limit`` leads due for an attempt; a lead is claimed by one caller only.

        A claim makes the lead due again when it expires: if its worker dies on it, it
        comes back behind the leads already waiting, never first in line again.
        """
        now = utcnow()
        # A few spare candidates: another worker may win some of them first.
        candidates = (
            select(Lead.id)
            .where(_claimable(now))
            .order_by(col(Lead.next_attempt_at))
            .limit(limit + 10)
        )
        with Session(self.engine, expire_on_commit=False) as session:
            ids = list(session.exec(candidates).all())
        claimed: list[int] = []
        for lead_id in ids:
            if len(claimed) == limit:
                break
            if self._update(
                sa.and_(Lead.id == lead_id, _claimable(now)),
                # Taking over an expired claim: its holder died mid-send, maybe after
                # EmailJS had the e-mail.
                unconfirmed_sends=Lead.unconfirmed_sends
                + sa.case((Lead.status == LeadStatus.SENDING, 1), else_=0),
                status=LeadStatus.SENDING,
                claim_token=token,
                claimed_until=now + lease,
                next_attempt_at=now + lease,
            ):
                claimed.append(lead_id)
        return [lead for lead_id in claimed if (lead := self.get(lead_id)) is not None]

    def mark_sent(self, lead_id: int, token: str) -> bool:
        """Record a delivered lead (only by the worker that claimed it)."""
        return self._finish(lead_id, token, status=LeadStatus.SENT, sent_at=utcnow())

    def mark_retry(
        self,
        lead_id: int,
        token: str,
        error: str,
        delay: dt.timedelta,
        *,
        unconfirmed: bool = False,
    ) -> bool:
        """Put a lead back in the queue after a failed attempt, due again after ``delay``.

        ``unconfirmed``: the request went out without an answer; EmailJS may have it.
        """
        return self._finish(
            lead_id,
            token,
            unconfirmed_sends=Lead.unconfirmed_sends + int(unconfirmed),
            status=LeadStatus.QUEUED,
            last_error=error[:_ERROR_MAX],
            next_attempt_at=utcnow() + delay,
        )

    def mark_held(self, lead_id: int, token: str, error: str, config: str) -> bool:
        """Hold a lead the provider refused for configuration ``config`` until it changes."""
        return self._finish(
            lead_id,
            token,
            status=LeadStatus.HELD,
            last_error=error[:_ERROR_MAX],
            held_config=config,
            next_attempt_at=None,
        )

    def release_held(self, config: str) -> int:
        """Queue again the leads held under another configuration than ``config``."""
        return self._update(
            sa.and_(
                Lead.status == LeadStatus.HELD,
                sa.or_(col(Lead.held_config).is_(None), Lead.held_config != config),
            ),
            status=LeadStatus.QUEUED,
            next_attempt_at=utcnow(),
            held_config=None,
        )

    def make_due(self, ids: Sequence[int] = ()) -> int:
        """Operator retry: queued and held leads (all, or only ``ids``) become due now.

        A lead refused for its content is retried only when named by its id.
        """
        condition = col(Lead.status).in_((LeadStatus.QUEUED, LeadStatus.HELD))
        if ids:
            named = (LeadStatus.QUEUED, LeadStatus.HELD, LeadStatus.REJECTED)
            condition = sa.and_(col(Lead.status).in_(named), col(Lead.id).in_(ids))
        return self._update(
            condition, status=LeadStatus.QUEUED, next_attempt_at=utcnow(), held_config=None
        )

    def release_spam(self, lead_id: int, daily_limit: int = 0) -> bool:
        """Queue a lead taken for spam for delivery now; False if it is not spam.

        A booking holds its slot from now on if it is still free; else it is stored
        without it (``slot_lost``), as a booking drained from the spool.
        """
        with Session(self.engine) as session:
            lead = session.get(Lead, lead_id)
            released = session.execute(
                sa.update(Lead)
                .where(Lead.id == lead_id, Lead.status == LeadStatus.SPAM)
                .values(status=LeadStatus.QUEUED, next_attempt_at=utcnow())
            ).rowcount
            if not released or lead is None:
                return False
            if lead.kind == LeadKind.BOOKING:
                date = dt.date.fromisoformat(str(lead.fields["date"]))
                Slot(date, str(lead.fields["time"]), daily_limit, strict=False).claim(
                    session, lead_id
                )
            session.commit()
            return True

    def purge_spam(self, cutoff: dt.datetime) -> int:
        """Delete the leads taken for spam received before ``cutoff``; how many."""
        condition = sa.and_(Lead.status == LeadStatus.SPAM, col(Lead.created_at) < cutoff)
        with self.engine.begin() as connection:
            deleted = connection.execute(sa.delete(Lead).where(condition)).rowcount
            _forget_orphan_bookings(connection)
            return deleted

    def mark_rejected(self, lead_id: int, token: str, error: str) -> bool:
        """Set aside a lead EmailJS refused for its own content: for the owner, never retried."""
        return self._finish(
            lead_id,
            token,
            status=LeadStatus.REJECTED,
            last_error=error[:_ERROR_MAX],
            next_attempt_at=None,
        )

    def claim_held(self, token: str, lease: dt.timedelta) -> Lead | None:
        """Claim the least-tried held lead (the canary's one try), or None if another won it.

        Each try counts in ``attempts``, so the canary rotates among the held leads: one
        the provider keeps refusing never stands in front of the others.
        """
        query = (
            select(Lead.id)
            .where(Lead.status == LeadStatus.HELD)
            .order_by(col(Lead.attempts), col(Lead.id))
        )
        with Session(self.engine) as session:
            lead_id = session.exec(query.limit(1)).first()
        if lead_id is None or not self._update(
            sa.and_(Lead.id == lead_id, Lead.status == LeadStatus.HELD),
            status=LeadStatus.SENDING,
            claim_token=token,
            claimed_until=utcnow() + lease,
        ):
            return None
        return self.get(lead_id)

    def release_all_held(self) -> int:
        """Queue every held lead again, due now (the provider accepts again)."""
        return self._update(
            Lead.status == LeadStatus.HELD,
            status=LeadStatus.QUEUED,
            next_attempt_at=utcnow(),
            held_config=None,
        )

    def summary(self) -> "LeadSummary":
        """What waits and what was delivered: for the health endpoint and the alerts."""
        waiting = col(Lead.status).in_((LeadStatus.QUEUED, LeadStatus.SENDING))
        with Session(self.engine) as session:
            counts = dict(
                session.exec(select(Lead.status, sa.func.count()).group_by(col(Lead.status))).all()
            )
            oldest = session.exec(select(sa.func.min(Lead.created_at)).where(waiting)).one()
            last_sent = session.exec(select(sa.func.max(Lead.sent_at))).one()
        return LeadSummary(
            queued=counts.get(LeadStatus.QUEUED, 0),
            sending=counts.get(LeadStatus.SENDING, 0),
            held=counts.get(LeadStatus.HELD, 0),
            rejected=counts.get(LeadStatus.REJECTED, 0),
            oldest_waiting_at=_aware(oldest),
            last_sent_at=_aware(last_sent),
        )

    def switch_state(self, name: str, old: str, new: str) -> bool:
        """Move the job ``name`` from state ``old`` to ``new``; True for the one caller that did."""
        return bool(
            self._update_monitor(
                sa.and_(LeadMonitor.name == name, LeadMonitor.state == old),
                state=new,
                changed_at=utcnow(),
            )
        )

    def claim_job(self, name: str, every: dt.timedelta) -> bool:
        """Claim the job ``name`` if it is due; it is due again ``every`` from now."""
        now = utcnow()
        return bool(
            self._update_monitor(
                sa.and_(
                    LeadMonitor.name == name,
                    sa.or_(col(LeadMonitor.due_at).is_(None), col(LeadMonitor.due_at) <= now),
                ),
                due_at=now + every,
                changed_at=now,
            )
        )

    def postpone_job(self, name: str, every: dt.timedelta) -> None:
        """Make the job ``name`` due only ``every`` from now."""
        self._update_monitor(LeadMonitor.name == name, due_at=utcnow() + every)

    def monitor_state(self, name: str) -> str:
        """The state of the job ``name``."""
        with Session(self.engine) as session:
            row = session.get(LeadMonitor, name)
            return row.state if row else ""

    def of_email(self, email: str) -> list[Lead]:
        """Every lead of an e-mail address (case-insensitive), oldest first."""
        query = select(Lead).where(_email_is(email)).order_by(col(Lead.id))
        with Session(self.engine, expire_on_commit=False) as session:
            return list(session.exec(query).all())

    def erase_email(self, email: str) -> int:
        """Delete every lead of an e-mail address (any case); how many."""
        with self.engine.begin() as connection:
            hashes = (email_digest(email), mailbox_digest(email))  # Before and since.
            connection.execute(
                sa.delete(LeadAutoreply).where(col(LeadAutoreply.email_hash).in_(hashes))
            )
            deleted = connection.execute(sa.delete(Lead).where(_email_is(email))).rowcount
            _forget_orphan_bookings(connection)
            return deleted

    def erase_digests(self, digests: set[str]) -> int:
        """Delete every lead whose address has one of these ``email_digest``s; how many.

        Re-applies the erasure log after a restore: the log keeps digests, not addresses.
        """
        if not digests:
            return 0
        with Session(self.engine) as session:
            rows = session.exec(select(Lead.id, Lead.email_norm)).all()
        ids = [lead_id for lead_id, norm in rows if norm and email_digest(norm) in digests]
        deleted = 0
        with self.engine.begin() as connection:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                deleted += connection.execute(
                    sa.delete(Lead).where(col(Lead.id).in_(chunk))
                ).rowcount
            connection.execute(
                sa.delete(LeadAutoreply).where(col(LeadAutoreply.email_hash).in_(digests))
            )
            _forget_orphan_bookings(connection)
        return deleted

    def purge(self, cutoff: dt.datetime) -> int:
        """Delete the leads of every person whose last lead was received before ``cutoff``.

        A person is an e-mail address (case-insensitive); all their leads go together,
        once the newest of them (``created_at``) is older than ``cutoff``. Leads being
        sent right now wait for the next purge.
        """
        newer = sa.orm.aliased(Lead)
        same_person_recently = (
            select(newer.id)
            .where(newer.email_norm == Lead.email_norm, col(newer.created_at) >= cutoff)
            .exists()
        )
        condition = sa.and_(
            col(Lead.created_at) < cutoff,
            Lead.status != LeadStatus.SENDING,
            ~same_person_recently,
        )
        with self.engine.begin() as connection:
            deleted = connection.execute(sa.delete(Lead).where(condition)).rowcount
            _forget_orphan_bookings(connection)
            # The auto-reply allowance is only ever needed on its own day.
            yesterday = (utcnow() - dt.timedelta(days=1)).date()
            connection.execute(sa.delete(LeadAutoreply).where(col(LeadAutoreply.day) < yesterday))
            return deleted

    def count(self, status: LeadStatus) -> int:
        """How many leads have ``status``."""
        query = select(sa.func.count()).select_from(Lead).where(Lead.status == status)
        with Session(self.engine) as session:
            return session.exec(query).one()

    def _finish(self, lead_id: int, token: str, **values: Any) -> bool:
        """Record the end of an attempt, if ``token`` still holds the claim."""
        return bool(
            self._update(
                sa.and_(
                    Lead.id == lead_id,
                    Lead.status == LeadStatus.SENDING,
                    Lead.claim_token == token,
                ),
                attempts=Lead.attempts + 1,
                claim_token=None,
                claimed_until=None,
                **values,
            )
        )

    def _update_monitor(self, condition: sa.ColumnElement[bool], **values: Any) -> int:
        with self.engine.begin() as connection:
            result = connection.execute(sa.update(LeadMonitor).where(condition).values(**values))
            return result.rowcount

    def _update(self, condition: sa.ColumnElement[bool], **values: Any) -> int:
        """One conditional UPDATE in its own transaction; the number of rows it changed."""
        with self.engine.begin() as connection:
            result = connection.execute(sa.update(Lead).where(condition).values(**values))
            return result.rowcount

"""Reading and writing the ``leads`` table; every state change is one conditional UPDATE.

Several backend workers (and the operator command) share the table, so a lead is
claimed with ``UPDATE … WHERE <still claimable>`` and a rowcount check: exactly
one claimer wins, and only the claimer may record how its attempt went.
"""

import datetime as dt
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.leads.kinds import LeadKind, LeadStatus
from agency_site.leads.models import Lead, utcnow

# Longest error text kept per lead.
_ERROR_MAX = 1000


def _claimable(now: dt.datetime) -> sa.ColumnElement[bool]:
    """Queued leads that are due, or claims whose holder gave up (crashed) before finishing."""
    return sa.or_(
        sa.and_(Lead.status == LeadStatus.QUEUED, col(Lead.next_attempt_at) <= now),
        sa.and_(Lead.status == LeadStatus.SENDING, col(Lead.claimed_until) < now),
    )


class LeadStore:
    """The leads table behind one SQLAlchemy engine (SQLite file or Postgres)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    def add(
        self,
        kind: LeadKind,
        fields: dict[str, Any],
        *,
        claim_token: str | None,
        lease: dt.timedelta,
    ) -> int:
        """Store a new lead and return its id.

        With ``claim_token`` the caller holds it and sends it right away; without, it
        waits queued for the retry loop (delivery not configured).
        """
        now = utcnow()
        lead = Lead(
            kind=kind,
            fields=fields,
            created_at=now,
            status=LeadStatus.SENDING if claim_token else LeadStatus.QUEUED,
            next_attempt_at=now,
            claim_token=claim_token,
            claimed_until=now + lease if claim_token else None,
        )
        with Session(self.engine, expire_on_commit=False) as session:
            session.add(lead)
            session.commit()
            assert lead.id is not None
            return lead.id

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
        """Claim up to ``limit`` leads due for an attempt; a lead is claimed by one caller only."""
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
                status=LeadStatus.SENDING,
                claim_token=token,
                claimed_until=now + lease,
            ):
                claimed.append(lead_id)
        return [lead for lead_id in claimed if (lead := self.get(lead_id)) is not None]

    def mark_sent(self, lead_id: int, token: str) -> bool:
        """Record a delivered lead (only by the worker that claimed it)."""
        return self._finish(lead_id, token, status=LeadStatus.SENT, sent_at=utcnow())

    def mark_retry(self, lead_id: int, token: str, error: str, delay: dt.timedelta) -> bool:
        """Put a lead back in the queue after a failed attempt, due again after ``delay``."""
        return self._finish(
            lead_id,
            token,
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
        """Operator retry: queued and held leads (all, or only ``ids``) become due now."""
        condition = col(Lead.status).in_((LeadStatus.QUEUED, LeadStatus.HELD))
        if ids:
            condition = sa.and_(condition, col(Lead.id).in_(ids))
        return self._update(
            condition, status=LeadStatus.QUEUED, next_attempt_at=utcnow(), held_config=None
        )

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

    def _update(self, condition: sa.ColumnElement[bool], **values: Any) -> int:
        """One conditional UPDATE in its own transaction; the number of rows it changed."""
        with self.engine.begin() as connection:
            result = connection.execute(sa.update(Lead).where(condition).values(**values))
            return result.rowcount

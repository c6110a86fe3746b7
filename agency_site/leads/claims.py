"""A lead's delivery states: claimed by one worker, then sent, retried, held or rejected.

Several backend workers (and the operator command) share the table, so a lead is
claimed with a lease (``lease.py``): exactly one claimer wins, and only the claimer (its
token) may record how its attempt went. Each recorded outcome also writes one
``lead_attempts`` row (when, how, the provider's short answer) in the same transaction:
the desk's page of a lead lists them; they go with their lead (``forget_attempts``).
"""

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.leads.lease import Lease, update_rows
from agency_site.leads.models import (
    ATTEMPT_ANSWER_MAX,
    AttemptOutcome,
    Lead,
    LeadAttempt,
    utcnow,
)
from agency_site.leads.statuses import LeadStatus

# Longest error text kept per lead.
ERROR_MAX = 1000


# The e-mail of a lead is the work claimed: one worker sends it, only it records the outcome.
LEASE = Lease(Lead.__table__, LeadStatus.QUEUED, LeadStatus.SENDING)


def forget_attempts(connection: sa.Connection) -> None:
    """In the transaction that just deleted leads: delete their attempts (SQLite does not
    enforce the foreign key's cascade)."""
    connection.execute(
        sa.delete(LeadAttempt).where(col(LeadAttempt.lead_id).not_in(sa.select(Lead.id)))
    )


class Claims:
    """The delivery states of the leads behind ``engine`` (a part of ``LeadStore``)."""

    engine: sa.Engine
    get: Callable[[int], Lead | None]

    def claim_due(self, token: str, lease: dt.timedelta, limit: int = 20) -> list[Lead]:
        """Claim up to ``limit`` leads due for an attempt; a lead is claimed by one caller only.

        A claim makes the lead due again when it expires: if its worker dies on it, it
        comes back behind the leads already waiting, never first in line again.
        """
        claimed = LEASE.claim_due(
            self.engine,
            token,
            lease,
            limit,
            # Taking over an expired claim: its holder died mid-send, maybe after EmailJS
            # had the e-mail.
            unconfirmed_sends=Lead.unconfirmed_sends
            + sa.case((Lead.status == LeadStatus.SENDING, 1), else_=0),
        )
        return [lead for lead_id in claimed if (lead := self.get(lead_id)) is not None]

    def mark_sent(self, lead_id: int, token: str, answer: str = "") -> bool:
        """Record a delivered lead (only by the worker that claimed it); ``answer``: the
        provider's, for its attempt's row."""
        return self._finish(
            lead_id, token, AttemptOutcome.SENT, answer, status=LeadStatus.SENT, sent_at=utcnow()
        )

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
            AttemptOutcome.RETRY,
            error,
            unconfirmed_sends=Lead.unconfirmed_sends + int(unconfirmed),
            status=LeadStatus.QUEUED,
            last_error=error[:ERROR_MAX],
            next_attempt_at=utcnow() + delay,
        )

    def mark_held(self, lead_id: int, token: str, error: str, config: str) -> bool:
        """Hold a lead the provider refused for configuration ``config`` until it changes."""
        return self._finish(
            lead_id,
            token,
            AttemptOutcome.HELD,
            error,
            status=LeadStatus.HELD,
            last_error=error[:ERROR_MAX],
            held_config=config,
            next_attempt_at=None,
        )

    def mark_rejected(self, lead_id: int, token: str, error: str) -> bool:
        """Set aside a lead EmailJS refused for its own content: for the owner, never retried."""
        return self._finish(
            lead_id,
            token,
            AttemptOutcome.REJECTED,
            error,
            status=LeadStatus.REJECTED,
            last_error=error[:ERROR_MAX],
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

    def _finish(
        self, lead_id: int, token: str, outcome: AttemptOutcome, answer: str, **values: Any
    ) -> bool:
        """Record the end of an attempt, if ``token`` still holds the claim, and its
        ``lead_attempts`` row (``outcome``, ``answer`` bounded) in the same transaction."""
        with self.engine.begin() as connection:
            if not LEASE.finish_in(connection, lead_id, token, **values):
                return False
            connection.execute(
                sa.insert(LeadAttempt).values(
                    lead_id=lead_id,
                    at=utcnow(),
                    outcome=str(outcome),
                    answer=" ".join(answer.split())[:ATTEMPT_ANSWER_MAX],
                )
            )
            return True

    def _update(self, condition: sa.ColumnElement[bool], **values: Any) -> int:
        """One conditional UPDATE in its own transaction; the number of rows it changed."""
        return update_rows(self.engine, LEASE.table, condition, **values)

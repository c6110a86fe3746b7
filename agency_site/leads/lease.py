"""A row of work claimed with a lease: one claimer at a time, and only it records the end.

Several backend workers (and the operator command) share a table of work: the leads'
e-mails (``claims.py``), the webhooks' messages (``webhooks/queue.py``). A row is claimed
with ``UPDATE … WHERE <still claimable>`` and a rowcount check, so exactly one claimer
wins it; the claim's token is the only one that may record how the attempt went. A
claim holds until its lease ends: a claimer that dies with it leaves the row claimable
again, due behind the rows already waiting (the claim moved its ``next_attempt_at``).

The table has the columns ``id``, ``status``, ``next_attempt_at``, ``claim_token``,
``claimed_until`` and ``attempts``.
"""

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from agency_site.leads.models import utcnow


def update_rows(
    engine: sa.Engine, table: sa.Table, condition: sa.ColumnElement[bool], **values
) -> int:
    """One conditional UPDATE of ``table`` in its own transaction; how many rows it changed."""
    with engine.begin() as connection:
        return connection.execute(sa.update(table).where(condition).values(**values)).rowcount


def new_claim_token() -> str:
    """A token identifying one claim (of one row or several)."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class Lease:
    """Claims with a lease on the rows of ``table``: ``queued`` ones are claimed when due,
    a claim makes them ``sending`` until the lease ends or the claimer finishes."""

    table: sa.Table
    queued: str
    sending: str

    def claimable(self, now: dt.datetime) -> sa.ColumnElement[bool]:
        """Queued rows that are due, or claims whose holder gave up (died) before finishing."""
        c = self.table.c
        return sa.or_(
            sa.and_(c.status == self.queued, c.next_attempt_at <= now),
            sa.and_(c.status == self.sending, c.claimed_until < now),
        )

    def claim_due(
        self,
        engine: sa.Engine,
        token: str,
        lease: dt.timedelta,
        limit: int = 1,
        *,
        among: sa.ColumnElement[bool] | None = None,
        spare: int = 10,
        now: dt.datetime | None = None,
        **values: Any,
    ) -> list[int]:
        """Claim for ``token`` up to ``limit`` rows due (of those ``among`` selects), due
        longest first; their ids. ``values``: what a claim also sets (the caller's own)."""
        now = utcnow() if now is None else now
        c = self.table.c
        # A few spare candidates: another worker may win some of them first.
        candidates = (
            sa.select(c.id)
            .where(self.claimable(now), sa.true() if among is None else among)
            .order_by(c.next_attempt_at, c.id)
            .limit(limit + spare)
        )
        with engine.connect() as connection:
            ids = list(connection.execute(candidates).scalars())
        claimed: list[int] = []
        for row_id in ids:
            if len(claimed) == limit:
                break
            if self.claim(engine, row_id, token, lease, now=now, **values):
                claimed.append(row_id)
        return claimed

    def claim(
        self,
        engine: sa.Engine,
        row_id: int,
        token: str,
        lease: dt.timedelta,
        *,
        now: dt.datetime | None = None,
        **values: Any,
    ) -> bool:
        """Claim the row ``row_id`` for ``token`` if it is still claimable: True if won."""
        now = utcnow() if now is None else now
        return bool(
            update_rows(
                engine,
                self.table,
                sa.and_(self.table.c.id == row_id, self.claimable(now)),
                status=self.sending,
                claim_token=token,
                claimed_until=now + lease,
                # Due again when the lease ends: behind the rows already waiting.
                next_attempt_at=now + lease,
                **values,
            )
        )

    def finish(self, engine: sa.Engine, row_id: int, token: str, **values: Any) -> bool:
        """Record the end of an attempt (``values``: the row's new status and the rest), if
        ``token`` still holds the claim: True if it did."""
        with engine.begin() as connection:
            return self.finish_in(connection, row_id, token, **values)

    def finish_in(self, connection: sa.Connection, row_id: int, token: str, **values: Any) -> bool:
        """``finish`` in the caller's transaction (which records more with it)."""
        c = self.table.c
        return bool(
            connection.execute(
                sa.update(self.table)
                .where(c.id == row_id, c.status == self.sending, c.claim_token == token)
                .values(attempts=c.attempts + 1, claim_token=None, claimed_until=None, **values)
            ).rowcount
        )

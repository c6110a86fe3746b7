"""The monitor's jobs and alert states, shared by every worker (``lead_monitor`` rows).

Each change is one conditional UPDATE, so of several workers exactly one wins a due job
(``claim_job``) or tells the owner of a new state (``switch_state``).
"""

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col

from agency_site.leads.models import LeadMonitor, utcnow


class Jobs:
    """The ``lead_monitor`` rows behind ``engine`` (a part of ``LeadStore``)."""

    engine: sa.Engine

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

    def _update_monitor(self, condition: sa.ColumnElement[bool], **values: Any) -> int:
        with self.engine.begin() as connection:
            result = connection.execute(sa.update(LeadMonitor).where(condition).values(**values))
            return result.rowcount

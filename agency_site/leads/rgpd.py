"""The person's rights and the retention period: access, erasure and purge of leads.

A person is an e-mail address, whatever its case or script (``email_key``, stored once
in ``email_norm``). Each delete runs in one transaction with the plugins' ``forget``
(a booking's row and slot go with its lead) and the person's auto-reply allowances.
"""

import datetime as dt
from collections.abc import Mapping

import sqlalchemy as sa
import sqlalchemy.orm
from sqlmodel import Session, col, select

from agency_site.leads import allowance, erasures, webhook_queue
from agency_site.leads.kinds import LeadStatus
from agency_site.leads.models import Lead, email_digest, email_key, mailbox_digest
from agency_site.leads.plugins import Plugins


def _email_is(email: str) -> sa.ColumnElement[bool]:
    """Leads of this address, whatever its case or script (``email_key``, stored once)."""
    return Lead.email_norm == email_key(email)


class Rights:
    """Access, erasure and purge of the leads behind ``engine`` (a part of ``LeadStore``)."""

    engine: sa.Engine
    plugins: Plugins

    def of_email(self, email: str) -> list[Lead]:
        """Every lead of an e-mail address (case-insensitive), oldest first."""
        query = select(Lead).where(_email_is(email)).order_by(col(Lead.id))
        with Session(self.engine, expire_on_commit=False) as session:
            return list(session.exec(query).all())

    def erase_email(self, email: str) -> int:
        """Delete every lead of an e-mail address (any case); how many. The webhook
        endpoints their messages reached get a ``lead.erased`` message, in the same
        transaction (``webhook_queue.queue_erasure``)."""
        with self.engine.begin() as connection:
            allowance.forget(connection, (email_digest(email), mailbox_digest(email)))
            ids = connection.execute(sa.select(Lead.id).where(_email_is(email))).scalars()
            webhook_queue.queue_erasure(connection, list(ids))
            deleted = connection.execute(sa.delete(Lead).where(_email_is(email))).rowcount
            self.plugins.forget(connection)
            webhook_queue.forget(connection)
            return deleted

    def erase_digests(self, erased: Mapping[str, dt.datetime]) -> int:
        """Delete every lead an erasure of the log covers (``erased``: when each address's
        ``email_digest`` was last erased): received before it, not the ones the person
        sent afterwards; how many.

        Re-applies the erasure log after a restore: the log keeps digests, not addresses.
        """
        if not erased:
            return 0
        with Session(self.engine) as session:
            rows = session.exec(select(Lead.id, Lead.email_norm, Lead.created_at)).all()
        ids = [
            lead_id
            for lead_id, norm, received in rows
            if norm and erasures.covers(erased.get(email_digest(norm)), received)
        ]
        digests = set(erased)
        deleted = 0
        with self.engine.begin() as connection:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                deleted += connection.execute(
                    sa.delete(Lead).where(col(Lead.id).in_(chunk))
                ).rowcount
            allowance.forget(connection, digests)
            self.plugins.forget(connection)
            webhook_queue.forget(connection)
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
            self.plugins.forget(connection)
            webhook_queue.forget(connection)
            allowance.prune(connection)
            return deleted

    def purge_spam(self, cutoff: dt.datetime) -> int:
        """Delete the leads taken for spam received before ``cutoff``; how many."""
        condition = sa.and_(Lead.status == LeadStatus.SPAM, col(Lead.created_at) < cutoff)
        with self.engine.begin() as connection:
            deleted = connection.execute(sa.delete(Lead).where(condition)).rowcount
            self.plugins.forget(connection)
            webhook_queue.forget(connection)
            return deleted

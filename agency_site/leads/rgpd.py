"""The person's rights and the retention period: access, erasure and purge of leads.

A person is an e-mail address, whatever its case or script (``email_key``, stored once
in ``email_norm``). Each delete runs in one transaction with the plugins' ``forget``
(a booking's row and slot go with its lead) and the person's auto-reply allowances.
Erasure and the retention purge alike queue, in that transaction and before the delete,
a ``lead.erased`` message for every webhook endpoint the leads' messages reached
(``webhooks.queue.queue_erasure``): the copies at the CRMs and chats follow the lead.

A lead taken for spam is purged ``LEADS_SPAM_KEEP_DAYS`` after the owner was **shown**
it (``spam_listed_at``: the daily spam digest delivered, the desk's spam page opened,
``leads spam``), never before: one never shown stays until the general retention
purge, and is counted by ``unlisted_spam_count`` for the health page and the alerts. One
the owner confirmed as spam (the desk's "Es spam", ``spam_confirmed_at``) goes a day after
the confirmation (``CONFIRMED_SPAM_GRACE``): the review it was kept for is done.

Every delete also deletes the leads' delivery attempts (``claims.forget_attempts``) and,
through the plugins' ``forget``, what features keep about them (a booking and its
history, the desk's notes and pipeline stage).
"""

import calendar
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
import sqlalchemy.orm
from sqlmodel import Session, col, select

from agency_site.leads import allowance, erasures
from agency_site.leads.claims import forget_attempts
from agency_site.leads.models import Lead, email_digest, email_key, mailbox_digest, utcnow
from agency_site.leads.plugins import Plugins
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.webhooks import queue as webhook_queue
from agency_site.leads.webhooks.payload import RETENTION
from agency_site.leads.webhooks.queue import ERASURE_CHUNK, Erasure

# A spam lead not shown to the owner this long after it arrived: the daily digest is not
# getting through (a day, and a day of retries).
SPAM_LISTING_LATE = dt.timedelta(days=2)
# A spam lead the owner confirmed ("Es spam") is purged this long after (a misclick can
# still be undone with "No es spam"), not LEADS_SPAM_KEEP_DAYS after it was shown: the
# keeping was for the owner's review, done.
CONFIRMED_SPAM_GRACE = dt.timedelta(days=1)


def months_before(moment: dt.datetime, months: int) -> dt.datetime:
    """The same day and time ``months`` calendar months earlier (the month's last day at most)."""
    year, month_index = divmod(moment.year * 12 + moment.month - 1 - months, 12)
    month = month_index + 1
    return moment.replace(
        year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1])
    )


def retention_cutoff(months: int, now: dt.datetime | None = None) -> dt.datetime:
    """A person's leads are deleted once their last one arrived before this moment."""
    return months_before(now or utcnow(), months)


def spam_purge_after(lead: Lead, keep_days: int) -> dt.datetime | None:
    """From when the daily purge deletes lead taken for spam ``lead`` (``purge_spam``'s
    rule): a day after the owner confirmed it, else ``keep_days`` after it was first
    shown; None: never shown, it waits."""
    moments = []
    if lead.spam_confirmed_at is not None:
        moments.append(_aware(lead.spam_confirmed_at) + CONFIRMED_SPAM_GRACE)
    if lead.spam_listed_at is not None:
        moments.append(_aware(lead.spam_listed_at) + dt.timedelta(days=keep_days))
    return min(moments, default=None)


def _aware(moment: dt.datetime) -> dt.datetime:
    """A stored moment, UTC (SQLite gives it back naive)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _email_is(email: str) -> sa.ColumnElement[bool]:
    """Leads of this address, whatever its case or script (``email_key``, stored once)."""
    return Lead.email_norm == email_key(email)


@dataclass(frozen=True)
class Purged:
    """What a retention purge did: how many leads it deleted, and the ``lead.erased``
    messages it queued for the endpoints their messages had reached."""

    deleted: int
    erasures: tuple[Erasure, ...] = ()


def _unlisted_spam() -> sa.ColumnElement[bool]:
    return sa.and_(Lead.status == LeadStatus.SPAM, col(Lead.spam_listed_at).is_(None))


def mark_spam_listed(engine: sa.Engine, lead_ids: Sequence[int], now: dt.datetime) -> int:
    """Record that the owner was shown these leads taken for spam at ``now`` (the digest
    delivered, the desk's spam page opened): their ``LEADS_SPAM_KEEP_DAYS`` start. A lead
    already shown keeps its first time; one no longer spam is left alone. How many."""
    ids = list(dict.fromkeys(lead_ids))
    marked = 0
    with engine.begin() as connection:
        for start in range(0, len(ids), ERASURE_CHUNK):
            chunk = ids[start : start + ERASURE_CHUNK]
            marked += connection.execute(
                sa.update(Lead)
                .where(col(Lead.id).in_(chunk), _unlisted_spam())
                .values(spam_listed_at=now)
            ).rowcount
    return marked


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
        transaction (``webhooks.queue.queue_erasure``)."""
        with self.engine.begin() as connection:
            allowance.forget(connection, (email_digest(email), mailbox_digest(email)))
            ids = connection.execute(sa.select(Lead.id).where(_email_is(email))).scalars()
            webhook_queue.queue_erasure(connection, list(ids))
            deleted = connection.execute(sa.delete(Lead).where(_email_is(email))).rowcount
            self.plugins.forget(connection)
            webhook_queue.forget(connection)
            forget_attempts(connection)
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
            forget_attempts(connection)
        return deleted

    def purge(self, cutoff: dt.datetime) -> Purged:
        """Delete the leads of every person whose last lead was received before ``cutoff``.

        A person is an e-mail address (case-insensitive); all their leads go together,
        once the newest of them (``created_at``) is older than ``cutoff``. Leads being
        sent right now wait for the next purge. As ``erase_email`` does, each webhook
        endpoint their messages reached gets a ``lead.erased`` message (``retention``)
        in the same transaction, before the delete; the ``lead.erased`` messages done
        before ``cutoff`` go.
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
        deleted, erasures = 0, []
        with self.engine.begin() as connection:
            ids = list(
                connection.execute(sa.select(Lead.id).where(condition).order_by(Lead.id)).scalars()
            )
            for start in range(0, len(ids), ERASURE_CHUNK):
                chunk = ids[start : start + ERASURE_CHUNK]
                erasures += webhook_queue.queue_erasure(connection, chunk, RETENTION)
                deleted += connection.execute(
                    sa.delete(Lead).where(col(Lead.id).in_(chunk), condition)
                ).rowcount
            self.plugins.forget(connection)
            webhook_queue.forget(connection)
            forget_attempts(connection)
            webhook_queue.prune_erasures(connection, cutoff)
            allowance.prune(connection)
        return Purged(deleted, tuple(erasures))

    def purge_spam(self, cutoff: dt.datetime, now: dt.datetime | None = None) -> int:
        """Delete the leads taken for spam that the owner was shown before ``cutoff``
        (``spam_listed_at``), or confirmed as spam ``CONFIRMED_SPAM_GRACE`` before ``now``;
        one never shown stays (until the retention purge). How many."""
        confirmed = (now or utcnow()) - CONFIRMED_SPAM_GRACE
        condition = sa.and_(
            Lead.status == LeadStatus.SPAM,
            sa.or_(
                sa.and_(col(Lead.spam_listed_at).is_not(None), col(Lead.spam_listed_at) < cutoff),
                sa.and_(
                    col(Lead.spam_confirmed_at).is_not(None),
                    col(Lead.spam_confirmed_at) < confirmed,
                ),
            ),
        )
        with self.engine.begin() as connection:  # Never sent: no webhook to tell.
            deleted = connection.execute(sa.delete(Lead).where(condition)).rowcount
            self.plugins.forget(connection)
            webhook_queue.forget(connection)
            forget_attempts(connection)
            return deleted

    def unlisted_spam(self, limit: int) -> list[Lead]:
        """The leads taken for spam the owner was never shown, oldest first (at most
        ``limit``): what the next spam digest lists."""
        query = select(Lead).where(_unlisted_spam()).order_by(col(Lead.id)).limit(limit)
        with Session(self.engine, expire_on_commit=False) as session:
            return list(session.exec(query).all())

    def unlisted_spam_count(
        self, older_than: dt.timedelta = SPAM_LISTING_LATE, now: dt.datetime | None = None
    ) -> int:
        """How many leads taken for spam arrived more than ``older_than`` ago and were
        never shown to the owner (the digest not getting through): kept, not purged, and a
        problem for the health page and the owner's alert."""
        late = col(Lead.created_at) < (now or utcnow()) - older_than
        query = select(sa.func.count()).select_from(Lead).where(_unlisted_spam(), late)
        with Session(self.engine) as session:
            return session.exec(query).one()

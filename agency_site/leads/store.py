"""Reading and writing the ``leads`` table; every state change is one conditional UPDATE.

``LeadStore`` stores a lead (``add_lead``: with its auto-reply allowance and whatever
the plugins hold, in one transaction) and reads it back; its parts each keep one
concern: ``claims.py`` (delivery states: claimed by one worker, sent, retried, held),
``rgpd.py`` (access, erasure, retention purge), ``jobs.py`` (the monitor's shared
rows), ``allowance.py`` (one auto-reply per mailbox and day).
"""

import datetime as dt
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.forms.kinds import LeadKind
from agency_site.leads import allowance
from agency_site.leads.claims import Claims
from agency_site.leads.jobs import Jobs
from agency_site.leads.models import Lead, email_key, utcnow
from agency_site.leads.plugins import OWNER_RELEASE, Hold, Plugins
from agency_site.leads.rgpd import Rights
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.webhooks import queue as webhook_queue
from agency_site.leads.webhooks.payload import LEAD_CREATED
from agency_site.locale import DEFAULT_LOCALE


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


@dataclass(frozen=True)
class Release:
    """How ``LeadStore.release_spam`` ended: whether the lead left quarantine now (the
    object is true then), and what came with it that could not be held, and why (None: all
    held, or nothing to hold)."""

    released: bool
    lost: str | None = None

    def __bool__(self) -> bool:
        return self.released


def _corrected(
    fields: dict[str, Any], idempotency_key: str | None, language: str | None
) -> dict[str, Any]:
    """The values of a lead the visitor corrected: its fields, its address's key, and its
    idempotency key and language when given."""
    email = fields.get("email")
    values: dict[str, Any] = {
        "fields": fields,
        "email_norm": email_key(email) if isinstance(email, str) else None,
    }
    if idempotency_key is not None:
        values["idempotency_key"] = idempotency_key
    if language is not None:
        values["language"] = language
    return values


def _released(claim_token: str | None, lease: dt.timedelta | None) -> dict[str, Any]:
    """The values of a lead released from quarantine: queued, or claimed by its caller
    (``claim_token`` and its ``lease``) to be sent at once."""
    now = utcnow()
    if claim_token is None or lease is None:
        return {"status": LeadStatus.QUEUED, "next_attempt_at": now}
    return {
        "status": LeadStatus.SENDING,
        "next_attempt_at": now + lease,
        "claim_token": claim_token,
        "claimed_until": now + lease,
    }


class LeadStore(Claims, Rights, Jobs):
    """The leads table behind one SQLAlchemy engine (SQLite file or Postgres), and the
    plugins whose hooks run in its transactions (``plugins.py``; none by default)."""

    def __init__(self, engine: sa.Engine, plugins: Plugins | None = None) -> None:
        self.engine = engine
        self.plugins = Plugins() if plugins is None else plugins

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
        hold: Hold | None = None,
        source: dict[str, str] | None = None,
        language: str = DEFAULT_LOCALE,
        spam: SpamReason | None = None,
    ) -> Lead:
        """Store a new lead and return it (``language``: its form's page's).

        With ``claim_token`` the caller holds it and sends it right away; without, it
        waits queued for the retry loop (delivery not configured, or drained from the
        spool). ``idempotency_key``: raises ``DuplicateSubmission`` when a lead with it
        is already stored (nothing is written). ``autoreply_day``: the agency's day, for a
        lead whose send may trigger the visitor's auto-reply; it does only if its address
        has not had one that day (claimed in the same transaction as the insert).
        ``hold``: the plugins hold what comes with the lead (a booking's slot) in the same
        transaction; ``Refused`` is raised (nothing is written) unless ``hold.strict`` is
        False (a lead drained from the spool: stored anyway). None: they hold nothing.
        ``spam``: why it is suspected (``SpamReason``): stored as ``SPAM`` with that
        ``spam_reason``, never sent until released.
        Its webhooks (``lead.created`` for each endpoint in use) are queued in the same
        transaction (``webhooks.queue``); a spam's when it is released.
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
            # Claimed at intake: behind the waiting leads should its worker die (claims.py).
            next_attempt_at=None if spam else (now + lease if claim_token else now),
            claim_token=claim_token,
            claimed_until=now + lease if claim_token else None,
            idempotency_key=idempotency_key,
            email_norm=email_key(email) if isinstance(email, str) else None,
            source=source or None,
            language=language,
            spam_reason=spam,
        )
        return self._insert(lead, autoreply_day=autoreply_day, hold=hold, spam=spam)

    def _insert(
        self,
        lead: Lead,
        *,
        autoreply_day: dt.date | None,
        hold: Hold | None,
        spam: SpamReason | None,
    ) -> Lead:
        """``add_lead``'s transaction: the visitor's auto-reply claimed, the lead inserted,
        its webhooks queued (not a spam's) and what comes with it held."""
        email, key = lead.fields.get("email"), lead.idempotency_key
        try:
            with Session(self.engine, expire_on_commit=False) as session:
                if autoreply_day is not None and isinstance(email, str):
                    lead.autoreply = allowance.claim(session, email, autoreply_day)
                session.add(lead)
                session.flush()  # The idempotency key's unique index speaks first.
                if not spam:  # Before the plugins' own events (a booking's request).
                    webhook_queue.queue(session, lead, LEAD_CREATED)
                if hold is not None:
                    self.plugins.hold(session, lead, hold)
                session.commit()
                return lead
        except sa.exc.IntegrityError:
            self._duplicate(key)
            raise

    def release_spam(
        self,
        lead_id: int,
        claim_token: str | None = None,
        lease: dt.timedelta | None = None,
        *,
        hold: Hold = OWNER_RELEASE,
        fields: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
        language: str | None = None,
    ) -> Release:
        """Release lead ``lead_id`` from quarantine (status ``spam``): delivered as if it had
        just arrived. One caller releases it (a conditional UPDATE); the answer says how:

        - ``Release(released=False)`` (falsy): it was not in quarantine (never, released
          already, or erased): nothing changed;
        - ``Release(released=True, lost=None)``: released, holding what came with it (a
          booking's slot);
        - ``Release(released=True, lost="taken")``: released without it, and why (a
          booking stored holding no slot: ``"taken"``, ``"busy"``, ``"day_full"``, over a cap:
          ``"email_cap"``, ``"network_cap"``; the agency's e-mail says so).

        ``hold``: how the plugins hold what comes with it, in the same transaction, after
        the release is written (``plugins.Hold``). The default, ``OWNER_RELEASE``, is the
        owner's decision (``leads not-spam``, the desk): never refused, the visitors' caps
        do not apply, a slot taken or busy is lost. The visitor's own release (a solved
        challenge, ``intake.py``) is strict, with the solving request's network: a refusal
        raises ``Refused`` and nothing changes (the lead stays in quarantine).

        With ``claim_token`` (and its ``lease``) the caller holds the lead and sends it at
        once (a solved challenge), as ``add_lead``'s. ``fields``, ``idempotency_key``,
        ``language``: the visitor corrected it before it was released (another hour after a
        refusal, ``intake.py``): the lead takes them in the same transaction (its key too,
        so the page's next try of the corrected submission finds it; ``DuplicateSubmission``
        if another lead has that key). Its ``lead.created`` webhook is queued in it too.
        """
        claim = _released(claim_token, lease)
        if fields is not None:
            claim |= _corrected(fields, idempotency_key, language)
        try:
            with Session(self.engine, expire_on_commit=False) as session:
                # Written first: on SQLite this transaction holds the write lock before the
                # plugins count anything (a booking's caps).
                released = session.execute(
                    sa.update(Lead)
                    .where(col(Lead.id) == lead_id, Lead.status == LeadStatus.SPAM)
                    .values(**claim)
                ).rowcount
                lead = session.get(Lead, lead_id, populate_existing=True)
                if not released or lead is None:
                    session.rollback()
                    return Release(False)
                webhook_queue.queue(session, lead, LEAD_CREATED)
                lost = self.plugins.hold(session, lead, hold)  # Refused: rolled back.
                session.commit()
                return Release(True, lost)
        except sa.exc.IntegrityError:
            self._duplicate(idempotency_key)
            raise

    def requarantine(
        self,
        lead_id: int,
        fields: dict[str, Any],
        idempotency_key: str,
        language: str,
        reason: SpamReason,
    ) -> bool:
        """The visitor corrected lead ``lead_id``, still in quarantine, and the correction is
        suspect for ``reason`` (a hard one: it stays in quarantine): the lead takes the
        corrected ``fields``, key and language and that reason, so one submission is one
        lead. False when it is no longer in quarantine (nothing changed)."""
        values = _corrected(fields, idempotency_key, language) | {"spam_reason": reason}
        with Session(self.engine) as session:
            changed = session.execute(
                sa.update(Lead)
                .where(col(Lead.id) == lead_id, Lead.status == LeadStatus.SPAM)
                .values(**values)
            ).rowcount
            session.commit()
            return bool(changed)

    def _duplicate(self, idempotency_key: str | None) -> None:
        """After a refused write: ``DuplicateSubmission`` when a lead has this key (the
        unique index refused it), else nothing (the caller raises the refusal itself)."""
        existing = self.by_key(idempotency_key) if idempotency_key else None
        if existing is not None and existing.id is not None:
            raise DuplicateSubmission(existing.id, existing.status) from None

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

    def count(self, status: LeadStatus) -> int:
        """How many leads have ``status``."""
        query = select(sa.func.count()).select_from(Lead).where(Lead.status == status)
        with Session(self.engine) as session:
            return session.exec(query).one()

    def summary(self) -> LeadSummary:
        """What waits and what was delivered: for the health endpoint and the alerts.

        Every backend worker's monitor asks each poll, and an uptime monitor on every check:
        it reads the few leads not yet delivered through the status index, and the last
        delivery through the ``sent_at`` index, never the whole table (with 30,000 delivered
        leads a count by status over all of them took 6.4 ms of PostgreSQL, this 0.08 ms).
        """
        waiting = col(Lead.status).in_((LeadStatus.QUEUED, LeadStatus.SENDING))
        counted = (LeadStatus.QUEUED, LeadStatus.SENDING, LeadStatus.HELD, LeadStatus.REJECTED)
        with Session(self.engine) as session:
            counts = dict(
                session.exec(
                    select(Lead.status, sa.func.count())
                    .where(col(Lead.status).in_(counted))
                    .group_by(col(Lead.status))
                ).all()
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

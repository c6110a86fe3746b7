"""The webhooks' tables: which endpoints new events are queued for, each message queued
in its lead's transaction, claimed by one worker, finished, and where each lead's stand.

``lead_webhook_endpoints``: one row per endpoint (``endpoint_key`` of its URL, which may
carry a token), ``active``, ``paused`` (410 Gone or a day of failures, until ``leads
retry``) or ``removed`` (no longer in ``LEADS_WEBHOOK_URLS``; ``register`` at start-up).
``lead_webhooks``: one row per event of a lead and endpoint, with its own status,
attempts, next try, claim lease, last error and the receiver's id. Claimed as a lead's
e-mail is, with a lease (``lease.py``): exactly one claimer sends it and only it records
how it went. The sending is
``webhooks/channel.py``'s.
"""

import datetime as dt
import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.leads.lease import Lease, update_rows
from agency_site.leads.models import Lead, LeadWebhook, LeadWebhookEndpoint, utcnow
from agency_site.leads.webhooks import payload as webhook_payload

QUEUED, SENDING, SENT = "queued", "sending", "sent"
SKIPPED = "skipped"  # An event its destination does not take (a CRM: a booking's change).
DONE = (SENT, SKIPPED)
ACTIVE, PAUSED, REMOVED = "active", "paused", "removed"
ERROR_MAX = 1000
ERASURE_LEAD_ID = 0  # A ``lead.erased`` message's lead: none (its leads are gone).
REMOTE_ID_MAX = 200


def endpoint_key(url: str) -> str:
    """How the tables name an endpoint: a digest of its URL, which may carry a token."""
    return hashlib.sha256(url.encode()).hexdigest()[:16]


def message_id(lead: Lead, event: str, sequence: int = 0) -> str:
    """The ``webhook-id`` of ``event`` of ``lead``: its idempotency key (one submission is
    one lead, whichever path stored it) and the event; ``sequence`` tells apart the same
    event of a booking moved since (``booking.sequence``)."""
    key = lead.idempotency_key or f"lead-{lead.id}"
    name = event.replace(".", "_")
    return f"msg_{key}_{name}" + (f"_{sequence}" if sequence else "")


def register(engine: sa.Engine, urls: Sequence[str]) -> tuple[str, ...]:
    """Make ``urls`` the endpoints new events are queued for; the others ``removed`` (their
    queued messages wait, sent if the endpoint comes back). Their keys, in order."""
    keys = tuple(dict.fromkeys(endpoint_key(url) for url in urls))
    now = utcnow()
    with engine.begin() as connection:
        table = LeadWebhookEndpoint.__table__
        known = set(connection.execute(sa.select(table.c.endpoint)).scalars())
        for key in keys:
            if key not in known:
                try:
                    with connection.begin_nested():
                        connection.execute(
                            sa.insert(table).values(endpoint=key, state=ACTIVE, changed_at=now)
                        )
                except sa.exc.IntegrityError:  # Another worker registered it first.
                    pass
        connection.execute(
            sa.update(table)
            .where(table.c.state == REMOVED, table.c.endpoint.in_(keys))
            .values(state=ACTIVE, changed_at=now)
        )
        connection.execute(
            sa.update(table)
            .where(table.c.state != REMOVED, table.c.endpoint.not_in(keys))
            .values(state=REMOVED, changed_at=now)
        )
    return keys


def queue(
    session: Session,
    lead: Lead,
    event: str,
    data: dict[str, Any] | None = None,
    sequence: int = 0,
) -> int:
    """In the caller's transaction: ``event`` of ``lead`` (flushed: it has its id:
    ``lead.created``, or a plugin's, ``queue_event``) queued for every endpoint in use,
    due now; ``data`` goes into the body as it is at this moment (a booking's state). An
    event already queued is left as it is. How many."""
    assert event != webhook_payload.LEAD_ERASED, event  # Its leads are gone: queue_erasure.
    endpoints = session.exec(
        select(LeadWebhookEndpoint.endpoint).where(LeadWebhookEndpoint.state != REMOVED)
    ).all()
    if not endpoints:
        return 0
    msg_id = message_id(lead, event, sequence)
    already = set(
        session.exec(select(LeadWebhook.endpoint).where(LeadWebhook.message_id == msg_id)).all()
    )
    now = utcnow()
    added = 0
    for endpoint in endpoints:
        if endpoint in already:
            continue
        session.add(
            LeadWebhook(
                lead_id=lead.id or 0,
                event=event,
                message_id=msg_id,
                endpoint=endpoint,
                data=data,
                created_at=now,
                status=QUEUED,
                next_attempt_at=now,
            )
        )
        added += 1
    return added


def queue_event(
    session: Session, lead_id: int, event: str, data: dict[str, Any], sequence: int = 0
) -> int:
    """``queue`` for the lead ``lead_id``: a plugin's event (one of its
    ``LeadPlugin.webhook_events``: a booking changed state), never one of the core's."""
    assert event not in webhook_payload.EVENTS, event
    lead = session.get(Lead, lead_id)
    return 0 if lead is None else queue(session, lead, event, data, sequence)


def forget(connection: sa.Connection) -> None:
    """In the transaction that just deleted leads: delete their messages (not the
    ``lead.erased`` ones telling the receivers so)."""
    connection.execute(
        sa.delete(LeadWebhook).where(
            col(LeadWebhook.lead_id).not_in(sa.select(Lead.id)),
            LeadWebhook.event != webhook_payload.LEAD_ERASED,
        )
    )


# A message is the work claimed: one worker sends it, only it records how it went.
LEASE = Lease(LeadWebhook.__table__, QUEUED, SENDING)


@dataclass(frozen=True)
class Erasure:
    """A ``lead.erased`` message queued for one endpoint: its ``webhook-id`` and its
    ``data`` (``payload.erasure``: the leads that reached it, their messages'
    ids, the ids it answered)."""

    endpoint: str
    message_id: str
    data: dict[str, Any]


ERASURE_CHUNK = 500  # Leads per ``lead.erased`` message (and per IN list).


def queue_erasure(
    connection: sa.Connection, lead_ids: Sequence[int], reason: str = webhook_payload.REQUEST
) -> list[Erasure]:
    """In the transaction erasing ``lead_ids``, before their delete: a ``lead.erased``
    message for each endpoint one of their messages may have reached (tried at least
    once, or being sent), its data fixed now: the leads and messages that reached that
    endpoint and the ids it answered (a CRM's record ids, kept here once the leads'
    own messages are gone, until this one is done). Their rows are locked first, so a
    message claimed meanwhile is either counted here or never sent. A chat skips it, a
    CRM deletes its records. ``reason``: ``request`` (``leads erase``) or ``retention``
    (the purge). The messages queued."""
    queued: list[Erasure] = []
    ids = list(dict.fromkeys(lead_ids))
    for start in range(0, len(ids), ERASURE_CHUNK):
        queued += _queue_erasure(connection, ids[start : start + ERASURE_CHUNK], reason)
    return queued


def _queue_erasure(
    connection: sa.Connection, lead_ids: Sequence[int], reason: str
) -> list[Erasure]:
    table = LeadWebhook.__table__
    rows = connection.execute(
        sa.select(
            table.c.endpoint,
            table.c.lead_id,
            table.c.message_id,
            table.c.status,
            table.c.attempts,
            table.c.remote_id,
        )
        .where(table.c.lead_id.in_(lead_ids), table.c.event != webhook_payload.LEAD_ERASED)
        .order_by(table.c.id)
        .with_for_update()
    ).all()
    reached: dict[str, list[Any]] = {}
    for row in rows:
        if row.status != QUEUED or row.attempts > 0:
            reached.setdefault(row.endpoint, []).append(row)
    if not reached:
        return []
    now = utcnow()
    msg_id = f"msg_{uuid.uuid4().hex}_lead_erased"
    queued = [
        Erasure(
            endpoint,
            msg_id,
            webhook_payload.erasure(
                [row.lead_id for row in each],
                [row.message_id for row in each],
                now,
                [row.remote_id for row in each if row.remote_id],
                reason,
            ),
        )
        for endpoint, each in reached.items()
    ]
    connection.execute(
        sa.insert(table),
        [
            {
                "lead_id": ERASURE_LEAD_ID,
                "event": webhook_payload.LEAD_ERASED,
                "message_id": msg_id,
                "endpoint": erasure.endpoint,
                "data": erasure.data,
                "created_at": now,
                "status": QUEUED,
                "attempts": 0,
                "next_attempt_at": now,
            }
            for erasure in queued
        ],
    )
    return queued


def prune_erasures(connection: sa.Connection, before: dt.datetime) -> int:
    """Delete the ``lead.erased`` messages done (sent or skipped) and queued before
    ``before`` (the retention purge's cutoff): their work is over; how many."""
    return connection.execute(
        sa.delete(LeadWebhook).where(
            LeadWebhook.event == webhook_payload.LEAD_ERASED,
            col(LeadWebhook.status).in_(DONE),
            col(LeadWebhook.created_at) < before,
        )
    ).rowcount


def update(engine: sa.Engine, condition: sa.ColumnElement[bool], **values: Any) -> int:
    return update_rows(engine, LEASE.table, condition, **values)


def delete(engine: sa.Engine, webhook_id: int) -> None:
    with engine.begin() as connection:
        connection.execute(sa.delete(LeadWebhook).where(LeadWebhook.id == webhook_id))


def update_endpoint(engine: sa.Engine, condition: sa.ColumnElement[bool], **values: Any) -> int:
    return update_rows(engine, LeadWebhookEndpoint.__table__, condition, **values)


def active_endpoints(engine: sa.Engine, keys: Sequence[str]) -> list[str]:
    """Of ``keys``, the endpoints not paused."""
    query = select(LeadWebhookEndpoint.endpoint).where(
        col(LeadWebhookEndpoint.endpoint).in_(keys), LeadWebhookEndpoint.state == ACTIVE
    )
    with Session(engine) as session:
        found = set(session.exec(query).all())
    return [key for key in keys if key in found]


def claim_one(
    engine: sa.Engine, endpoint: str, token: str, lease: dt.timedelta
) -> LeadWebhook | None:
    """Claim the message for ``endpoint`` due longest; None when none is (or others won
    every candidate). Claimed by one caller only; due again when its lease ends."""
    at_endpoint = LeadWebhook.endpoint == endpoint
    claimed = LEASE.claim_due(engine, token, lease, among=at_endpoint, spare=4)
    if not claimed:
        return None
    with Session(engine, expire_on_commit=False) as session:
        return session.get(LeadWebhook, claimed[0])


def finish(engine: sa.Engine, webhook_id: int, token: str, **values: Any) -> bool:
    """Record the end of an attempt, if ``token`` still holds the claim."""
    return LEASE.finish(engine, webhook_id, token, **values)


def make_due(engine: sa.Engine, lead_ids: Sequence[int] = ()) -> int:
    """Operator retry: paused endpoints resume; queued messages (all, or of ``lead_ids``)
    are due now. How many messages."""
    update_endpoint(
        engine,
        LeadWebhookEndpoint.state == PAUSED,
        state=ACTIVE,
        failing_since=None,
        changed_at=utcnow(),
    )
    condition = LeadWebhook.status == QUEUED
    if lead_ids:
        condition = sa.and_(condition, col(LeadWebhook.lead_id).in_(lead_ids))
    return update(engine, condition, next_attempt_at=utcnow())


def states(engine: sa.Engine, lead_ids: Sequence[int]) -> dict[int, str]:
    """Each lead's webhooks in a few words (``leads list``): ``webhook 2/2 sent``,
    ``webhook 1/2 sent, 1 queued (HTTP 500)``; nothing for a lead without any."""
    query = (
        select(LeadWebhook.lead_id, LeadWebhook.status, LeadWebhook.last_error)
        .where(col(LeadWebhook.lead_id).in_(lead_ids))
        .order_by(col(LeadWebhook.id))
    )
    with Session(engine) as session:
        rows = session.exec(query).all()
    grouped: dict[int, list[tuple[str, str | None]]] = {}
    for lead_id, status, error in rows:
        grouped.setdefault(lead_id, []).append((status, error))
    notes = {}
    for lead_id, each in grouped.items():
        sent = sum(status in DONE for status, _ in each)
        note = f"webhook {sent}/{len(each)} sent"
        if waiting := len(each) - sent:
            last = next((error for status, error in reversed(each) if error), None)
            note += f", {waiting} waiting" + (f" ({last[:40]})" if last else "")
        notes[lead_id] = note
    return notes


def reached(engine: sa.Engine, lead_ids: Sequence[int]) -> dict[str, list[str]]:
    """Each endpoint a message of these leads was sent to, with the ids it answered."""
    query = select(LeadWebhook.endpoint, LeadWebhook.remote_id).where(
        col(LeadWebhook.lead_id).in_(lead_ids), LeadWebhook.status == SENT
    )
    with Session(engine) as session:
        found = session.exec(query.order_by(col(LeadWebhook.id))).all()
    places: dict[str, list[str]] = {}
    for endpoint, remote in found:
        places.setdefault(endpoint, [])
        if remote and remote not in places[endpoint]:
            places[endpoint].append(remote)
    return places

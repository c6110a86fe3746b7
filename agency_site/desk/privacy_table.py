"""The privacy requests' table (``DeskPrivacyRequest``): a request recorded, read, listed,
noted with what was done (its audit line in the same transaction), closed, and deleted
``DESK_AUDIT_MONTHS`` after its closing (``purge_closed``, the desk's daily round)."""

import datetime as dt
from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.desk import audit
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import AGENCY_ZONE
from agency_site.desk.models import DeskPrivacyRequest
from agency_site.desk.privacy_rules import PrivacyOutcome, PrivacyRight
from agency_site.leads.models import email_digest
from agency_site.leads.rgpd import months_before

# How many requests the list shows (the open ones first).
LISTED = 200


def add_request(
    engine: sa.Engine, email: str, right: PrivacyRight, received: dt.date, now: dt.datetime
) -> DeskPrivacyRequest:
    """Record a request; the row (with its id)."""
    row = DeskPrivacyRequest(
        email=email.strip(),
        email_digest=email_digest(email),
        right=str(right),
        received_on=received,
        recorded_at=now,
    )
    with Session(engine, expire_on_commit=False) as session:
        session.add(row)
        session.commit()
        session.refresh(row)
    return row


def get_request(engine: sa.Engine, request_id: int) -> DeskPrivacyRequest | None:
    with Session(engine, expire_on_commit=False) as session:
        return session.get(DeskPrivacyRequest, request_id)


def list_requests(engine: sa.Engine, limit: int = LISTED) -> list[DeskPrivacyRequest]:
    """The open requests, the oldest received first, then the closed ones, newest first."""
    is_open = col(DeskPrivacyRequest.closed_on).is_(None)
    query = (
        select(DeskPrivacyRequest)
        .order_by(
            sa.case((is_open, 0), else_=1),
            sa.case((is_open, col(DeskPrivacyRequest.received_on)), else_=None),
            col(DeskPrivacyRequest.closed_on).desc(),
            col(DeskPrivacyRequest.id).desc(),
        )
        .limit(limit)
    )
    with Session(engine, expire_on_commit=False) as session:
        return list(session.exec(query).all())


def update_request(
    engine: sa.Engine,
    request_id: int,
    values: Mapping[str, Any],
    person_id: int | None,
    action: AuditAction,
    digest: str,
    now: dt.datetime,
    done: bool = False,
) -> bool:
    """Change an open request (a closed one is left as it is) and write the audit line of
    ``action`` in the same transaction: when the request changed, or whatever it did when
    the action is ``done`` already (an erasure, an export); whether it was open."""
    with engine.begin() as connection:
        changed = connection.execute(
            sa.update(DeskPrivacyRequest)
            .where(
                col(DeskPrivacyRequest.id) == request_id,
                col(DeskPrivacyRequest.closed_on).is_(None),
            )
            .values(**values)
        ).rowcount
        if changed or done:
            audit.record(
                connection, person_id, action, request_id=request_id, digest=digest, at=now
            )
    return bool(changed)


def close_request(
    engine: sa.Engine,
    request_id: int,
    outcome: PrivacyOutcome,
    closed_on: dt.date,
    person_id: int | None,
    digest: str,
    now: dt.datetime,
) -> bool:
    """Close an open request: its date and outcome; the address and the by-hand list go
    (what is kept: the class's doc of ``DeskPrivacyRequest``). Whether it was open."""
    values = {"closed_on": closed_on, "outcome": str(outcome), "email": None, "by_hand": None}
    return update_request(
        engine, request_id, values, person_id, AuditAction.PRIVACY_CLOSED, digest, now
    )


def purge_closed(engine: sa.Engine, months: int, now: dt.datetime) -> int:
    """Delete the requests closed more than ``months`` ago (the audit log's keeping: the
    desk's daily round); how many."""
    cutoff = months_before(now, months).astimezone(AGENCY_ZONE).date()
    with engine.begin() as connection:
        return connection.execute(
            sa.delete(DeskPrivacyRequest).where(col(DeskPrivacyRequest.closed_on) < cutoff)
        ).rowcount

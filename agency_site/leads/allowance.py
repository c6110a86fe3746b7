"""The visitor's auto-reply allowance: one per mailbox and agency day (``lead_autoreply``).

A lead of a form with an auto-reply claims its mailbox's allowance of the day in the
transaction that stores it (``claim``); only the lead that got it triggers the reply, so
the form cannot be used to mail someone else over and over. The rows are kept only for
their day (``prune``) and go with the person's leads (``forget``).
"""

import datetime as dt
from collections.abc import Iterable

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from agency_site.leads.models import LeadAutoreply, mailbox_digest, utcnow


def claim(session: Session, email: str, day: dt.date) -> bool:
    """Take this mailbox's auto-reply of ``day`` (``mailbox_key``: Gmail's dots and any
    ``+tag`` make no new one); False when it was already taken."""
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


def forget(connection: sa.Connection, hashes: Iterable[str]) -> None:
    """Delete the allowances of these address digests (``email_digest``, ``mailbox_digest``)."""
    connection.execute(
        sa.delete(LeadAutoreply).where(col(LeadAutoreply.email_hash).in_(list(hashes)))
    )


def prune(connection: sa.Connection) -> None:
    """Delete the allowances of past days: one is only ever needed on its own day."""
    yesterday = (utcnow() - dt.timedelta(days=1)).date()
    connection.execute(sa.delete(LeadAutoreply).where(col(LeadAutoreply.day) < yesterday))

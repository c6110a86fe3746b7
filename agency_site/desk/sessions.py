"""Sign-in sessions, held by the server: the browser's cookie carries a random token, the
``desk_sessions`` table its digest, the person, when it began, was last used and was last
proved with a passkey.

A session ends when it has not been used for ``DeskConfig.idle`` (30 min), ``max_age``
(12 h) after its sign-in whatever happens, on sign-out (its row deleted), and with every
other session of its person on "sign out everywhere". An ended session's cookie opens
nothing: the row is gone, or too old, and the lookup deletes it. Every function takes the
moment (``now``) from its caller, so the tests move a fake clock.
"""

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import col

from agency_site.desk import tokens
from agency_site.desk.models import DeskPerson, DeskSession

# A token longer than this is no token of ours (43 characters): not even looked up.
_TOKEN_MAX = 64


@dataclass(frozen=True)
class SignedIn:
    """The session a request came with, and its person."""

    session_id: int
    person_id: int
    email: str
    name: str | None
    created_at: dt.datetime
    fresh_at: dt.datetime

    @property
    def shown_name(self) -> str:
        """How the desk names the person: their name, else their address."""
        return self.name or self.email


def start(engine: sa.Engine, person_id: int, now: dt.datetime) -> str:
    """A new session of ``person_id`` (just proved with a passkey): its cookie's token."""
    token = tokens.new_token()
    with engine.begin() as connection:
        connection.execute(
            sa.insert(DeskSession).values(
                person_id=person_id,
                token_digest=tokens.digest(token),
                created_at=now,
                last_seen_at=now,
                fresh_at=now,
            )
        )
    return token


def _aware(moment: dt.datetime) -> dt.datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def resolve(
    engine: sa.Engine,
    token: str | None,
    now: dt.datetime,
    idle: dt.timedelta,
    max_age: dt.timedelta,
) -> SignedIn | None:
    """The live session of a cookie's token, marked used ``now``; None (and the row deleted)
    when it is unknown, idle longer than ``idle`` or older than ``max_age``."""
    if not token or len(token) > _TOKEN_MAX:
        return None
    query = (
        sa.select(
            DeskSession.id,
            DeskSession.person_id,
            DeskSession.created_at,
            DeskSession.last_seen_at,
            DeskSession.fresh_at,
            DeskPerson.email,
            DeskPerson.name,
        )
        .join(DeskPerson, col(DeskPerson.id) == col(DeskSession.person_id))
        .where(DeskSession.token_digest == tokens.digest(token))
    )
    with engine.begin() as connection:
        row = connection.execute(query).first()
        if row is None:
            return None
        created, seen = _aware(row.created_at), _aware(row.last_seen_at)
        if now - seen > idle or now - created > max_age:
            connection.execute(sa.delete(DeskSession).where(DeskSession.id == row.id))
            return None
        connection.execute(
            sa.update(DeskSession).where(DeskSession.id == row.id).values(last_seen_at=now)
        )
    return SignedIn(
        session_id=row.id,
        person_id=row.person_id,
        email=row.email,
        name=row.name,
        created_at=created,
        fresh_at=_aware(row.fresh_at),
    )


def mark_fresh(engine: sa.Engine, session_id: int, now: dt.datetime) -> None:
    """Record that the session's person just proved it with a passkey."""
    with engine.begin() as connection:
        connection.execute(
            sa.update(DeskSession).where(DeskSession.id == session_id).values(fresh_at=now)
        )


def end(engine: sa.Engine, session_id: int) -> None:
    """End one session (sign-out)."""
    with engine.begin() as connection:
        connection.execute(sa.delete(DeskSession).where(DeskSession.id == session_id))


def end_all(engine: sa.Engine, person_id: int) -> int:
    """End every session of a person ("sign out everywhere"); how many."""
    with engine.begin() as connection:
        return connection.execute(
            sa.delete(DeskSession).where(DeskSession.person_id == person_id)
        ).rowcount


def purge(engine: sa.Engine, now: dt.datetime, idle: dt.timedelta, max_age: dt.timedelta) -> int:
    """Delete the sessions that ended by themselves (idle or too old); how many."""
    with engine.begin() as connection:
        return connection.execute(
            sa.delete(DeskSession).where(
                sa.or_(
                    col(DeskSession.last_seen_at) < now - idle,
                    col(DeskSession.created_at) < now - max_age,
                )
            )
        ).rowcount

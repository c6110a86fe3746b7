"""The agency's people, their one-time invites and their passkeys (the tables of
``models.py``): what the operator's command, the enrolment and the "Tu acceso" screen do.

A person is an e-mail address (``leads.models.email_key``: one person whatever its case).
Their first passkey comes through an invite the operator prints on the server
(``python -m agency_site.desk invite ADDRESS``): a random token, valid ``INVITE_VALID``,
used once; a new invite of the same person ends the ones not used yet. With every passkey
lost, a new invite enrolls a new one.

A person may remove any passkey but their last: with none left, only the operator could let
them in again (a new invite). Every change is one conditional statement, so two browsers
acting at once never leave a person with no passkey or an invite used twice.
"""

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.desk import tokens
from agency_site.desk.config import INVITE_VALID
from agency_site.desk.models import DeskInvite, DeskPasskey, DeskPerson
from agency_site.leads.models import email_key


def person_by_email(engine: sa.Engine, email: str) -> DeskPerson | None:
    """The person of an address (any case), or None."""
    with Session(engine, expire_on_commit=False) as session:
        query = select(DeskPerson).where(DeskPerson.email == email_key(email))
        return session.exec(query).first()


def get_person(engine: sa.Engine, person_id: int) -> DeskPerson | None:
    """The person ``person_id``, or None."""
    with Session(engine, expire_on_commit=False) as session:
        return session.get(DeskPerson, person_id)


def people_named(engine: sa.Engine, ids: set[int]) -> dict[int, DeskPerson]:
    """The people among ``ids`` who still exist, by id."""
    if not ids:
        return {}
    with Session(engine, expire_on_commit=False) as session:
        found = session.exec(select(DeskPerson).where(col(DeskPerson.id).in_(sorted(ids))))
        return {person.id: person for person in found if person.id is not None}


def ensure_person(
    engine: sa.Engine, email: str, name: str | None, now: dt.datetime
) -> tuple[DeskPerson, bool]:
    """The person of ``email``, created if new (``name`` kept when given); whether created."""
    found = person_by_email(engine, email)
    if found is None:
        person = DeskPerson(
            email=email_key(email), name=name, user_handle=tokens.new_user_handle(), created_at=now
        )
        try:
            with Session(engine, expire_on_commit=False) as session:
                session.add(person)
                session.commit()
            return person, True
        except sa.exc.IntegrityError:  # Created by another command at the same moment.
            found = person_by_email(engine, email)
            assert found is not None
    if name and found.name != name:
        with engine.begin() as connection:
            connection.execute(
                sa.update(DeskPerson).where(DeskPerson.id == found.id).values(name=name)
            )
        found.name = name
    return found, False


def issue_invite(engine: sa.Engine, person_id: int, now: dt.datetime) -> tuple[str, DeskInvite]:
    """A new invite for ``person_id``: its token (for the link; only its digest is stored)
    and its row. The person's invites not used yet end now."""
    token = tokens.new_token()
    invite = DeskInvite(
        person_id=person_id,
        token_digest=tokens.digest(token),
        created_at=now,
        expires_at=now + INVITE_VALID,
    )
    with Session(engine, expire_on_commit=False) as session:
        session.exec(
            sa.update(DeskInvite)
            .where(
                DeskInvite.person_id == person_id,
                col(DeskInvite.used_at).is_(None),
                col(DeskInvite.expires_at) > now,
            )
            .values(expires_at=now)
        )
        session.add(invite)
        session.commit()
    return token, invite


def open_invite(engine: sa.Engine, token: str, now: dt.datetime) -> DeskInvite | None:
    """The invite of ``token`` if it may still be used (not used, not expired), else None."""
    if not token or len(token) > 100:
        return None
    query = select(DeskInvite).where(
        DeskInvite.token_digest == tokens.digest(token),
        col(DeskInvite.used_at).is_(None),
        col(DeskInvite.expires_at) > now,
    )
    with Session(engine, expire_on_commit=False) as session:
        return session.exec(query).first()


def use_invite(connection: sa.Connection, invite_id: int, now: dt.datetime) -> bool:
    """Mark the invite used, in the caller's transaction; False if it was used or expired
    meanwhile (the one caller that gets True enrolls)."""
    result = connection.execute(
        sa.update(DeskInvite)
        .where(
            DeskInvite.id == invite_id,
            col(DeskInvite.used_at).is_(None),
            col(DeskInvite.expires_at) > now,
        )
        .values(used_at=now)
    )
    return result.rowcount == 1


def passkeys_of(engine: sa.Engine, person_id: int) -> list[DeskPasskey]:
    """A person's passkeys, oldest first."""
    query = (
        select(DeskPasskey).where(DeskPasskey.person_id == person_id).order_by(col(DeskPasskey.id))
    )
    with Session(engine, expire_on_commit=False) as session:
        return list(session.exec(query).all())


def passkey_by_credential(engine: sa.Engine, credential_id: str) -> DeskPasskey | None:
    """The passkey of a credential id (base64url), or None."""
    query = select(DeskPasskey).where(DeskPasskey.credential_id == credential_id)
    with Session(engine, expire_on_commit=False) as session:
        return session.exec(query).first()


@dataclass(frozen=True)
class NewPasskey:
    """A passkey the browser created and the server verified, to be stored."""

    credential_id: str
    public_key: bytes
    sign_count: int
    transports: list[str]
    label: str


def add_passkey(
    connection: sa.Connection, person_id: int, new: NewPasskey, now: dt.datetime
) -> int:
    """Store a verified passkey of ``person_id`` in the caller's transaction; its id."""
    result = connection.execute(
        sa.insert(DeskPasskey).values(
            person_id=person_id,
            credential_id=new.credential_id,
            public_key=new.public_key,
            sign_count=new.sign_count,
            transports=new.transports,
            label=new.label,
            created_at=now,
        )
    )
    return int(result.inserted_primary_key[0])


def record_use(
    engine: sa.Engine, passkey_id: int, old_count: int, new_count: int, now: dt.datetime
) -> bool:
    """Record a verified use: its new signature counter, when. False when the counter
    changed meanwhile (the same assertion, or a clone's, used twice at once)."""
    with engine.begin() as connection:
        result = connection.execute(
            sa.update(DeskPasskey)
            .where(DeskPasskey.id == passkey_id, DeskPasskey.sign_count == old_count)
            .values(sign_count=new_count, last_used_at=now)
        )
        return result.rowcount == 1


class Removal(StrEnum):
    """What came of removing a passkey."""

    REMOVED = "removed"
    LAST = "last"  # The person's only passkey: kept.
    NOT_FOUND = "not_found"  # Not one of this person's.


def remove_passkey(engine: sa.Engine, person_id: int, passkey_id: int) -> Removal:
    """Remove one of ``person_id``'s passkeys, never the last one they have."""
    others = (
        select(DeskPasskey.id)
        .where(DeskPasskey.person_id == person_id, DeskPasskey.id != passkey_id)
        .exists()
    )
    with engine.begin() as connection:
        # The person's row locked first (PostgreSQL; SQLite has one writer at a time): two
        # removals at once see each other's, so one of the last two always stays.
        connection.execute(
            sa.select(DeskPerson.id).where(DeskPerson.id == person_id).with_for_update()
        )
        deleted = connection.execute(
            sa.delete(DeskPasskey).where(
                DeskPasskey.id == passkey_id, DeskPasskey.person_id == person_id, others
            )
        ).rowcount
        if deleted:
            return Removal.REMOVED
        mine = connection.execute(
            sa.select(DeskPasskey.id).where(
                DeskPasskey.id == passkey_id, DeskPasskey.person_id == person_id
            )
        ).first()
    return Removal.LAST if mine else Removal.NOT_FOUND

"""The WebAuthn ceremonies of the desk, verified by py_webauthn (``webauthn``): enrolling a
person's first passkey through an invite, signing in, proving it again before an export or
an erasure, adding another passkey.

Each ceremony is two requests: its options (a fresh challenge, kept by its digest in
``desk_challenges`` with its purpose, its person or invite, for ``CHALLENGE_VALID``), then
the browser's answer, whose challenge must be one of ours, of that purpose, unused and
unexpired: it is taken (deleted) before anything else, so an answer is never accepted
twice. The library checks the rest: the origin and relying party (the desk's,
``DeskConfig``), the user's presence and verification (required: a passkey with its PIN,
fingerprint or face), the signature and, on sign-in, that the signature counter went up
(a counter going back is a cloned authenticator or a replay: refused and logged).

Sign-in asks for no address: the passkeys are discoverable, so the browser offers the
person's own, and the credential's id names it. Every refusal is a ``PasskeyRefused`` with a short
code the browser code shows the words of (``templates/_words.html``).
"""

import datetime as dt
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, parse_client_data_json
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from agency_site.desk import audit, people, tokens
from agency_site.desk.audit import AuditAction
from agency_site.desk.config import CHALLENGE_VALID, DeskConfig
from agency_site.desk.models import LABEL_MAX, DeskChallenge, DeskPasskey, DeskPerson

logger = logging.getLogger(__name__)

# How long the browser shows its passkey dialog (a hint).
TIMEOUT_MS = 120_000


class Purpose(StrEnum):
    """What a challenge may be answered for."""

    ENROLL = "enroll"  # A first passkey, through an invite.
    SIGN_IN = "sign_in"
    CONFIRM = "confirm"  # The signed-in person again (export, erase, passkeys' changes).
    ADD = "add"  # Another passkey of the signed-in person.


class PasskeyRefused(Exception):
    """A ceremony refused; ``code`` names why for the person (``_words.html``)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Proved:
    """A verified sign-in or confirmation: whose passkey."""

    person_id: int
    passkey_id: int


def _challenge_of(credential: Mapping[str, Any]) -> bytes:
    """The challenge the browser signed, from its ``clientDataJSON``."""
    try:
        response = credential["response"]
        client_data = base64url_to_bytes(response["clientDataJSON"])
        return parse_client_data_json(client_data).challenge
    except (KeyError, TypeError, ValueError, WebAuthnException):
        raise PasskeyRefused("passkey") from None


def _label(text: Any) -> str:
    """A passkey's label as typed: one line, trimmed, bounded."""
    if not isinstance(text, str):
        return ""
    return " ".join(text.split())[:LABEL_MAX]


def _transports(credential: Mapping[str, Any]) -> list[str]:
    response = credential.get("response")
    sent = response.get("transports") if isinstance(response, Mapping) else None
    known = {transport.value for transport in AuthenticatorTransport}
    return [value for value in sent if value in known] if isinstance(sent, list) else []


def _descriptor(passkey: DeskPasskey) -> PublicKeyCredentialDescriptor:
    transports = [AuthenticatorTransport(value) for value in passkey.transports]
    return PublicKeyCredentialDescriptor(
        id=base64url_to_bytes(passkey.credential_id), transports=transports or None
    )


@dataclass(frozen=True)
class Ceremonies:
    """The ceremonies of one desk (its origin, its database)."""

    config: DeskConfig
    engine: sa.Engine

    # --- Challenges ------------------------------------------------------------------------

    def _issue(
        self,
        purpose: Purpose,
        now: dt.datetime,
        person_id: int | None = None,
        invite_id: int | None = None,
    ) -> bytes:
        challenge = tokens.new_challenge()
        with self.engine.begin() as connection:
            connection.execute(sa.delete(DeskChallenge).where(DeskChallenge.expires_at < now))
            connection.execute(
                sa.insert(DeskChallenge).values(
                    digest=tokens.digest(challenge),
                    purpose=str(purpose),
                    person_id=person_id,
                    invite_id=invite_id,
                    expires_at=now + CHALLENGE_VALID,
                )
            )
        return challenge

    def _take(self, challenge: bytes, purpose: Purpose, now: dt.datetime) -> DeskChallenge:
        """The challenge's row, deleted (used once); ``PasskeyRefused`` if it is not one of ours
        for ``purpose``, was used, or expired."""
        where = sa.and_(
            DeskChallenge.digest == tokens.digest(challenge),
            DeskChallenge.purpose == str(purpose),
        )
        with self.engine.begin() as connection:
            row = connection.execute(sa.select(DeskChallenge).where(where)).first()
            if row is None:
                raise PasskeyRefused("challenge")
            taken = connection.execute(sa.delete(DeskChallenge).where(DeskChallenge.id == row.id))
            found = DeskChallenge.model_validate(row._mapping)
        expires = found.expires_at
        expires = expires if expires.tzinfo else expires.replace(tzinfo=dt.UTC)
        if taken.rowcount != 1 or expires <= now:
            raise PasskeyRefused("challenge")
        return found

    # --- Options ---------------------------------------------------------------------------

    def _creation_options(
        self, person: DeskPerson, challenge: bytes, existing: list[DeskPasskey]
    ) -> str:
        options = generate_registration_options(
            rp_id=self.config.rp_id,
            rp_name=self.config.rp_name,
            user_id=base64url_to_bytes(person.user_handle),
            user_name=person.email,
            user_display_name=person.name or person.email,
            challenge=challenge,
            timeout=TIMEOUT_MS,
            attestation=AttestationConveyancePreference.NONE,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.REQUIRED,
            ),
            exclude_credentials=[_descriptor(passkey) for passkey in existing],
        )
        return options_to_json(options)

    def _request_options(self, challenge: bytes, allowed: list[DeskPasskey] | None = None) -> str:
        options = generate_authentication_options(
            rp_id=self.config.rp_id,
            challenge=challenge,
            timeout=TIMEOUT_MS,
            allow_credentials=[_descriptor(passkey) for passkey in allowed or ()],
            user_verification=UserVerificationRequirement.REQUIRED,
        )
        return options_to_json(options)

    # --- Enrolment through an invite -------------------------------------------------------

    def enroll_options(self, token: str, now: dt.datetime) -> str:
        """The creation options of an invite's first passkey (JSON); ``PasskeyRefused("invite")``
        when the invite is unknown, used or expired."""
        invite = people.open_invite(self.engine, token, now)
        person = invite and people.get_person(self.engine, invite.person_id)
        if invite is None or person is None:
            raise PasskeyRefused("invite")
        challenge = self._issue(Purpose.ENROLL, now, person.id, invite.id)
        return self._creation_options(
            person, challenge, people.passkeys_of(self.engine, invite.person_id)
        )

    def enroll(
        self, token: str, credential: Mapping[str, Any], label: Any, now: dt.datetime
    ) -> int:
        """Verify and store an invite's passkey, the invite used in the same transaction;
        the person's id."""
        taken = self._take(_challenge_of(credential), Purpose.ENROLL, now)
        invite = people.open_invite(self.engine, token, now)
        if invite is None or invite.id != taken.invite_id:
            raise PasskeyRefused("invite")
        new = self._verified_creation(credential, taken, label)
        with self.engine.begin() as connection:
            if not people.use_invite(connection, invite.id, now):
                raise PasskeyRefused("invite")
            people.add_passkey(connection, invite.person_id, new, now)
            audit.record(connection, invite.person_id, AuditAction.ENROLLED, at=now)
        return invite.person_id

    # --- Another passkey of a signed-in person ---------------------------------------------

    def add_options(self, person_id: int, now: dt.datetime) -> str:
        """The creation options of another passkey of ``person_id`` (JSON)."""
        person = people.get_person(self.engine, person_id)
        if person is None:
            raise PasskeyRefused("passkey")
        challenge = self._issue(Purpose.ADD, now, person_id)
        return self._creation_options(person, challenge, people.passkeys_of(self.engine, person_id))

    def add(
        self, person_id: int, credential: Mapping[str, Any], label: Any, now: dt.datetime
    ) -> int:
        """Verify and store another passkey of ``person_id``; its id."""
        taken = self._take(_challenge_of(credential), Purpose.ADD, now)
        if taken.person_id != person_id:
            raise PasskeyRefused("challenge")
        new = self._verified_creation(credential, taken, label)
        with self.engine.begin() as connection:
            passkey_id = people.add_passkey(connection, person_id, new, now)
            audit.record(
                connection, person_id, AuditAction.PASSKEY_ADDED, subject_id=person_id, at=now
            )
        return passkey_id

    def _verified_creation(
        self, credential: Mapping[str, Any], taken: DeskChallenge, label: Any = ""
    ) -> people.NewPasskey:
        challenge = _challenge_of(credential)
        try:
            verified = verify_registration_response(
                credential=dict(credential),
                expected_challenge=challenge,
                expected_rp_id=self.config.rp_id,
                expected_origin=self.config.origin,
                require_user_verification=True,
            )
        except WebAuthnException as error:
            logger.warning("Desk: a new passkey was refused (%s).", str(error)[:160])
            raise PasskeyRefused("passkey") from None
        credential_id = bytes_to_base64url(verified.credential_id)
        if people.passkey_by_credential(self.engine, credential_id) is not None:
            raise PasskeyRefused("passkey")
        return people.NewPasskey(
            credential_id=credential_id,
            public_key=verified.credential_public_key,
            sign_count=verified.sign_count,
            transports=_transports(credential),
            label=_label(label),
        )

    # --- Sign-in and confirmation ----------------------------------------------------------

    def sign_in_options(self, now: dt.datetime) -> str:
        """The request options of a sign-in (JSON): any of the desk's passkeys."""
        return self._request_options(self._issue(Purpose.SIGN_IN, now))

    def sign_in(self, credential: Mapping[str, Any], now: dt.datetime) -> Proved:
        """Verify a sign-in's assertion: whose passkey it is."""
        self._take(_challenge_of(credential), Purpose.SIGN_IN, now)
        return self._verified_assertion(credential, None, now)

    def confirm_options(self, person_id: int, now: dt.datetime) -> str:
        """The request options of the signed-in person's confirmation (JSON): their
        passkeys only."""
        challenge = self._issue(Purpose.CONFIRM, now, person_id)
        return self._request_options(challenge, people.passkeys_of(self.engine, person_id))

    def confirm(self, person_id: int, credential: Mapping[str, Any], now: dt.datetime) -> Proved:
        """Verify the signed-in person's confirmation: one of their own passkeys."""
        taken = self._take(_challenge_of(credential), Purpose.CONFIRM, now)
        if taken.person_id != person_id:
            raise PasskeyRefused("challenge")
        return self._verified_assertion(credential, person_id, now)

    def _verified_assertion(
        self, credential: Mapping[str, Any], person_id: int | None, now: dt.datetime
    ) -> Proved:
        credential_id = credential.get("id") if isinstance(credential, Mapping) else None
        passkey = (
            people.passkey_by_credential(self.engine, credential_id)
            if isinstance(credential_id, str) and len(credential_id) <= 1400
            else None
        )
        if passkey is None or passkey.id is None or (person_id and passkey.person_id != person_id):
            raise PasskeyRefused("unknown_passkey")
        person = people.get_person(self.engine, passkey.person_id)
        response = credential.get("response")
        handle = response.get("userHandle") if isinstance(response, Mapping) else None
        if person is None or (handle and handle != person.user_handle):
            raise PasskeyRefused("unknown_passkey")
        try:
            verified = verify_authentication_response(
                credential=dict(credential),
                expected_challenge=_challenge_of(credential),
                expected_rp_id=self.config.rp_id,
                expected_origin=self.config.origin,
                credential_public_key=passkey.public_key,
                credential_current_sign_count=passkey.sign_count,
                require_user_verification=True,
            )
        except WebAuthnException as error:
            message = str(error)
            if "sign count" in message:
                logger.error(
                    "Desk: passkey %s of person %s gave a signature counter that did not go "
                    "up (a cloned authenticator or a replay): refused.",
                    passkey.id,
                    passkey.person_id,
                )
                audit.record(
                    self.engine, None, AuditAction.PASSKEY_REPLAYED, subject_id=passkey.person_id
                )
                raise PasskeyRefused("replay") from None
            logger.warning("Desk: a passkey's answer was refused (%s).", message[:160])
            raise PasskeyRefused("passkey") from None
        if not people.record_use(
            self.engine, passkey.id, passkey.sign_count, verified.new_sign_count, now
        ):
            raise PasskeyRefused("replay")
        return Proved(person_id=passkey.person_id, passkey_id=passkey.id)


def parse_json(body: bytes) -> dict[str, Any]:
    """A ceremony request's JSON object; ``PasskeyRefused("passkey")`` for anything else."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise PasskeyRefused("passkey") from None
    if not isinstance(data, dict):
        raise PasskeyRefused("passkey")
    return data

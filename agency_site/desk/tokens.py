"""The desk's random tokens and what the database keeps of them.

An invite's link and a session's cookie carry a random token (256 bits); the tables keep
only its SHA-256 (``digest``), so a copy of the database (a backup, a restore) opens
nothing. A WebAuthn challenge is random bytes, kept by their digest too.
"""

import hashlib
import secrets

from webauthn.helpers import bytes_to_base64url

TOKEN_BYTES = 32


def new_token() -> str:
    """A fresh random token, URL-safe (43 characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_challenge() -> bytes:
    """A fresh WebAuthn challenge (32 random bytes)."""
    return secrets.token_bytes(TOKEN_BYTES)


def digest(token: str | bytes) -> str:
    """The hex SHA-256 a table keeps instead of ``token``."""
    data = token.encode() if isinstance(token, str) else token
    return hashlib.sha256(data).hexdigest()


def new_user_handle() -> str:
    """A person's WebAuthn user handle: random, base64url (never the address)."""
    return bytes_to_base64url(secrets.token_bytes(TOKEN_BYTES))

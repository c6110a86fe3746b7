"""A software authenticator for the desk's unit tests: a real P-256 key (the
``cryptography`` package) that answers WebAuthn's creation and request options as a
browser's platform authenticator would, in the JSON of ``PublicKeyCredential.toJSON()``.
The server verifies its answers with the real ``webauthn`` library: nothing is faked
beyond the browser itself.
"""

import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

UP, UV, AT = 0x01, 0x04, 0x40


def _b64(data: bytes) -> str:
    return bytes_to_base64url(data)


@dataclass
class Authenticator:
    """One passkey: its key pair, id, user handle and signature counter."""

    origin: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    credential_id: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    user_handle: str = ""
    sign_count: int = 0
    # Whether the person's PIN or fingerprint was checked (the desk requires it).
    verified: bool = True

    def _client_data(self, kind: str, challenge: str, origin: str | None = None) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": origin or self.origin}
        return json.dumps(data | {"crossOrigin": False}).encode()

    def _cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        x, y = numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: x, -3: y})

    def _flags(self, extra: int = 0) -> int:
        return UP | (UV if self.verified else 0) | extra

    def create(self, options: str | dict[str, Any], origin: str | None = None) -> dict[str, Any]:
        """The answer to creation options (``navigator.credentials.create``)."""
        options = json.loads(options) if isinstance(options, str) else options
        self.user_handle = options["user"]["id"]
        rp_hash = hashlib.sha256(options["rp"]["id"].encode()).digest()
        attested = (
            bytes(16)
            + struct.pack(">H", len(self.credential_id))
            + self.credential_id
            + self._cose_key()
        )
        auth_data = rp_hash + bytes([self._flags(AT)]) + struct.pack(">I", self.sign_count)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data + attested})
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        return {
            "id": _b64(self.credential_id),
            "rawId": _b64(self.credential_id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": _b64(client_data),
                "attestationObject": _b64(attestation),
                "transports": ["internal"],
            },
        }

    def get(
        self,
        options: str | dict[str, Any],
        origin: str | None = None,
        *,
        count: int | None = None,
    ) -> dict[str, Any]:
        """The answer to request options (``navigator.credentials.get``); the counter goes up
        by one unless ``count`` says what to send."""
        options = json.loads(options) if isinstance(options, str) else options
        self.sign_count = self.sign_count + 1 if count is None else count
        rp_hash = hashlib.sha256(options["rpId"].encode()).digest()
        auth_data = rp_hash + bytes([self._flags()]) + struct.pack(">I", self.sign_count)
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": _b64(self.credential_id),
            "rawId": _b64(self.credential_id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": _b64(client_data),
                "authenticatorData": _b64(auth_data),
                "signature": _b64(signature),
                "userHandle": self.user_handle,
            },
        }


def challenge_of(options: str | dict[str, Any]) -> bytes:
    """The challenge of some options, as bytes."""
    options = json.loads(options) if isinstance(options, str) else options
    return base64url_to_bytes(options["challenge"])

"""Signed links for a booking: the agency's *confirm* and *decline* (and, after the
meeting, *attended* / *no_show*: the owner's digest), the visitor's *cancel* and calendar
file. No login: the link itself is the permission, so it is

- **signed** (HMAC-SHA256, through itsdangerous) with the newest of the link secrets
  (``BOOKING_LINK_SECRET``, newest first, or the generated one: ``link_secret.py``) and
  opened with any of them, so a secret is rotated without breaking the links already
  mailed: a changed action, booking, key or nonce, or a secret no longer listed, fails;
- **bound to one booking**: it carries the booking's random ``link_key`` (``bookings``
  table), which the page compares before showing or doing anything, so a link never opens
  another booking that got the same id (ids are never reused either, but a restore or an
  older database may have reused some). Links mailed before keys existed (signed with
  HMAC-SHA1, no key) still open the bookings made before then, which have no key, until
  they expire (400 days at most): remove ``_LEGACY_SIGNERS`` after 2027-12-31;
- **expiring**: the agency's links after ``BOOKING_LINK_MAX_AGE_DAYS``; the visitor's when
  the appointment has passed;
- **single-use** for the actions that change a booking: each carries a random nonce, and
  using it inserts the nonce's digest into ``booking_link_uses`` (primary key), so a replay
  finds it taken (``slots.use_link``).
"""

import enum
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

_SALT = "agency_site.booking-link"
_SIGNER = {"digest_method": hashlib.sha256}
# What signed the links before keys: only their key-less payloads verify against it.
_LEGACY_SIGNERS = [{"digest_method": hashlib.sha1}]


def new_link_key() -> str:
    """A booking's random ``link_key`` (128 bits): what its links must carry."""
    return secrets.token_urlsafe(16)


class LinkAction(enum.StrEnum):
    """What a link does."""

    CONFIRM = "confirm"  # The agency confirms the requested slot.
    DECLINE = "decline"  # The agency declines it (and may propose another time by e-mail).
    CANCEL = "cancel"  # The visitor cancels a pending or confirmed booking.
    CALENDAR = "calendar"  # The visitor downloads the .ics (reading only: not single-use).
    # The agency marks a confirmed meeting that has passed (the owner's digest, once).
    ATTENDED = "attended"
    NO_SHOW = "no_show"

    @property
    def single_use(self) -> bool:
        """Whether using the link changes the booking (so a second use is a replay)."""
        return self is not LinkAction.CALENDAR

    @property
    def agency(self) -> bool:
        """Whether the agency uses the link (expires after ``BOOKING_LINK_DAYS``)."""
        return self in (
            LinkAction.CONFIRM,
            LinkAction.DECLINE,
            LinkAction.ATTENDED,
            LinkAction.NO_SHOW,
        )


class LinkProblem(enum.StrEnum):
    """Why a link cannot be used: each gets its own clear page."""

    TAMPERED = "tampered"  # Not signed by this site (changed, truncated, another secret).
    EXPIRED = "expired"
    STALE = "stale"  # Signed, but for a booking that is gone (its id now another's).


@dataclass(frozen=True)
class VerifiedLink:
    """A verified link: what it does, to which booking (its lead's id and ``link_key``;
    "" in a link made before keys), and its nonce."""

    action: LinkAction
    lead_id: int
    nonce: str
    key: str = ""

    def opens(self, link_key: str | None) -> bool:
        """Whether this link is for the booking whose key is ``link_key`` (None: a booking
        made before keys, opened only by a link without one). Constant-time."""
        return hmac.compare_digest(self.key.encode(), (link_key or "").encode())

    @property
    def digest(self) -> str:
        """What ``booking_link_uses`` keeps of a used link (never the link itself)."""
        return hashlib.sha256(f"{self.action}:{self.lead_id}:{self.nonce}".encode()).hexdigest()


class LinkSigner:
    """Makes links with the newest of its secrets and checks them with any."""

    def __init__(self, keys: str | Sequence[str]) -> None:
        """``keys``: one secret, or several newest first."""
        newest_first = [keys] if isinstance(keys, str) else list(keys)
        if not newest_first or any(len(key) < 32 for key in newest_first):
            raise ValueError("BOOKING_LINK_SECRET must have at least 32 characters (each secret)")
        self._serializer = URLSafeTimedSerializer(
            newest_first[::-1],  # itsdangerous signs with the last one.
            salt=_SALT,
            signer_kwargs=_SIGNER,
            fallback_signers=_LEGACY_SIGNERS,
        )

    def token(self, action: LinkAction, lead_id: int, key: str) -> str:
        """A new signed token for ``action`` on booking ``lead_id`` whose ``link_key`` is
        ``key`` (timestamped now)."""
        return self._serializer.dumps([str(action), lead_id, secrets.token_urlsafe(9), key])

    def verify(self, token: str, max_age_s: float) -> VerifiedLink | LinkProblem:
        """The link ``token`` stands for, or why it cannot be used."""
        if not isinstance(token, str) or not 0 < len(token) <= 512:
            return LinkProblem.TAMPERED
        try:
            payload = self._serializer.loads(token, max_age=max_age_s)
        except SignatureExpired:
            return LinkProblem.EXPIRED
        except BadSignature:
            return LinkProblem.TAMPERED
        try:
            action, lead_id, nonce, *key = payload
            if len(key) > 1:
                raise ValueError("not a link's shape")
            return VerifiedLink(
                LinkAction(action), int(lead_id), str(nonce), str(key[0]) if key else ""
            )
        except (TypeError, ValueError):  # Signed by us, but not a link's shape.
            return LinkProblem.TAMPERED

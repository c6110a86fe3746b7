"""Proof of work only when suspect: the ALTCHA challenge a soft-flagged submission is
asked to solve before it is taken as a person's (``screen.py``, ``gate.py``).

A submission whose form token says "too fast", "none", "expired" or "forged"
(``SpamReason.SOFT``), or one the rate limiter refuses, is answered ``Result.CHALLENGE``
with a challenge made here: the npm ``altcha`` widget (v3, its external build served from
the site's own assets) solves it in the visitor's browser, and the same submission (same
idempotency key) comes back carrying the widget's payload in ``CHALLENGE_FIELD``.

The format is ALTCHA's v2 (``altcha`` on PyPI, 2.3.0, ``create_challenge`` /
``verify_solution``; the widget v3 sends ``{challenge: {parameters, signature},
solution: {counter, derivedKey}}`` in base64, counters as big-endian uint32): a
``PBKDF2/SHA-256`` key of ``COST`` iterations per counter, whose counter the server picks at
random below ``max_number`` and keeps only as the derived key's prefix, so the browser
derives on average ``max_number / 2`` keys and the server checks a solution with one.
PBKDF2 runs natively in the browser's WebCrypto (one call per counter), so a bot's native
code has little edge over a person's browser; a plain SHA-256 per counter (one async call
for one hash) would let a script solve a hundred times faster than the page. Each challenge carries, signed, the
submission's idempotency key (``data.key``): a payload holds for that submission only, and
its replay is that submission again (stored once by its key, released once: the lead's row
is the replay protection). It expires after ``expiry``.

The HMAC key is derived from the site secret's key for the proof of work
(``site_secret.py``, ``CHALLENGE``) with this module's salt: no secret a person must set.
With several (a rotation) the first signs and any verifies; until
``site_secret.LEGACY_UNTIL`` a challenge made before the keys were derived (from the form
tokens' secret) is still verified.
"""

import datetime as dt
import hashlib
import hmac
import json
import logging
import secrets as random
import time
from collections.abc import Callable, Sequence

import altcha

from agency_site.forms.widget_markup import ALGORITHM
from agency_site.leads.site_secret import CHALLENGE, transition_keys
from agency_site.leads.spam.form_token import FILE_NAME as TOKEN_FILE
from agency_site.settings import Settings

logger = logging.getLogger(__name__)

SALT = b"agency_site.leads.spam-challenge"
# Iterations per counter of the widget's algorithm (``widget_markup.ALGORITHM``).
COST = 1_000
# Longest payload a form may carry (ours are about 600 characters).
PAYLOAD_MAX = 2_000


def challenge_key(secret: str) -> str:
    """The HMAC key of the challenges made from one of the site's secrets."""
    return hmac.new(secret.encode(), SALT, hashlib.sha256).hexdigest()


class Challenges:
    """Issues challenges bound to a submission's key, and verifies their solutions."""

    def __init__(
        self,
        secrets: Sequence[str],
        max_number: int,
        expiry: dt.timedelta,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not secrets:
            raise ValueError("no secret to sign challenges with")
        self._keys = tuple(challenge_key(secret) for secret in secrets)
        self.max_number, self.expiry, self._clock = max_number, expiry, clock

    def issue(self, key: str) -> str:
        """A new challenge for the submission of idempotency ``key``, as the JSON text the
        widget's ``challenge`` attribute takes."""
        challenge = altcha.create_challenge(
            ALGORITHM,
            COST,
            counter=random.randbelow(self.max_number + 1),
            expires_at=int(self._clock() + self.expiry.total_seconds()),
            data={"key": key},
            hmac_secret=self._keys[0],
        )
        return json.dumps(challenge.to_dict(), separators=(",", ":"))

    def verify(self, payload: object, key: str) -> bool:
        """Whether ``payload`` (the widget's, base64) solves a challenge of ours, not
        expired, issued for the submission of idempotency ``key``."""
        return self.solved_for(payload) == key

    def solved_for(self, payload: object) -> str | None:
        """The idempotency key of the submission whose challenge ``payload`` solves (ours,
        not expired), or None. A page that changed the submission after it was solved
        sends it under a new key with the old payload (``gate.py``)."""
        if not isinstance(payload, str) or not payload or len(payload) > PAYLOAD_MAX:
            return None
        try:
            parsed = altcha.Payload.from_base64(payload)
            data = parsed.challenge.parameters.data
            key = data.get("key") if isinstance(data, dict) else None
            if not isinstance(key, str):
                return None
            if any(altcha.verify_solution(parsed, k).verified for k in self._keys):
                return key
            return None
        except Exception as error:  # A malformed payload is not a solution.
            logger.info("A challenge payload could not be read (%s).", type(error).__name__)
            return None


def challenges_of(settings: Settings) -> Challenges | None:
    """The proof of work asked of suspect submissions: None when off
    (``LEADS_SPAM_CHALLENGE=false``, or no site secret)."""
    found = (
        transition_keys(settings, CHALLENGE, TOKEN_FILE) if settings.leads.spam_challenge else ()
    )
    if not found:
        return None
    return Challenges(
        found,
        settings.leads.spam_challenge_max_number,
        dt.timedelta(seconds=settings.leads.spam_challenge_expiry_seconds),
    )

"""One site secret, and from it a key of its own for each use.

**The site secret** is what ``BOOKING_LINK_SECRET`` holds: several, comma-separated, newest
first, during a rotation. The setting keeps the name it had when the booking links were its
only use, so every deployed site's ``.env`` stays as it is; every host of a site shares it
(scripts/prepare_host.py writes it at setup). Unset (a developer's machine, ``make prod``),
the site secret is this host's own, generated once and kept in its data folder
(``kept_secret.py``, the file ``site-secret``): never one a person must set.

**Each use derives its own key** (``keys``): HMAC-SHA256 of the secret over a label naming
the use (``agency_site <purpose> v1``), so a key that leaks opens nothing of another use,
and a rotation of the site secret rotates every key at once (the first signs, any
verifies). The core's uses: the forms' time trap (``FORM_TOKEN``), the proof of work
(``CHALLENGE``), the visitors' network digests (``NETWORK_DIGEST``); a feature names its
own (the links it mails, the counts it keeps).

**The transition** (``transition_keys``, until ``LEGACY_UNTIL``): what was signed before the
keys were derived, with the secret itself (or, on a host without the setting, with the
file that use kept for itself), still opens: those keys follow the derived ones, for
verifying only. So a link mailed before the upgrade, or a form open in a page, still
opens; remove them after that date. A digest cannot be verified, only compared: one kept
before the upgrade no longer matches a new one (a plugin's count of pending requests per
network restarts from the upgrade, until the old ones are gone).
"""

import datetime as dt
import hashlib
import hmac
import logging
from pathlib import Path

from agency_site.leads.kept_secret import data_folder, kept_secret, read_kept
from agency_site.settings import Settings

logger = logging.getLogger(__name__)

FILE_NAME = "site-secret"
# The setting that holds the site secret, as .env writes it.
SETTING = "BOOKING_LINK_SECRET"
# The core's uses of the site secret, each a key of its own.
FORM_TOKEN, CHALLENGE, NETWORK_DIGEST = "form-token", "challenge", "network-digest"
# Until then ``transition_keys`` also verifies with what signed before the keys were derived.
LEGACY_UNTIL = dt.date(2027, 12, 31)


def configured(settings: Settings) -> tuple[str, ...]:
    """The site secret as the setting holds it, newest first; none when unset."""
    return settings.booking.link_secrets  # The setting's name is its first use's (``SETTING``).


def secret_file(settings: Settings) -> Path:
    """Where this host keeps its generated site secret."""
    return data_folder(settings) / FILE_NAME


def site_secrets(settings: Settings) -> tuple[str, ...]:
    """The site secret, newest first: the setting's, else this host's kept one (made the
    first time); none when the kept one can be neither read nor made (an ERROR says so:
    what the secret signs is off, never a lead refused for it)."""
    if secrets := configured(settings):
        return secrets
    path = secret_file(settings)
    try:
        return (kept_secret(path),)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        logger.error(
            "The site has no secret: %s is unset and %s cannot be used (%s: %s); what it "
            "signs is OFF. Set %s in .env (docs/configuration.md).",
            SETTING,
            path,
            type(error).__name__,
            reason,
            SETTING,
        )
        return ()


def derived(secret: str, purpose: str) -> str:
    """The key of ``purpose`` made from ``secret`` (64 hexadecimal characters)."""
    label = f"agency_site {purpose} v1".encode()
    return hmac.new(secret.encode(), label, hashlib.sha256).hexdigest()


def keys(settings: Settings, purpose: str) -> tuple[str, ...]:
    """The keys of ``purpose``, one per site secret, newest first (the first signs, any
    verifies); none without a site secret."""
    return tuple(derived(secret, purpose) for secret in site_secrets(settings))


def legacy(settings: Settings, kept_file: str | None = None) -> tuple[str, ...]:
    """What a use signed with before its key was derived: the setting's secrets themselves,
    else the file ``kept_file`` of this host's data folder when there is one (read, never
    made)."""
    if secrets := configured(settings):
        return secrets
    if kept_file is None:
        return ()
    try:
        return (read_kept(data_folder(settings) / kept_file),)
    except (OSError, ValueError):
        return ()


def transition_keys(
    settings: Settings, purpose: str, kept_file: str | None = None
) -> tuple[str, ...]:
    """``keys`` of ``purpose``, then, to verify only until ``LEGACY_UNTIL``, what signed
    before (``legacy``); none without a site secret."""
    derived_keys = keys(settings, purpose)
    if not derived_keys:
        return ()
    before = tuple(key for key in legacy(settings, kept_file) if key not in derived_keys)
    return derived_keys + before

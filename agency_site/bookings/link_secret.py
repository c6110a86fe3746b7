"""The keys that sign the booking links (``links.py``), so the confirm loop works out of the
box: the site secret's key for the links (``leads/site_secret.py``: ``BOOKING_LINK_SECRET``,
newest first, or the one generated once and kept in the host's data folder), the same for
``make run``, ``make prod``, a plain ``reflex run`` and every worker of every backend
process of the host, start after start. Hosts of one site must share the secret:
prepare_host.py writes a ``BOOKING_LINK_SECRET`` into ``.env`` (docs/deploy.md).

Until ``site_secret.LEGACY_UNTIL`` the links mailed before the keys were derived still
open: they were signed with the secret itself, or, on a host without the setting, with the
file ``booking-link-secret`` it kept in its data folder (read then, never made). A key is
never logged.
"""

import logging
from pathlib import Path

from agency_site.leads.kept_secret import SITE_DATA, data_folder, kept_secret, new_secret
from agency_site.leads.site_secret import transition_keys
from agency_site.settings import Settings

__all__ = [
    "FILE_NAME",
    "LINK_KEYS",
    "SITE_DATA",
    "kept_secret",
    "link_secrets",
    "new_secret",
    "secret_file",
]

logger = logging.getLogger(__name__)

# The purpose of the links' key (``site_secret.derived``).
LINK_KEYS = "booking-links"
# What this host kept for the links before the site secret (read during the transition).
FILE_NAME = "booking-link-secret"


def secret_file(settings: Settings) -> Path:
    """Where this host kept the links' own secret before the site secret."""
    return data_folder(settings) / FILE_NAME


def link_secrets(settings: Settings) -> tuple[str, ...]:
    """The keys the links are signed (the first) and opened (any) with; none without a
    site secret (then an ERROR says so and the links are off: the agency answers by hand)."""
    found = transition_keys(settings, LINK_KEYS, FILE_NAME)
    if not found:
        logger.error(
            "The booking links are OFF: the site has no secret (see above; docs/configuration.md)."
        )
    return found

"""The secrets that sign the booking links (``links.py``), so the confirm loop works out of
the box: ``BOOKING_LINK_SECRET``'s (newest first), or, when it is unset, one generated once
and kept in the data folder, the same for ``make run``, ``make prod``, a plain
``reflex run`` and every worker of every backend process of the host, start after start.

The kept secret is the file ``booking-link-secret`` of the host's data folder, made once
and atomically (``leads/kept_secret.py``, shared with the form tokens). The secret is
never logged. Hosts of one site must share it: prepare_host.py writes a
``BOOKING_LINK_SECRET`` into ``.env``, which then wins (docs/deploy.md).
"""

import logging
from pathlib import Path

from agency_site.leads.kept_secret import SITE_DATA, data_folder, kept_secret, new_secret
from agency_site.settings import Settings

__all__ = ["FILE_NAME", "SITE_DATA", "kept_secret", "link_secrets", "new_secret", "secret_file"]

logger = logging.getLogger(__name__)

FILE_NAME = "booking-link-secret"


def secret_file(settings: Settings) -> Path:
    """Where this host keeps its generated secret."""
    return data_folder(settings) / FILE_NAME


def link_secrets(settings: Settings) -> tuple[str, ...]:
    """The secrets the links are signed (the first) and opened (any) with; none when
    ``BOOKING_LINK_SECRET`` is unset and the kept one can be neither read nor made (then
    an ERROR says so and the links are off: the agency answers by hand)."""
    if configured := settings.booking.link_secrets:
        return configured
    path = secret_file(settings)
    try:
        return (kept_secret(path),)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        logger.error(
            "The booking links are OFF: BOOKING_LINK_SECRET is unset and %s cannot be used "
            "(%s: %s). Set BOOKING_LINK_SECRET in .env (docs/configuration.md).",
            path,
            type(error).__name__,
            reason,
        )
        return ()

"""The secrets that sign the booking links (``links.py``), so the confirm loop works out of
the box: ``BOOKING_LINK_SECRET``'s (newest first), or, when it is unset, one generated once
and kept in the data folder, the same for ``make run``, ``make prod``, a plain
``reflex run`` and every worker of every backend process of the host, start after start.

The kept secret is the file ``booking-link-secret`` of ``DEPLOY_DATA_DIR`` when that
folder exists (a host prepared by scripts/prepare_host.py: the only folder its units may
write), else of the site folder's ``data/`` (a developer's machine, git-ignored and left
out of backend.zip). It is made atomically: written whole to a private temporary file,
then hard-linked to its name, which fails when another process was first; that one's is
read instead, so processes starting together end with the same secret. Mode 0600; made by
root (an operator's command) in the site user's folder, it is given to that user. The
secret is never logged. Hosts of one site must share it: prepare_host.py writes a
``BOOKING_LINK_SECRET`` into ``.env``, which then wins (docs/deploy.md).
"""

import contextlib
import logging
import os
import secrets
import tempfile
from pathlib import Path

from agency_site.settings import ROOT, Settings

logger = logging.getLogger(__name__)

FILE_NAME = "booking-link-secret"
# The site folder's own data folder (the default SQLite database's, spool's...).
SITE_DATA = ROOT / "data"
MIN_LENGTH = 32


def new_secret() -> str:
    """A new secret: 256 random bits, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def secret_file(settings: Settings) -> Path:
    """Where this host keeps its generated secret."""
    data = Path(settings.deploy.data_dir)
    return (data if data.is_dir() else SITE_DATA) / FILE_NAME


def _read(path: Path) -> str:
    value = path.read_text(encoding="utf-8").strip()
    if len(value) < MIN_LENGTH or "," in value:
        msg = f"{path} holds no secret of {MIN_LENGTH}+ characters (delete it: a new one is made)"
        raise ValueError(msg)
    return value


def _give_to_folder_owner(descriptor: int, folder: Path) -> None:
    """Root making the file in another user's folder (the site's): that user's file."""
    if os.geteuid() != 0:
        return
    owner = folder.stat()
    if owner.st_uid != 0:
        os.fchown(descriptor, owner.st_uid, owner.st_gid)


def kept_secret(path: Path) -> str:
    """The secret kept in ``path``, made there first when there is none."""
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{FILE_NAME}-", dir=path.parent)  # 0600
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(new_secret() + "\n")
            file.flush()
            os.fsync(file.fileno())
            _give_to_folder_owner(file.fileno(), path.parent)
        with contextlib.suppress(FileExistsError):  # Another process was first: its stays.
            os.link(temporary, path)  # Never replaces an existing file.
    finally:
        os.unlink(temporary)
    return _read(path)


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

"""A secret generated once per host and kept in its data folder, so what the site signs
works out of the box, the same for ``make run``, ``make prod``, a plain ``reflex run`` and
every worker of every backend process of the host, start after start: the site's secret
when none is set (``site_secret.py``, which derives each use's key from it).

The folder is ``DEPLOY_DATA_DIR`` when it exists (a host prepared by
scripts/prepare_host.py: the only folder its units may write), else the site folder's
``data/`` (a developer's machine, git-ignored and left out of backend.zip). A file is made
atomically: written whole to a private temporary file, then hard-linked to its name, which
fails when another process was first; that one's is read instead, so processes starting
together end with the same secret. Mode 0600; made by root (an operator's command) in the
site user's folder, it is given to that user. A secret is never logged.
"""

import contextlib
import os
import secrets
import tempfile
from pathlib import Path

from agency_site.settings import ROOT, Settings

# The site folder's own data folder (the default SQLite database's, spool's...).
SITE_DATA = ROOT / "data"
MIN_LENGTH = 32


def new_secret() -> str:
    """A new secret: 256 random bits, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def data_folder(settings: Settings) -> Path:
    """Where this host keeps its generated secrets."""
    data = Path(settings.deploy.data_dir)
    return data if data.is_dir() else SITE_DATA


def read_kept(path: Path) -> str:
    """The secret kept in ``path`` (``FileNotFoundError`` when there is none, ``ValueError``
    when it holds none fit to use)."""
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
        return read_kept(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)  # 0600
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
    return read_kept(path)

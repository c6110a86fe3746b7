"""The erasure log: who was erased (``leads erase``), so a restore cannot bring them back.

A restored backup holds the leads of people erased after it was taken. Each erasure
appends one line ``<UTC time> <sha256 of the normalised address>`` to
``LEADS_ERASURE_LOG`` (0600, fsynced) — a digest, not the address: the log itself
keeps no personal data in clear. ``deploy restore`` re-applies every line to the
restored database (``LeadStore.erase_digests``), and the spool's drain to what it stores:
both delete only the leads an erasure ``covers``, those received before it, never the
ones the same person sent afterwards. Keep the log with the backups' off-site copies: it
is what makes a restore honour the erasures.
"""

import datetime as dt
import os
from pathlib import Path

from agency_site.leads.models import email_digest, utcnow


def record(log: Path, email: str, *, at: dt.datetime | None = None) -> None:
    """Append the erasure of ``email`` (now, or ``at``) to the log, durably."""
    log.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    moment = (at or utcnow()).astimezone(dt.UTC)
    line = f"{moment.strftime('%Y-%m-%dT%H:%M:%SZ')} {email_digest(email)}\n".encode()
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def covers(erased: dt.datetime | None, received: dt.datetime) -> bool:
    """Whether an erasure logged at ``erased`` (None: no erasure) covers a lead received at
    ``received``: received before the end of the logged second (the log keeps seconds, so
    a lead of that same second counts as erased); a naive time is UTC's."""
    if erased is None:
        return False
    if received.tzinfo is None:
        received = received.replace(tzinfo=dt.UTC)
    return received < erased + dt.timedelta(seconds=1)


def digests(log: Path) -> set[str]:
    """Every address digest in the log (none if there is no log yet)."""
    return set(erased_at(log))


def erased_at(log: Path) -> dict[str, dt.datetime]:
    """When each address (digest) in the log was last erased (UTC)."""
    try:
        text = log.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    found: dict[str, dt.datetime] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and len(parts[1]) == 64:
            try:
                moment = dt.datetime.strptime(parts[0], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
            except ValueError:
                moment = dt.datetime.max.replace(tzinfo=dt.UTC)  # Unreadable: erased for good.
            found[parts[1]] = max(moment, found.get(parts[1], moment))
    return found

"""The erasure log: who was erased (``leads erase``), so a restore cannot bring them back.

A restored backup holds the leads of people erased after it was taken. Each erasure
appends one line ``<UTC time> <sha256 of the normalised address>`` to
``LEADS_ERASURE_LOG`` (0600, fsynced) — a digest, not the address: the log itself
keeps no personal data in clear. ``deploy restore`` re-applies every line to the
restored database (``LeadStore.erase_digests``). Keep the log with the backups'
off-site copies: it is what makes a restore honour the erasures.
"""

import os
from pathlib import Path

from agency_site.leads.models import email_digest, utcnow


def record(log: Path, email: str) -> None:
    """Append the erasure of ``email`` to the log, durably."""
    log.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    line = f"{utcnow().strftime('%Y-%m-%dT%H:%M:%SZ')} {email_digest(email)}\n".encode()
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def digests(log: Path) -> set[str]:
    """Every address digest in the log (none if there is no log yet)."""
    try:
        text = log.read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    found = set()
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and len(parts[1]) == 64:
            found.add(parts[1])
    return found

"""The local durable spool: leads taken in while the database could not store them.

When the insert still fails after its retries (``LeadIntake``), the lead is appended
to a file of this host's spool folder (``LEADS_SPOOL_DIR``) and the visitor is told the
honest "received": it is on disk, fsynced, before the answer leaves.

- **One file per worker** (``spool-<host>-<pid>.jsonl``), JSON lines, opened
  append-only with mode 0600 in a 0700 folder. Each append takes the file's ``flock``,
  writes one whole line (after a newline if a killed writer left a torn one) and
  ``fsync``\\ s it (and the folder, so a new file's name survives a power cut too).
- **Each lead carries its idempotency key** (the page's, or one made by the server).
- **The drain** (every backend worker, ``drain_forever`` in ``runtime.py``) takes each
  non-empty file's lock without waiting, inserts its leads with their keys, then
  empties and removes the file under the same lock. The key is unique in the table, so
  a drain that dies half-way and runs again, two workers' files holding the same
  submission, or a submission stored over the websocket after the HTTP path spooled it,
  all end as ONE row: exactly once. A writer that finds its file removed under it
  (``st_nlink == 0`` once it holds the lock) opens a new one, so nothing is appended
  to a deleted file.

**A spooled lead is not e-mailed before it reaches the database.** Every send happens
under a claim in the ``leads`` table; that row is what records the outcome (sent,
unconfirmed, held, rejected) for every worker and host, marks a possible duplicate,
and lets the canary and the operator see it. A send from the spool would have nowhere
shared to record that it went out: a worker killed between the send and the drain, or
another worker draining the same file, would send it again unmarked, and a lead
EmailJS refused would be invisible to the owner. What it costs: while the database is
down the agency's e-mail waits. That wait is bounded by the outage, the lead itself is
on disk, and the owner is alerted once the spool has been non-empty for
``LEADS_SPOOL_ALERT_SECONDS`` (``monitor.py``), with ``leads spool`` to read it.
"""

import datetime as dt
import fcntl
import json
import logging
import os
import re
import socket
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agency_site.forms.kinds import LeadKind
from agency_site.locale import DEFAULT_LOCALE
from agency_site.locale import parse as parse_language

logger = logging.getLogger(__name__)

PREFIX, SUFFIX = "spool-", ".jsonl"
# What a page may send as its idempotency key (a UUID's hex or similar).
_KEY = re.compile(r"[A-Za-z0-9_-]{16,64}")


def valid_key(key: object) -> bool:
    """Whether ``key`` is an idempotency key this server accepts from a client."""
    return isinstance(key, str) and _KEY.fullmatch(key) is not None


def new_key() -> str:
    """An idempotency key made by the server (the page sent none)."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class SpooledLead:
    """One lead waiting in the spool for the database."""

    key: str
    kind: LeadKind
    fields: dict[str, Any]
    created_at: dt.datetime
    autoreply_day: dt.date | None = None
    source: dict[str, str] | None = None
    language: str = DEFAULT_LOCALE

    def line(self) -> bytes:
        record = {
            "v": 1,
            "key": self.key,
            "kind": str(self.kind),
            "fields": self.fields,
            "created_at": self.created_at.isoformat(),
            "day": self.autoreply_day.isoformat() if self.autoreply_day else None,
            "source": self.source,
            "language": self.language,
        }
        return json.dumps(record, ensure_ascii=False).encode() + b"\n"

    @classmethod
    def parse(cls, line: bytes) -> "SpooledLead":
        record = json.loads(line)
        return cls(
            key=record["key"],
            kind=LeadKind(record["kind"]),
            fields=dict(record["fields"]),
            created_at=dt.datetime.fromisoformat(record["created_at"]),
            autoreply_day=dt.date.fromisoformat(record["day"]) if record.get("day") else None,
            source=record.get("source"),
            language=parse_language(record.get("language")),
        )


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Spool:
    """This host's spool folder; ``name`` tells this worker's file from the others'."""

    def __init__(self, folder: Path, name: str | None = None) -> None:
        self.folder = folder
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"

    @property
    def path(self) -> Path:
        """This worker's file."""
        return self.folder / f"{PREFIX}{self.name}{SUFFIX}"

    def append(self, lead: SpooledLead) -> None:
        """Write ``lead`` durably (fsynced) to this worker's file; raises OSError if it cannot."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        line = lead.line()
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                status = os.fstat(fd)
                if status.st_nlink == 0:
                    continue  # Drained and removed while we waited: open a new file.
                prefix = b""
                if status.st_size and os.pread(fd, 1, status.st_size - 1) != b"\n":
                    prefix = b"\n"  # A writer was killed mid-line: start a clean one.
                _write_all(fd, prefix + line)
                os.fsync(fd)
                if status.st_size == 0:
                    _fsync_folder(self.folder)  # The new file's name is durable too.
                return
            finally:
                os.close(fd)

    def files(self) -> list[Path]:
        """Every non-empty spool file of this host (all workers')."""
        try:
            paths = sorted(self.folder.glob(f"{PREFIX}*{SUFFIX}"))
        except OSError:
            return []
        found = []
        for path in paths:
            try:
                if path.stat().st_size:
                    found.append(path)
            except FileNotFoundError:
                continue
        return found

    def leads(self) -> Iterator[SpooledLead]:
        """Every readable lead waiting in the spool (for the operator and the alert)."""
        for path in self.files():
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            for raw in data.splitlines():
                if raw.strip():
                    try:
                        yield SpooledLead.parse(raw)
                    except (ValueError, KeyError, TypeError):
                        continue

    def oldest(self) -> dt.datetime | None:
        """When the oldest lead still in the spool was received, or None when it is empty."""
        return min((lead.created_at for lead in self.leads()), default=None)

    def drain(self, store: Callable[[SpooledLead], object]) -> int:
        """Hand every spooled lead to ``store`` (idempotent by key); how many were handed.

        A file is emptied and removed only after ``store`` took all its leads; if it
        raises (the database is down again) the file stays as it was and the exception
        propagates. Files another worker is draining or writing right now are skipped.
        """
        handed = 0
        for path in self.files():
            try:
                fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                if os.fstat(fd).st_nlink == 0:
                    continue
                data = os.pread(fd, os.fstat(fd).st_size, 0)
                leads, torn = self._parse(data)
                for lead in leads:
                    store(lead)
                    handed += 1
                if torn:
                    self._keep_torn(path, torn)
                os.ftruncate(fd, 0)
                os.fsync(fd)
                path.unlink()
            finally:
                os.close(fd)
        return handed

    @staticmethod
    def _parse(data: bytes) -> tuple[list[SpooledLead], list[bytes]]:
        leads, torn = [], []
        for raw in data.splitlines():
            if not raw.strip():
                continue
            try:
                leads.append(SpooledLead.parse(raw))
            except (ValueError, KeyError, TypeError):
                torn.append(raw)
        return leads, torn

    def _keep_torn(self, path: Path, torn: list[bytes]) -> None:
        """Lines no writer finished (killed mid-write): kept aside for the operator, 0600."""
        target = path.with_suffix(".torn")
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            _write_all(fd, b"\n".join(torn) + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        logger.error(
            "%s unreadable line(s) of %s (a writer killed mid-line) kept in %s.",
            len(torn),
            path.name,
            target,
        )

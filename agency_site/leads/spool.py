"""The local durable spool: leads taken in while the database could not store them.

When the insert still fails after its retries (``LeadIntake``), the lead is appended
to a file of this host's spool folder (``LEADS_SPOOL_DIR``) and the visitor is told the
honest "received": it is on disk, fsynced, before the answer leaves.

- **One file per worker** (``spool-<host>-<pid>.jsonl``), JSON lines, opened
  append-only with mode 0600 in a 0700 folder. Each append takes the file's ``flock``,
  writes one whole line (after a newline if a killed writer left a torn one) and
  ``fsync``\\ s it (and the folder, so a new file's name survives a power cut too).
- **Each lead carries its idempotency key** (the page's, or one made by the server), and
  the network of the request that sent it as a keyed digest (``ratelimit.network_digest``:
  never the address nor the network), so the drain claims a booking's slot within the
  caps per network as the intake would have (``plugins.Hold``), and, when it carried a solved proof of work,
  the key of the submission it solves, whose lead in quarantine the drain releases
  (``spool_drain.py``).
- **The drain** (every backend worker, ``spool_drain.py``: ``drain_forever``) takes each
  non-empty file's lock without waiting, inserts its leads with their keys, then
  empties and removes the file under the same lock. The key is unique in the table, so
  a drain that dies half-way and runs again, two workers' files holding the same
  submission, or a submission stored over the websocket after the HTTP path spooled it,
  all end as ONE row: exactly once. A writer that finds its file removed under it
  (``st_nlink == 0`` once it holds the lock) opens a new one, so nothing is appended
  to a deleted file.

**A line the drain cannot store** -- unreadable (a writer killed mid-line), of an
unknown kind, or refused by the database for its content (not because it is down) --
is set aside in ``spool-<host>-<pid>.quarantine`` beside its file (0600, fsynced, the
line as it was) and the drain goes on with the next lines; the owner is alerted
(``monitor.py``) and ``leads spool`` shows it. A lead received before its address was
erased (the erasure log, ``erasures.py``) is dropped by the drain, never stored. ``leads erase`` removes a
person's lines from every spool, quarantine and ``.torn`` file of the host, and the
retention purge the lines older than the retention period (``rewrite``: under the
file's lock, through a new file renamed over it, so a crash leaves the old or the new).

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
from agency_site.leads import erasures
from agency_site.leads.models import email_digest, email_key
from agency_site.leads.statuses import SpamReason
from agency_site.locale import DEFAULT_LOCALE
from agency_site.locale import parse as parse_language

logger = logging.getLogger(__name__)

PREFIX, SUFFIX = "spool-", ".jsonl"
# Lines the drain could not store (``QUARANTINE``), and those an older version kept
# aside when a writer was killed mid-line (``TORN``): both kept for the operator.
QUARANTINE, TORN = ".quarantine", ".torn"
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
    # Why it is suspected (its honeypot filled...): drained as spam, never sent.
    spam: SpamReason | None = None
    # The network of the request that sent it (``ratelimit.network_digest``); None: not
    # known (no address, or a line written before lines carried it).
    network: str | None = None
    # It carried a solved proof of work for the submission of this key (its own, or the
    # one it corrects): the drain releases that submission's lead from quarantine with it.
    solves: str | None = None

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
            **({"spam": str(self.spam)} if self.spam else {}),
            **({"network": self.network} if self.network else {}),
            **({"solves": self.solves} if self.solves else {}),
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
            spam=_spam_reason(record.get("spam")),
            network=_text(record.get("network")),
            solves=_text(record.get("solves")),
        )


def _text(value: object) -> str | None:
    """An optional text of a line (None when absent or not text)."""
    return value if isinstance(value, str) and value else None


def _spam_reason(value: object) -> SpamReason | None:
    """A spool line's spam reason: ``true`` in lines written before there were reasons
    (the honeypot was the only one), a reason this version does not know kept as spam."""
    if not value:
        return None
    try:
        return SpamReason(value)
    except (ValueError, TypeError):
        return SpamReason.HONEYPOT


class Unstorable(Exception):
    """Raised by the drain's ``store`` for a lead the database will never take as it is:
    its line is set aside (quarantine) and the drain goes on."""


def _email_of(raw: bytes) -> str | None:
    """The address of a spool line, if it can be read."""
    try:
        email = json.loads(raw)["fields"]["email"]
    except (ValueError, KeyError, TypeError):
        return None
    return email if isinstance(email, str) else None


def _created_at(raw: bytes) -> dt.datetime | None:
    """When the lead of a spool line was received, if it can be read (UTC)."""
    try:
        moment = dt.datetime.fromisoformat(json.loads(raw)["created_at"])
    except (ValueError, KeyError, TypeError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def of_address(raw: bytes, email: str) -> bool:
    """Whether a spool line is about ``email`` (any case or script); an unreadable line
    is, when the address appears anywhere in it."""
    key = email_key(email)
    found = _email_of(raw)
    if found is not None:
        return email_key(found) == key
    return bool(key) and key in email_key(raw.decode("utf-8", errors="replace"))


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


def append_lines(path: Path, data: bytes) -> None:
    """Append whole lines to ``path`` durably, under its lock (0600, fsynced, and its
    folder when the file is new); a file removed or replaced while we waited for the lock
    is opened again, so nothing is appended to a deleted file."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            status = os.fstat(fd)
            if status.st_nlink == 0:
                continue  # Drained or rewritten while we waited: open the file now there.
            prefix = b""
            if status.st_size and os.pread(fd, 1, status.st_size - 1) != b"\n":
                prefix = b"\n"  # A writer was killed mid-line: start a clean one.
            _write_all(fd, prefix + data)
            os.fsync(fd)
            if status.st_size == 0:
                _fsync_folder(path.parent)  # The new file's name is durable too.
            return
        finally:
            os.close(fd)


def rewrite(path: Path, keep: Callable[[bytes, dt.datetime], bool]) -> int:
    """Drop the lines of ``path`` that ``keep(line, file's mtime)`` refuses; how many.

    Under the file's lock; the kept lines go to a new file renamed over it (its mtime
    kept: an unreadable line is as old as its file), or the file is removed if none is
    kept, so a crash leaves either the old file or the new one.
    """
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except FileNotFoundError:
            return 0
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            status = os.fstat(fd)
            if status.st_nlink == 0:
                continue  # Drained or rewritten while we waited.
            modified = dt.datetime.fromtimestamp(status.st_mtime, dt.UTC)
            lines = [raw for raw in os.pread(fd, status.st_size, 0).splitlines() if raw.strip()]
            kept = [raw for raw in lines if keep(raw, modified)]
            if len(kept) == len(lines):
                return 0
            if kept:
                temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
                out = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
                try:
                    _write_all(out, b"\n".join(kept) + b"\n")
                    os.fsync(out)
                finally:
                    os.close(out)
                os.utime(temporary, ns=(status.st_atime_ns, status.st_mtime_ns))
                os.replace(temporary, path)
            else:
                path.unlink()
            _fsync_folder(path.parent)
            return len(lines) - len(kept)
        finally:
            os.close(fd)


class Spool:
    """This host's spool folder; ``name`` tells this worker's file from the others'."""

    def __init__(
        self, folder: Path, name: str | None = None, erasure_log: Path | None = None
    ) -> None:
        self.folder = folder
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.erasure_log = erasure_log  # Leads of the addresses it lists are never drained.

    @property
    def path(self) -> Path:
        """This worker's file."""
        return self.folder / f"{PREFIX}{self.name}{SUFFIX}"

    def append(self, lead: SpooledLead) -> None:
        """Write ``lead`` durably (fsynced) to this worker's file; raises OSError if it cannot."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        append_lines(self.path, lead.line())

    def files(self, suffix: str = SUFFIX) -> list[Path]:
        """Every non-empty spool file of this host (all workers'), or those ending in
        ``suffix`` (``QUARANTINE``, ``TORN``)."""
        try:
            paths = sorted(self.folder.glob(f"{PREFIX}*{suffix}"))
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

    def aside(self) -> list[Path]:
        """Every non-empty file of lines the drain could not store (quarantine, torn)."""
        return self.files(QUARANTINE) + self.files(TORN)

    def lines(self, paths: list[Path]) -> Iterator[tuple[Path, bytes]]:
        """Every line of these files, with its file."""
        for path in paths:
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            yield from ((path, raw) for raw in data.splitlines() if raw.strip())

    def of_email(self, email: str) -> list[tuple[Path, bytes]]:
        """Every line of this host's spool, quarantine and torn files about ``email``."""
        everything = self.lines(self.files() + self.aside())
        return [(path, raw) for path, raw in everything if of_address(raw, email)]

    def erase(self, email: str) -> int:
        """Remove every line about ``email`` from this host's files; how many."""
        return sum(
            rewrite(path, lambda raw, _modified: not of_address(raw, email))
            for path in self.files() + self.aside()
        )

    def purge(self, cutoff: dt.datetime) -> int:
        """Remove every line received before ``cutoff`` from this host's files; how many.

        A line without a readable date is as old as its file (last written then).
        """

        def keep(raw: bytes, modified: dt.datetime) -> bool:
            return (_created_at(raw) or modified) >= cutoff

        removed = 0
        for path in self.files() + self.aside():
            try:
                modified = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC)
            except FileNotFoundError:
                continue  # Drained meanwhile.
            if any(not keep(raw, modified) for _, raw in self.lines([path])):
                removed += rewrite(path, keep)  # Locked only when a line is due.
        return removed

    def erased(self) -> dict[str, dt.datetime]:
        """When each address (digest) of the erasure log was erased (none without a log)."""
        return erasures.erased_at(self.erasure_log) if self.erasure_log else {}

    def oldest(self) -> dt.datetime | None:
        """When the oldest lead still in the spool was received, or None when it is empty."""
        return min((lead.created_at for lead in self.leads()), default=None)

    def drain(self, store: Callable[[SpooledLead], object]) -> int:
        """Hand every spooled lead to ``store`` (idempotent by key); how many were handed.

        A line that cannot be read, or whose lead ``store`` refuses with ``Unstorable``,
        is set aside (``QUARANTINE``) and the drain goes on; a lead of an erased address
        is dropped. A file is emptied and removed only after all its lines were handled;
        if ``store`` raises anything else (the database is down again) the file stays as
        it was (nothing set aside either) and the exception propagates. Files another
        worker is draining or writing right now are skipped.
        """
        handed = 0
        erased = self.erased()
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
                aside: list[bytes] = []
                for raw in data.splitlines():
                    if not raw.strip():
                        continue
                    try:
                        lead = SpooledLead.parse(raw)
                    except (ValueError, KeyError, TypeError):
                        aside.append(raw)
                        logger.error("An unreadable line of %s is set aside.", path.name)
                        continue
                    email = lead.fields.get("email")
                    when = erased.get(email_digest(email)) if isinstance(email, str) else None
                    # The log has the second: a lead of that very second is dropped too.
                    if erasures.covers(when, lead.created_at):
                        logger.warning("A spooled lead of an erased address was dropped.")
                        continue
                    try:
                        store(lead)
                    except Unstorable as refused:
                        aside.append(raw)
                        logger.error(
                            "A %s lead of %s is set aside: %s", lead.kind, path.name, refused
                        )
                        continue
                    handed += 1
                if aside:
                    self._set_aside(path, aside)
                os.ftruncate(fd, 0)
                os.fsync(fd)
                path.unlink()
            finally:
                os.close(fd)
        return handed

    def _set_aside(self, path: Path, lines: list[bytes]) -> None:
        """Lines the drain could not store: kept as they were for the operator, 0600."""
        target = path.with_suffix(QUARANTINE)
        append_lines(target, b"\n".join(lines) + b"\n")
        logger.error(
            "%s line(s) of %s could not be stored; kept in %s (`leads spool` shows them).",
            len(lines),
            path.name,
            target,
        )

"""The access log read from where the last run stopped: its inode and offset, kept in
``report_log_cursor``, survive a rotation.

logrotate (agency_site/deploy/access_log.py) copies the day into ``<log>.1`` and empties
the live file (``copytruncate``; or moves it there, if configured to). So when the live
file is not the one the cursor names, or is shorter than its offset, the rest of the
cursor's file is read from ``<log>.1`` first, then the live file from its start.
"""

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Cursor:
    """Where reading stopped: a file (its inode) and the offset after its last whole line."""

    inode: int
    offset: int


def _lines(path: Path, offset: int) -> tuple[list[str], int]:
    """The whole lines from ``offset`` and the offset after the last (a torn one waits)."""
    lines = []
    with path.open("rb") as file:
        file.seek(offset)
        for raw in file:
            if not raw.endswith(b"\n"):
                break
            offset += len(raw)
            lines.append(raw.decode("utf-8", errors="replace"))
    return lines, offset


def read(log: Path, cursor: Cursor | None) -> tuple[list[str], Cursor | None]:
    """Every new line of ``log`` since ``cursor``, and the cursor after them."""
    if not log.exists():
        return [], cursor
    live = os.stat(log)
    start, lines = 0, []
    if cursor is not None and cursor.inode == live.st_ino and live.st_size >= cursor.offset:
        start = cursor.offset
    elif cursor is not None:
        rotated = log.with_name(log.name + ".1")
        if rotated.exists():
            old = os.stat(rotated)
            if old.st_ino == cursor.inode or old.st_size >= cursor.offset:
                lines, _ = _lines(rotated, cursor.offset)
    new, offset = _lines(log, start)
    return lines + new, Cursor(live.st_ino, offset)

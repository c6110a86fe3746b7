"""The access log read from where the last run stopped, across a rotation.

The cursor (kept in ``report_log_cursor``) names the file by its inode and by its first
line's timestamp (``head``), and the offset after its last whole line. logrotate
(agency_site/deploy/access_log.py) copies the day into ``<log>.1`` and empties the live
file (``copytruncate``; or moves it there): when the live file is no longer the cursor's
(another inode, shorter than the offset, or another first line), the rest of the
cursor's file is read from ``<log>.1`` (if it is that file), then the live one from its
start. A first run reads ``<log>.1`` too: the log's whole last day.

A live file with no whole line yet has no first line to be known by: its cursor's head
is ``EMPTY`` followed by the head of the last file read before it, so the next run knows
whether ``<log>.1`` is that file (read already) or the live file since filled and rotated
away (its lines all unread).
"""

import json
import os
from dataclasses import dataclass
from pathlib import Path

# The head of a live file with no whole line yet: this, then the last file's head, cut to
# HEAD_KEPT characters (the column holds 40).
EMPTY = "~"
HEAD_KEPT = 39


@dataclass(frozen=True)
class Cursor:
    """Where reading stopped: a file (its inode, its first line's timestamp) and the offset
    after its last whole line."""

    inode: int
    head: str
    offset: int


def head(path: Path) -> str:
    """The timestamp of a file's first line ("" if it has none yet): which file it is."""
    with path.open("rb") as file:
        first = file.readline()
    try:
        return str(json.loads(first)["ts"])[:40]
    except (ValueError, KeyError, TypeError):
        return ""


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


def _is(path: Path, cursor: Cursor) -> bool:
    """Whether ``path`` is still the cursor's file, with its lines up to the offset."""
    status = os.stat(path)
    return (
        status.st_ino == cursor.inode
        and status.st_size >= cursor.offset
        and head(path) == cursor.head
    )


def read(log: Path, cursor: Cursor | None) -> tuple[list[str], Cursor | None]:
    """Every new line of ``log`` since ``cursor``, and the cursor after them."""
    if not log.exists():
        return [], cursor
    rotated = log.with_name(log.name + ".1")
    lines: list[str] = []
    start = 0
    done = cursor.head if cursor else ""  # The head of the last file read.
    if cursor is not None and cursor.head.startswith(EMPTY):
        done = cursor.head.removeprefix(EMPTY)
        if rotated.exists() and head(rotated)[:HEAD_KEPT] not in ("", done):
            lines, _ = _lines(rotated, 0)  # The live file, filled then rotated away.
            done = head(rotated)
    elif cursor is not None and _is(log, cursor):
        start = cursor.offset
    elif rotated.exists() and (cursor is None or head(rotated) == cursor.head):
        lines, _ = _lines(rotated, cursor.offset if cursor else 0)
        done = head(rotated)
    new, offset = _lines(log, start)
    if not offset:  # No whole line in the live file yet.
        return lines, Cursor(os.stat(log).st_ino, EMPTY + done[:HEAD_KEPT], 0)
    return lines + new, Cursor(os.stat(log).st_ino, head(log), offset)

"""A calendar's kept copy (``busy_feed.py`` tells the whole story): ``FeedCopy``, one owner's
calendar with its last good busy intervals, the conditional GET's data, how its fetches go,
and its file in the data folder (``busy-feeds/``, 0600: the busy intervals and when they were
last fetched, nothing else; a copy of the older kind, the whole calendar, turned into
intervals on first read).
"""

import datetime as dt
import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import icalendar

from agency_site.bookings import busy_caldav
from agency_site.bookings.busy_times import Interval

logger = logging.getLogger(__name__)

# The kind of kept copy this code writes: busy intervals only.
COPY_VERSION = 2
# A kept copy's file names: a digest of the calendar's address (``FeedCopy.stem``).
COPY_FILE = re.compile(r"[0-9a-f]{24}\.(json|ics)")


def _interval_json(interval: Interval) -> list[str]:
    return [interval.start.isoformat(), interval.end.isoformat(), interval.series]


def _interval(item: list[str]) -> Interval:
    start, end, series = item
    interval = Interval(dt.datetime.fromisoformat(start), dt.datetime.fromisoformat(end), series)
    if interval.start.tzinfo is None or interval.end.tzinfo is None:
        raise ValueError("a time without its zone")
    return interval


@dataclass
class FeedCopy:
    """One calendar: where it is, its last good copy, and how fetching it goes."""

    number: int  # 1, 2...: how logs and alerts name it (with its host).
    url: str
    folder: Path
    # The last good calendar, in memory only (None after a restart, until a fetch).
    calendar: icalendar.Calendar | None = None
    intervals: list[Interval] = field(default_factory=list)  # Its busy times, expanded.
    etag: str = ""
    last_modified: str = ""
    good_at: dt.datetime | None = None  # The last fetch that got (or confirmed) a calendar.
    failing_since: dt.datetime | None = None  # Since when every fetch failed (None: fine).
    due_at: dt.datetime | None = None  # The next fetch (None: at once).
    problem: str = ""  # The last fetch's failure.
    # How a calendar that is no iCal address is read (CalDAV); None: a conditional GET.
    pull: busy_caldav.Pull | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return f"calendar {self.number} ({urlsplit(self.url).hostname or '?'})"

    @property
    def stem(self) -> Path:
        """Its files' path without suffix: a digest of the (secret) address."""
        return self.folder / hashlib.sha256(self.url.encode()).hexdigest()[:24]

    def load(self, read: Callable[[bytes], list[Interval]]) -> None:
        """Take the busy intervals kept on disk, if any and usable; a copy of the older
        kind (the whole calendar) is turned into intervals with ``read`` (parse and
        expand) and written again without it. One that cannot be used is deleted (the
        first fetch, at once, takes the calendar again)."""
        kept, whole = self.stem.with_suffix(".json"), self.stem.with_suffix(".ics")
        try:
            meta = json.loads(kept.read_text())
            if meta.get("version") == COPY_VERSION:
                intervals = [_interval(item) for item in meta["intervals"]]
            else:  # The older kind: the calendar itself beside its conditional GET's data.
                intervals = read(whole.read_bytes())
            good_at = meta.get("good_at")
            good_at = dt.datetime.fromisoformat(good_at) if good_at else None
        except FileNotFoundError:
            if not whole.exists():
                return
            error_name = "FileNotFoundError"
        except Exception as error:  # A damaged or unreadable file: as if none was kept.
            error_name = type(error).__name__
        else:
            self.intervals, self.good_at = intervals, good_at
            if whole.exists():
                self.save()  # Only the intervals from now on.
                logger.info("The kept copy of %s now holds its busy times only.", self.name)
            return
        logger.warning(
            "The kept copy of %s cannot be used (%s): it is deleted and fetched again.",
            self.name,
            error_name,
        )
        for path in (kept, whole):
            path.unlink(missing_ok=True)

    def save(self) -> None:
        """Keep the busy intervals and when they were last fetched (nothing else)."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = {
            "version": COPY_VERSION,
            "good_at": self.good_at.isoformat() if self.good_at else None,
            "intervals": [_interval_json(interval) for interval in self.intervals],
        }
        _write(self.stem.with_suffix(".json"), json.dumps(data).encode())
        self.stem.with_suffix(".ics").unlink(missing_ok=True)

    def conditions(self) -> dict[str, str]:
        """The conditional GET's headers (none without a good copy in memory)."""
        if self.calendar is None:
            return {}
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


def _write(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` at once (0600): a reader sees the old file or the new."""
    descriptor, name = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise

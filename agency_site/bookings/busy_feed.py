"""The owner's calendars (``BOOKING_BUSY_ICS_URLS``): fetched on a schedule, kept on disk,
expanded into busy times (``busy_times.py``) that the form's free slots and the server's
checks leave out.

- **Fetched in the background**, never in a visitor's request: the bookings plugin's
  watcher (``BusyFeed.watch``) runs in the monitor loop of every backend worker and
  refetches each calendar every ``BOOKING_BUSY_REFRESH_MINUTES``, with a conditional GET
  (``If-None-Match`` / ``If-Modified-Since`` from the last answer's ``ETag`` /
  ``Last-Modified``): an unchanged calendar costs a 304.
- **The last good copy is kept** in the data folder (``busy-feeds/`` beside
  ``LEADS_SPOOL_DIR``, 0600), so a restart keeps the owner's busy times before the first
  fetch. An answer that is no calendar (an error page, a cut file) is not a good copy.
- **Never blocks the form**: a calendar that cannot be fetched keeps its last good copy (none
  yet: nothing busy, the site as without it); once it has failed for
  ``BOOKING_BUSY_ALERT_MINUTES`` the owner is told (an ERROR line and the alert webhook),
  once per host (a marker file, as the spool's alert), and again when it is back.

The addresses are secrets (Google's "secret address in iCal format"): logs and alerts
name a calendar by its number and host only, and the files by a digest of the address.

A CalDAV calendar (``BOOKING_BUSY_CALDAV_URL``, ``busy_caldav.py``) is one more copy, read
by its ``pull`` (the window's events, expanded) instead of a GET; the rest is the same.
"""

import asyncio
import datetime as dt
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import httpx
import icalendar

from agency_site.bookings import busy_caldav
from agency_site.bookings.busy_times import (
    NOTHING_BUSY,
    BusyRules,
    BusyTimes,
    Interval,
    busy_intervals,
    parse,
)
from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.leads.validation import one_year_after
from agency_site.rules import AGENCY_TIME_ZONE
from agency_site.settings import Settings, get_settings

logger = logging.getLogger(__name__)

# The largest calendar taken (a Google calendar of years of events is a few MB).
MAX_BYTES = 20 * 1024 * 1024
FOLDER_NAME = "busy-feeds"
ALERTED = ".alerted"
# Sends the owner an alert (the monitor's webhook): text -> whether it was taken.
Alert = Callable[[str], Awaitable[bool]]


def feed_urls(text: str) -> tuple[str, ...]:
    """The calendar addresses of ``BOOKING_BUSY_ICS_URLS`` (comma- or space-separated);
    ``webcal://`` (what calendar apps hand out) is fetched as ``https://``. One that is no
    http(s) address is left out with an ERROR (the form works without it)."""
    urls = []
    for number, part in enumerate(text.replace(",", " ").split(), 1):
        if part.lower().startswith("webcal://"):
            part = "https://" + part[len("webcal://") :]
        if urlsplit(part).scheme.lower() in ("http", "https") and urlsplit(part).hostname:
            urls.append(part)
        else:
            logger.error(
                "Address %s of BOOKING_BUSY_ICS_URLS is not an http(s):// or webcal:// "
                "address: it is left out.",
                number,
            )
    return tuple(urls)


# A calendar and its busy intervals over the booking window.
Expanded = tuple[icalendar.Calendar, list[Interval]]


@dataclass
class FeedCopy:
    """One calendar: where it is, its last good copy, and how fetching it goes."""

    number: int  # 1, 2...: how logs and alerts name it (with its host).
    url: str
    folder: Path
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

    def load(self, read: Callable[[bytes], Expanded]) -> None:
        """Take the copy kept on disk, if any and usable (``read``: parse and expand)."""
        try:
            body = self.stem.with_suffix(".ics").read_bytes()
            meta = json.loads(self.stem.with_suffix(".json").read_text())
            self.calendar, self.intervals = read(body)
        except FileNotFoundError:
            return
        except Exception as error:  # A damaged file: as if none was kept.
            logger.warning("The kept copy of %s cannot be used (%s).", self.name, error)
            return
        self.etag, self.last_modified = meta.get("etag", ""), meta.get("last_modified", "")
        good_at = meta.get("good_at")
        self.good_at = dt.datetime.fromisoformat(good_at) if good_at else None

    def save(self, body: bytes | None) -> None:
        """Keep ``body`` (None: the same as before) and what the next conditional GET sends."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        meta = {
            "etag": self.etag,
            "last_modified": self.last_modified,
            "good_at": self.good_at.isoformat() if self.good_at else None,
        }
        if body is not None:
            _write(self.stem.with_suffix(".ics"), body)
        _write(self.stem.with_suffix(".json"), json.dumps(meta).encode())

    def conditions(self) -> dict[str, str]:
        """The conditional GET's headers (none without a good copy to keep)."""
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


class FetchFailed(Exception):
    """A calendar could not be had this time (its text says why, without the address)."""


def booking_window(today: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """Where busy times matter: from yesterday (the agency's day) to a year after today,
    as far ahead as the form takes bookings."""
    zone = ZoneInfo(AGENCY_TIME_ZONE)
    start = dt.datetime.combine(today - dt.timedelta(days=1), dt.time(), zone)
    return start, dt.datetime.combine(one_year_after(today) + dt.timedelta(days=2), dt.time(), zone)


@dataclass
class BusyFeed:
    """The owner's calendars of one backend worker; ``busy`` is the ``BusySource``."""

    urls: tuple[str, ...]
    folder: Path
    rules: BusyRules = field(default_factory=BusyRules)
    # Calendars read another way (CalDAV): (address, pull) each.
    pulled: tuple[tuple[str, busy_caldav.Pull], ...] = ()
    refresh_every: dt.timedelta = dt.timedelta(minutes=10)
    alert_after: dt.timedelta = dt.timedelta(hours=1)
    timeout_s: float = 20.0
    copies: list[FeedCopy] = field(init=False)
    _busy: BusyTimes = field(init=False, default=NOTHING_BUSY)
    _expanded_on: dt.date | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.copies = [FeedCopy(n, url, self.folder) for n, url in enumerate(self.urls, 1)]
        for url, pull in self.pulled:
            self.copies.append(FeedCopy(len(self.copies) + 1, url, self.folder, pull=pull))

    def busy(self) -> BusyTimes:
        """The owner's busy times as last expanded (nothing busy without any calendar)."""
        return self._busy

    def read(self, body: bytes, today: dt.date) -> Expanded:
        """``body`` parsed and expanded over the booking window (``ValueError``: no
        calendar; any error of the expansion: not a usable one)."""
        calendar = parse(body)
        return calendar, busy_intervals(calendar, *booking_window(today), self.rules)

    def load(self, today: dt.date | None = None) -> None:
        """Take the copies kept on disk, expanded (at start-up, before any fetch)."""
        today = today or _today()
        for copy in self.copies:
            copy.load(lambda body: self.read(body, today))
        self._combine(today)

    def _combine(self, today: dt.date) -> None:
        intervals = (interval for copy in self.copies for interval in copy.intervals)
        self._busy = BusyTimes(tuple(intervals))
        self._expanded_on = today

    def expand(self, today: dt.date) -> None:
        """Expand every good copy again over the window from ``today`` (a new day); a copy
        that cannot be keeps its busy times."""
        start, end = booking_window(today)
        for copy in self.copies:
            if copy.calendar is None:
                continue
            try:
                copy.intervals = busy_intervals(copy.calendar, start, end, self.rules)
            except Exception:
                logger.exception(
                    "%s cannot be expanded: its busy times stay as they were.", copy.name
                )
        self._combine(today)

    async def refresh(self, now: dt.datetime | None = None) -> bool:
        """Fetch every calendar that is due; expand again when one changed or the day did.
        True when a new calendar was taken."""
        now = now or dt.datetime.now(dt.UTC)
        today = now.astimezone(ZoneInfo(AGENCY_TIME_ZONE)).date()
        changed = False
        due = [copy for copy in self.copies if copy.due_at is None or copy.due_at <= now]
        if due:
            async with httpx.AsyncClient(timeout=self.timeout_s, follow_redirects=True) as client:
                for copy in due:
                    changed |= await self._fetch(client, copy, now, today)
        if today != self._expanded_on:
            await asyncio.to_thread(self.expand, today)
        elif changed:
            self._combine(today)
        return changed

    async def _fetch(
        self, client: httpx.AsyncClient, copy: FeedCopy, now: dt.datetime, today: dt.date
    ) -> bool:
        """One conditional GET of ``copy``; True when a new calendar was taken."""
        copy.due_at = now + self.refresh_every
        try:
            if copy.pull is None:
                answer = await _get(client, copy)
            else:
                answer = await _pulled(copy.pull, today)
            expanded = None
            if answer is not None:
                expanded = await asyncio.to_thread(self.read, answer.body, today)
        except Exception as error:
            copy.problem = str(error) if isinstance(error, FetchFailed) else "not a calendar"
            if copy.failing_since is None:
                copy.failing_since = copy.good_at or now
                logger.warning(
                    "%s could not be fetched (%s): its last good copy is used.",
                    copy.name,
                    copy.problem,
                )
            return False
        copy.failing_since, copy.problem, copy.good_at = None, "", now
        if answer is not None and expanded is not None:
            copy.calendar, copy.intervals = expanded
            copy.etag, copy.last_modified = answer.etag, answer.last_modified
        try:
            await asyncio.to_thread(copy.save, answer.body if answer else None)
        except OSError as error:
            logger.warning("%s cannot be kept on disk (%s): a restart loses it.", copy.name, error)
        return expanded is not None

    def failing(self, now: dt.datetime) -> list[FeedCopy]:
        """The calendars whose fetches have failed for ``alert_after`` or longer."""
        return [
            copy
            for copy in self.copies
            if copy.failing_since is not None and now - copy.failing_since >= self.alert_after
        ]

    async def watch(self, alert: Alert, now: dt.datetime | None = None) -> None:
        """The monitor's round: refresh what is due, then tell the owner, once per host,
        when calendars have failed too long and when they are fetched again."""
        now = now or dt.datetime.now(dt.UTC)
        await self.refresh(now)
        marker = self.folder / ALERTED
        if failing := self.failing(now):
            try:
                self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            except FileExistsError:
                return
            names = ", ".join(f"{copy.name}: {copy.problem}" for copy in failing)
            hours = max(1, round(self.alert_after.total_seconds() / 3600))
            logger.error(
                "The owner's calendar could not be fetched for %s h or more (%s): the form "
                "offers slots with its last good copy.",
                hours,
                names,
            )
            await alert(render(ALERTS.busy_feed_failing, calendars=names, hours=hours))
        elif not any(copy.failing_since for copy in self.copies):
            try:
                marker.unlink()
            except FileNotFoundError:
                return
            logger.warning("The owner's calendars are fetched again.")
            await alert(ALERTS.busy_feed_recovered)


@dataclass(frozen=True)
class FeedAnswer:
    """A calendar's new text and what a conditional GET of it sends next."""

    body: bytes
    etag: str
    last_modified: str


async def _get(client: httpx.AsyncClient, copy: FeedCopy) -> FeedAnswer | None:
    """The calendar's new text, or None when unchanged (304)."""
    try:
        async with client.stream("GET", copy.url, headers=copy.conditions()) as response:
            if response.status_code == httpx.codes.NOT_MODIFIED and copy.calendar is not None:
                return None
            if response.status_code != httpx.codes.OK:
                raise FetchFailed(f"HTTP {response.status_code}")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise FetchFailed(f"larger than {MAX_BYTES // 2**20} MB")
            headers = response.headers
            return FeedAnswer(
                bytes(body), headers.get("ETag", ""), headers.get("Last-Modified", "")
            )
    except httpx.HTTPError as error:
        raise FetchFailed(type(error).__name__) from None


async def _pulled(pull: busy_caldav.Pull, today: dt.date) -> FeedAnswer:
    """A pulled calendar's events of the booking window (always new: no conditions)."""
    try:
        body = await asyncio.to_thread(pull, *booking_window(today))
    except busy_caldav.Unreachable as error:
        raise FetchFailed(str(error)) from None
    return FeedAnswer(body, "", "")


def _today() -> dt.date:
    return dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE)).date()


def from_settings(settings: Settings) -> BusyFeed:
    """The feed of these settings, its kept copies loaded (no calendar: nothing busy)."""
    booking = settings.booking
    caldav_url = booking.busy_caldav_url.get_secret_value().strip()
    account = busy_caldav.CalDavAccount(
        caldav_url, booking.busy_caldav_username, booking.busy_caldav_password.get_secret_value()
    )
    feed = BusyFeed(
        urls=feed_urls(booking.busy_ics_urls.get_secret_value()),
        folder=settings.leads.spool_path.parent / FOLDER_NAME,
        pulled=((caldav_url, busy_caldav.pull(account)),) if caldav_url else (),
        rules=BusyRules(
            all_day_blocks=booking.busy_all_day_blocks,
            buffer=dt.timedelta(minutes=booking.buffer_minutes),
        ),
        refresh_every=dt.timedelta(minutes=booking.busy_refresh_minutes),
        alert_after=dt.timedelta(minutes=booking.busy_alert_minutes),
    )
    if feed.copies:
        feed.load()
    return feed


@lru_cache(maxsize=1)
def shared() -> BusyFeed:
    """This process's feed, shared by the bookings plugin (checks, refresh) and the desk
    (the form's free slots)."""
    return from_settings(get_settings())

"""The owner's calendars (``BOOKING_BUSY_ICS_URLS``): fetched on a schedule, kept on disk as
busy intervals, expanded into busy times (``busy_times.py``) that the form's free slots and
the server's checks leave out. A fetch is ``busy_fetch.py`` (a conditional GET or a CalDAV
pull), a kept copy ``busy_copy.py`` (``FeedCopy``: its intervals on disk); this module runs
them (``BusyFeed``) and tells the owner.

- **Fetched in the background**, never in a visitor's request, and never inside the
  monitor's round: the bookings plugin's watcher (``BusyFeed.watch_in_background``, every
  backend worker) starts a round (``BusyFeed.watch``) in a task of its own unless the last
  one is still running, and returns at once, so the purge, the alerts and the other
  watchers never wait for a calendar server. Each calendar is refetched every
  ``BOOKING_BUSY_REFRESH_MINUTES`` with a conditional GET (``If-None-Match`` /
  ``If-Modified-Since`` from the last answer's ``ETag`` / ``Last-Modified``): an unchanged
  calendar costs a 304.
- **One deadline per fetch** (``deadline``, a minute): connecting, every read and, for a
  CalDAV calendar, every request of its pull run under one ``asyncio.timeout``, so a
  server that trickles its answer a byte at a time fails like one that does not answer
  (``httpx``'s own timeouts bound each read, not the whole).
- **Only the busy intervals are kept** in the data folder (``busy-feeds/`` beside
  ``LEADS_SPOOL_DIR``, 0600): each blocking occurrence's start and end, the digest of its
  series (for ``wide_series``) and when the calendar was last fetched; never a title, an
  attendee, a place or a description. A restart takes them before the first fetch (which
  is then a full GET: the whole calendar is only ever in memory, to be expanded again each
  new day). A copy of the older kind (the whole calendar, ``.ics``) is turned into
  intervals on first read, or dropped if it cannot be; the files of a calendar no longer
  configured are deleted. An answer that is no calendar (an error page, a cut file) is not
  a good copy.
- **Never blocks the form**: a calendar that cannot be fetched keeps its last good copy (none
  yet: nothing busy, the site as without it); once it has failed for
  ``BOOKING_BUSY_ALERT_MINUTES`` the owner is told (an ERROR line and the alert webhook),
  once per host (a marker file, as the spool's alert), and again when it is back.
- **Stale**: a copy not confirmed by a fetch for ``BOOKING_BUSY_STALE_HOURS`` still blocks
  what it blocked (hiding an hour that has since freed costs a visitor one choice;
  offering one the owner is busy for costs a booking the owner must decline), but it is
  shown as ``calendar_stale`` on the health page (``stale``) until a fetch succeeds.
- **A series that takes too much**: when one series blocks more consultation slots of
  working days within four weeks than a whole week of working days holds
  (``busy_times.wide_series``: an invitation from 08:00 to 20:00 every day, a month of
  holidays marked busy) the owner is asked about it once per series and host (a marker
  file per series digest), named by its digest and its first slot, never its title.

The addresses are secrets (Google's "secret address in iCal format"): logs and alerts
name a calendar by its number and host only, and the files by a digest of the address.

A CalDAV calendar (``BOOKING_BUSY_CALDAV_URL``, ``busy_caldav.py``) is one more copy, read
by its ``pull`` (the window's events, expanded) instead of a GET; the rest is the same.
"""

import asyncio
import datetime as dt
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import icalendar

from agency_site.bookings import busy_caldav
from agency_site.bookings.busy_copy import COPY_FILE, FeedCopy
from agency_site.bookings.busy_fetch import (
    FetchFailed,
    booking_window,
    conditional_get,
    feed_urls,
    pulled,
)
from agency_site.bookings.busy_times import (
    NOTHING_BUSY,
    BusyRules,
    BusyTimes,
    Interval,
    WideSeries,
    busy_intervals,
    owner_addresses,
    parse,
    wide_series,
)
from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.forms.email import date_es
from agency_site.rules import AGENCY_TIME_ZONE
from agency_site.settings import Settings, get_settings

logger = logging.getLogger(__name__)

FOLDER_NAME = "busy-feeds"
ALERTED = ".alerted"
# The marker of a series the owner was asked about: this prefix and its digest.
WIDE_ALERTED = ".wide-"
# Sends the owner an alert (the monitor's webhook): text -> whether it was taken.
Alert = Callable[[str], Awaitable[bool]]

# A calendar and its busy intervals over the booking window.
Expanded = tuple[icalendar.Calendar, list[Interval]]


def _marked(marker: Path) -> bool:
    """Create ``marker`` (its folder too) unless it exists: True when this call made it."""
    marker.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    return True


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
    # A copy not confirmed by a fetch this long is shown as stale (BOOKING_BUSY_STALE_HOURS).
    stale_after: dt.timedelta = dt.timedelta(hours=24)
    timeout_s: float = 20.0  # Each connection and read.
    deadline: dt.timedelta = dt.timedelta(minutes=1)  # One whole fetch or pull.
    copies: list[FeedCopy] = field(init=False)
    # The series blocking too much (``wide_series``), with their calendar.
    wide: list[tuple[FeedCopy, WideSeries]] = field(init=False, default_factory=list)
    # The round started by ``watch_in_background`` (None: none yet).
    running: asyncio.Task[None] | None = field(init=False, default=None, repr=False)
    # The series whose marker this process made or found (not looked for again).
    _told: set[str] = field(init=False, default_factory=set, repr=False)
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
        """Take the copies kept on disk (at start-up, before any fetch), and delete those
        of calendars no longer configured."""
        today = today or _today()
        self.forget_others()
        for copy in self.copies:
            copy.load(lambda body: self.read(body, today)[1])
        self._combine(today)

    def forget_others(self) -> None:
        """Delete the kept copies of calendars that are not among ``copies``."""
        mine = {copy.stem.name for copy in self.copies}
        try:
            paths = list(self.folder.iterdir())
        except OSError:  # No folder yet (or none readable): nothing kept.
            return
        for path in paths:
            if COPY_FILE.fullmatch(path.name) and path.stem not in mine:
                path.unlink(missing_ok=True)
                logger.info("A kept copy of a calendar no longer configured was deleted.")

    def _combine(self, today: dt.date) -> None:
        intervals = (interval for copy in self.copies for interval in copy.intervals)
        self._busy = BusyTimes(tuple(intervals))
        self._expanded_on = today
        self.wide = [(copy, wide) for copy in self.copies for wide in wide_series(copy.intervals)]

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
        """One conditional GET (or pull) of ``copy`` within ``deadline``; True when a new
        calendar was taken."""
        copy.due_at = now + self.refresh_every
        seconds = self.deadline.total_seconds()
        try:
            async with asyncio.timeout(seconds):
                if copy.pull is None:
                    answer = await conditional_get(client, copy)
                else:
                    answer = await pulled(copy.pull, today)
            expanded = None
            if answer is not None:
                expanded = await asyncio.to_thread(self.read, answer.body, today)
        except Exception as error:
            if isinstance(error, TimeoutError):
                copy.problem = f"no whole answer within {seconds:g} s"
            else:
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
            await asyncio.to_thread(copy.save)
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

    def stale(self, now: dt.datetime) -> list[FeedCopy]:
        """The copies that still block what they blocked but no fetch has confirmed for
        ``stale_after`` or longer."""
        return [
            copy
            for copy in self.copies
            if copy.good_at is not None and now - copy.good_at >= self.stale_after
        ]

    async def watch_in_background(self, alert: Alert) -> None:
        """The monitor's round: start ``watch`` in a task of its own unless the last one
        is still running, and return at once (a slow calendar server never holds up the
        purge, the alerts or the other watchers; each fetch has its ``deadline``)."""
        if self.running is None or self.running.done():
            self.running = asyncio.get_running_loop().create_task(
                self._watch_logged(alert), name="owner-calendars"
            )

    async def _watch_logged(self, alert: Alert) -> None:
        try:
            await self.watch(alert)
        except Exception:
            logger.exception("The owner's calendars could not be watched this round.")

    async def watch(self, alert: Alert, now: dt.datetime | None = None) -> None:
        """One round: refresh what is due, then tell the owner, once per host, when
        calendars have failed too long and when they are fetched again, and of each new
        series blocking too much."""
        now = now or dt.datetime.now(dt.UTC)
        await self.refresh(now)
        await self._tell_failing(alert, now)
        await self._tell_wide(alert)

    async def _tell_failing(self, alert: Alert, now: dt.datetime) -> None:
        marker = self.folder / ALERTED
        if failing := self.failing(now):
            if not _marked(marker):
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

    async def _tell_wide(self, alert: Alert) -> None:
        """Ask the owner, once per series and host, about each series blocking too much."""
        for copy, wide in self.wide:
            if wide.series in self._told:
                continue
            try:
                first_time = _marked(self.folder / f"{WIDE_ALERTED}{wide.series}")
            except OSError as error:
                logger.warning("The marker of series %s cannot be kept (%s).", wide.series, error)
                continue
            self._told.add(wide.series)
            if not first_time:
                continue
            first = wide.first.astimezone(ZoneInfo(AGENCY_TIME_ZONE))
            logger.warning(
                "Series %s of %s blocks %s consultation slots of working days within four "
                "weeks, more than a whole week of them (from %s): the owner is asked about it.",
                wide.series,
                copy.name,
                wide.slots,
                first.date().isoformat(),
            )
            await alert(
                render(
                    ALERTS.busy_series_wide,
                    calendar=copy.name,
                    series=wide.series,
                    slots=wide.slots,
                    date=date_es(first.date().isoformat()),
                    time=f"{first:%H:%M}",
                )
            )


def _today() -> dt.date:
    return dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE)).date()


def from_settings(settings: Settings) -> BusyFeed:
    """The feed of these settings, its kept copies loaded (no calendar: nothing busy, and
    the copies of calendars once configured deleted)."""
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
            owner=owner_addresses(booking.owner_emails or settings.agency.email),
            tentative_blocks=booking.busy_tentative,
        ),
        refresh_every=dt.timedelta(minutes=booking.busy_refresh_minutes),
        alert_after=dt.timedelta(minutes=booking.busy_alert_minutes),
        stale_after=dt.timedelta(hours=booking.busy_stale_hours),
    )
    if feed.copies:
        feed.load()
    else:
        feed.forget_others()
    return feed


@lru_cache(maxsize=1)
def shared() -> BusyFeed:
    """This process's feed, shared by the bookings plugin (checks, refresh) and the desk
    (the form's free slots)."""
    return from_settings(get_settings())

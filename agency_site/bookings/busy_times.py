"""The owner's busy times: which calendar events block a consultation, and which slots they
cover. Pure: iCalendar text in, ``BusyTimes`` out (fetching and caching: ``busy_feed.py``).

The events of each calendar are expanded over the booking window with
``recurring-ical-events`` (recurrences, exceptions, moved occurrences, time zones, and
Google's ``X-WR-TIMEZONE`` through ``x-wr-timezone``). An occurrence blocks (``blocks``)
unless:

- it is cancelled (``STATUS:CANCELLED``, e.g. one occurrence of a series called off);
- it is marked free (``TRANSP:TRANSPARENT``: "Available" in Google, "Free" elsewhere), or
  Outlook says so (``X-MICROSOFT-CDO-BUSYSTATUS:FREE``; ``BUSY``, ``OOF`` and
  ``TENTATIVE`` block);
- it lasts whole days (a birthday, a reminder, a holiday) and ``BOOKING_BUSY_ALL_DAY_BLOCKS``
  is off (the default: most all-day entries are notes; the agency's closed days are
  ``BOOKING_CLOSED_DAYS``).

A blocking occurrence is busy from ``BOOKING_BUFFER_MINUTES`` before it starts until as
long after it ends. A slot is a consultation of ``CONSULTATION_MINUTES`` from its start
time (the agency's clock) and is busy when it overlaps a busy interval (half-open: a
meeting ending at 10:00 leaves the 10:00 slot free without a buffer; an event that takes
no time, a start without end or duration, blocks nothing). Dates without a time and
times without a zone (floating) are the agency's (Europe/Madrid).
"""

import bisect
import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events

from agency_site.bookings.calendar_file import CONSULTATION_MINUTES
from agency_site.rules import AGENCY_TIME_ZONE, TIME_SLOTS

# How long a slot is taken: the consultation, from the slot's start.
SLOT_LENGTH = dt.timedelta(minutes=CONSULTATION_MINUTES)
# Outlook's free/busy state of an event; every other value blocks.
FREE_BUSY_STATUS = "X-MICROSOFT-CDO-BUSYSTATUS"
OUTLOOK_ALL_DAY = "X-MICROSOFT-CDO-ALLDAYEVENT"


@dataclass(frozen=True)
class BusyRules:
    """How the owner's events block slots (``BOOKING_BUSY_ALL_DAY_BLOCKS``,
    ``BOOKING_BUFFER_MINUTES``)."""

    all_day_blocks: bool = False
    buffer: dt.timedelta = dt.timedelta(0)


def _text(component: icalendar.cal.Component, name: str) -> str:
    return str(component.get(name, "")).strip().upper()


def all_day(event: icalendar.cal.Component) -> bool:
    """Whether ``event`` lasts whole days (a date without a time, or Outlook says so)."""
    start = event.get("DTSTART")
    is_date = start is not None and not isinstance(start.dt, dt.datetime)
    return is_date or _text(event, OUTLOOK_ALL_DAY) == "TRUE"


def blocks(event: icalendar.cal.Component, rules: BusyRules) -> bool:
    """Whether this occurrence of an event keeps the owner busy (the module's rules)."""
    if _text(event, "STATUS") == "CANCELLED":
        return False
    if _text(event, "TRANSP") == "TRANSPARENT" or _text(event, FREE_BUSY_STATUS) == "FREE":
        return False
    return rules.all_day_blocks or not all_day(event)


def _aware(moment: dt.date, zone: ZoneInfo) -> dt.datetime:
    """``moment`` as an aware datetime: a date starts its day, a floating time is ``zone``'s."""
    if not isinstance(moment, dt.datetime):
        return dt.datetime.combine(moment, dt.time(), zone)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)


@dataclass(frozen=True)
class Interval:
    """A busy stretch of time, ``start`` included, ``end`` not (aware datetimes)."""

    start: dt.datetime
    end: dt.datetime


def occurrence_interval(event: icalendar.cal.Component, zone: ZoneInfo) -> Interval | None:
    """When one occurrence happens (None: no start, or it takes no time)."""
    start = event.get("DTSTART")
    if start is None:
        return None
    try:
        end = event.end  # DTEND, or DTSTART + DURATION, or RFC 5545's default.
    except (icalendar.IncompleteComponent, ValueError, TypeError):
        end = start.dt
    interval = Interval(_aware(start.dt, zone), _aware(end, zone))
    return interval if interval.end > interval.start else None


def merged(intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """``intervals`` sorted, overlapping and touching ones made one."""
    out: list[Interval] = []
    for interval in sorted(intervals, key=lambda i: i.start):
        if out and interval.start <= out[-1].end:
            if interval.end > out[-1].end:
                out[-1] = Interval(out[-1].start, interval.end)
        else:
            out.append(interval)
    return tuple(out)


@dataclass(frozen=True)
class BusyTimes:
    """The owner's busy intervals (buffer included), merged and sorted."""

    intervals: tuple[Interval, ...] = ()
    _ends: tuple[dt.datetime, ...] = field(init=False, repr=False, compare=False)
    _starts: tuple[dt.datetime, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        intervals = merged(self.intervals)
        object.__setattr__(self, "intervals", intervals)
        object.__setattr__(self, "_starts", tuple(i.start for i in intervals))
        object.__setattr__(self, "_ends", tuple(i.end for i in intervals))

    def overlaps(self, start: dt.datetime, end: dt.datetime) -> bool:
        """Whether ``[start, end)`` overlaps a busy interval."""
        # The last interval starting before ``end``; merged, so its end is the latest.
        last = bisect.bisect_left(self._starts, end) - 1
        return last >= 0 and self._ends[last] > start

    def blocks(self, day: dt.date, slot: str) -> bool:
        """Whether the consultation at ``slot`` on ``day`` (the agency's clock) is busy."""
        start = slot_start(day, slot)
        return self.overlaps(start, start + SLOT_LENGTH)

    def busy_slots(self, day: dt.date) -> frozenset[str]:
        """The slots of ``day`` the owner is busy for."""
        return frozenset(slot for slot in TIME_SLOTS if self.blocks(day, slot))


# No calendar, or none fetched yet: every slot as today (``BOOKING_BUSY_ICS_URLS`` unset).
NOTHING_BUSY = BusyTimes()
# Where the owner's busy times come from: an iCal feed (``busy_feed.BusyFeed.busy``) or,
# behind the same call, any other source (a CalDAV calendar, a test's fixed set).
BusySource = Callable[[], BusyTimes]


def nothing_busy() -> BusyTimes:
    """The ``BusySource`` of a site without the owner's calendar."""
    return NOTHING_BUSY


def slot_start(day: dt.date, slot: str) -> dt.datetime:
    """When the consultation at ``slot`` on ``day`` starts (aware, the agency's zone)."""
    return dt.datetime.combine(day, dt.time.fromisoformat(slot), ZoneInfo(AGENCY_TIME_ZONE))


def parse(text: bytes | str) -> icalendar.Calendar:
    """One iCalendar file (``ValueError`` when it is none: an HTML page, a truncated file)."""
    try:
        calendar = icalendar.Calendar.from_ical(text)
    except Exception as error:  # The parser's own errors vary with what it was given.
        raise ValueError(f"not a calendar: {type(error).__name__}") from None
    if not isinstance(calendar, icalendar.Calendar):
        raise ValueError("not a VCALENDAR")
    return calendar


def busy_intervals(
    calendar: icalendar.Calendar, start: dt.datetime, end: dt.datetime, rules: BusyRules
) -> list[Interval]:
    """The blocking occurrences of ``calendar`` between ``start`` and ``end``, widened by
    the buffer (a series the library cannot expand is skipped, not the whole calendar)."""
    zone = ZoneInfo(AGENCY_TIME_ZONE)
    found = []
    for event in recurring_ical_events.of(calendar, skip_bad_series=True).between(start, end):
        if not blocks(event, rules):
            continue
        interval = occurrence_interval(event, zone)
        if interval is not None:
            found.append(Interval(interval.start - rules.buffer, interval.end + rules.buffer))
    return found


def busy_times(
    calendars: Iterable[icalendar.Calendar],
    start: dt.datetime,
    end: dt.datetime,
    rules: BusyRules,
) -> BusyTimes:
    """The owner's busy times between ``start`` and ``end`` from all of ``calendars``."""
    return BusyTimes(
        tuple(i for calendar in calendars for i in busy_intervals(calendar, start, end, rules))
    )

"""The owner's busy times: which calendar events block a consultation, and which slots they
cover. Pure: iCalendar text in, ``BusyTimes`` out (fetching and caching: ``busy_feed.py``).

The events of each calendar are expanded over the booking window with
``recurring-ical-events`` (recurrences, exceptions, moved occurrences, time zones, and
Google's ``X-WR-TIMEZONE`` through ``x-wr-timezone``). An occurrence blocks (``blocks``)
only when it is the owner's own time (``owner_reply``):

- the owner organised it (``ORGANIZER`` is one of ``BOOKING_OWNER_EMAILS``), or it has no
  attendees at all (a private block);
- or the owner is one of its attendees and accepted it (``PARTSTAT=ACCEPTED``; ``TENTATIVE``
  too with ``BOOKING_BUSY_TENTATIVE``). Declined, unanswered (``NEEDS-ACTION``, the default),
  delegated invitations do not block, nor events with attendees the owner is not among: a
  calendar that adds every invitation (Google's default) cannot be filled by an outsider.
  Each occurrence is judged on its own component, so an exception of a series where the
  owner answered otherwise counts as answered. Exchange and Outlook write every attendee
  as ``NEEDS-ACTION`` and the owner's answer as their busy status: in their calendars
  (``PRODID`` of Microsoft's) ``BUSY``/``OOF`` count as accepted and ``TENTATIVE`` (also
  Outlook's state of an invitation not answered yet) as tentative.

and unless:

- it is cancelled (``STATUS:CANCELLED``, e.g. one occurrence of a series called off);
- it is marked free (``TRANSP:TRANSPARENT``: "Available" in Google, "Free" elsewhere), or
  Outlook says so (``X-MICROSOFT-CDO-BUSYSTATUS:FREE``; ``BUSY``, ``OOF`` and
  ``TENTATIVE`` block the owner's own events);
- it lasts whole days (a birthday, a reminder, a holiday) and ``BOOKING_BUSY_ALL_DAY_BLOCKS``
  is off (the default: most all-day entries are notes; the agency's closed days are
  ``BOOKING_CLOSED_DAYS``).

A series that cannot block is not expanded at all (an invitation the owner did not accept,
whose exceptions are still judged one by one), nor one repeating every second or minute
(no calendar of consultations has one; thousands of occurrences a day would only cost
time), so an outsider's invitation costs nothing.

A blocking occurrence is busy from ``BOOKING_BUFFER_MINUTES`` before it starts until as
long after it ends. A slot is a consultation of ``CONSULTATION_MINUTES`` from its start
time (the agency's clock) and is busy when it overlaps a busy interval (half-open: a
meeting ending at 10:00 leaves the 10:00 slot free without a buffer; an event that takes
no time, a start without end or duration, blocks nothing). Dates without a time and
times without a zone (floating) are the agency's (Europe/Madrid).

Each interval remembers its series as a digest of the event's ``UID`` (never its title):
``wide_series`` finds a series blocking more consultation slots of working days within
four weeks than a whole week of working days holds, for the owner to be asked about it.
"""

import bisect
import datetime as dt
import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

import icalendar
import recurring_ical_events

from agency_site.bookings.calendar_file import CONSULTATION_MINUTES
from agency_site.rules import AGENCY_TIME_ZONE, TIME_SLOTS

# How long a slot is taken: the consultation, from the slot's start.
SLOT_LENGTH = dt.timedelta(minutes=CONSULTATION_MINUTES)
# Outlook's free/busy state of an event; every other value blocks the owner's own events.
FREE_BUSY_STATUS = "X-MICROSOFT-CDO-BUSYSTATUS"
OUTLOOK_ALL_DAY = "X-MICROSOFT-CDO-ALLDAYEVENT"
# The series an occurrence belongs to when its UID was made its own (``busy_caldav``).
SERIES = "X-AGENCY-SERIES"
# The owner's answers to an invitation (``PARTSTAT``; RFC 5545's default: not answered).
ACCEPTED, TENTATIVE, NEEDS_ACTION = "ACCEPTED", "TENTATIVE", "NEEDS-ACTION"
# What ``owner_reply`` says of the owner's own time, and of an event the owner is not in.
OWN, NOT_INVITED = "OWN", "NOT-INVITED"
# Outlook's busy status of an invitation, read as the owner's answer in Microsoft's
# calendars (which write every attendee as NEEDS-ACTION).
_OUTLOOK_ANSWERS = {"BUSY": ACCEPTED, "OOF": ACCEPTED, "TENTATIVE": TENTATIVE}
# Repeats no calendar of consultations needs, at thousands of occurrences a day.
_TOO_FREQUENT = frozenset({"SECONDLY", "MINUTELY"})
# ``wide_series``: more slots of working days within this span than a week of them holds.
WIDE_SPAN = dt.timedelta(days=28)
WORKING_WEEK_SLOTS = 5 * len(TIME_SLOTS)


@dataclass(frozen=True)
class BusyRules:
    """How the owner's events block slots (``BOOKING_BUSY_ALL_DAY_BLOCKS``,
    ``BOOKING_BUFFER_MINUTES``, ``BOOKING_OWNER_EMAILS``, ``BOOKING_BUSY_TENTATIVE``)."""

    all_day_blocks: bool = False
    buffer: dt.timedelta = dt.timedelta(0)
    # The owner's addresses (``owner_addresses``): whose answers to invitations count.
    owner: frozenset[str] = frozenset()
    # Whether the owner's "maybe" (PARTSTAT=TENTATIVE) blocks like "yes".
    tentative_blocks: bool = False


def address(value: object) -> str:
    """A calendar user address as compared: without ``mailto:``, in lower case."""
    text = str(value).strip()
    if text[:7].lower() == "mailto:":
        text = text[7:]
    return text.strip().lower()


def owner_addresses(text: str) -> frozenset[str]:
    """The addresses of ``BOOKING_OWNER_EMAILS`` (comma- or space-separated)."""
    return frozenset(filter(None, (address(part) for part in text.replace(",", " ").split())))


def _text(component: icalendar.cal.Component, name: str) -> str:
    return str(component.get(name, "")).strip().upper()


def _all(component: icalendar.cal.Component, name: str) -> list:
    """Every value of a property that may appear more than once (``ATTENDEE``)."""
    value = component.get(name)
    return [] if value is None else value if isinstance(value, list) else [value]


def _addresses(prop: object) -> set[str]:
    """A calendar user's addresses: its value and its ``EMAIL`` parameter (RFC 7986)."""
    found = {address(prop)}
    params = getattr(prop, "params", {})
    if email := params.get("EMAIL"):
        found.add(address(email))
    return found


def _answer(attendee: object) -> str:
    """An attendee's answer (``PARTSTAT``, upper case; RFC 5545's default when unset)."""
    params = getattr(attendee, "params", {})
    return str(params.get("PARTSTAT", NEEDS_ACTION)).strip().upper()


def owner_reply(
    event: icalendar.cal.Component, owner: frozenset[str], microsoft: bool = False
) -> str:
    """The owner's part in ``event``: ``OWN`` (organised by the owner, or no attendees),
    ``NOT_INVITED`` (attendees, the owner not among them), else the owner's answer
    (``PARTSTAT``, upper case; ``NEEDS-ACTION`` when unset). ``microsoft``: the calendar is
    Exchange's or Outlook's, whose busy status is the owner's answer."""
    organizer = event.get("ORGANIZER")
    if organizer is not None and _addresses(organizer) & owner:
        return OWN
    attendees = _all(event, "ATTENDEE")
    if not attendees:
        return OWN
    answers = [_answer(attendee) for attendee in attendees if _addresses(attendee) & owner]
    if not answers:
        return NOT_INVITED
    for answer in (ACCEPTED, TENTATIVE):
        if answer in answers:
            return answer
    if microsoft and NEEDS_ACTION in answers:
        return _OUTLOOK_ANSWERS.get(_text(event, FREE_BUSY_STATUS), NEEDS_ACTION)
    return answers[0]


def _owner_busy(reply: str, rules: BusyRules) -> bool:
    """Whether the owner's part in an event keeps the owner busy."""
    return reply in (OWN, ACCEPTED) or (reply == TENTATIVE and rules.tentative_blocks)


def all_day(event: icalendar.cal.Component) -> bool:
    """Whether ``event`` lasts whole days (a date without a time, or Outlook says so)."""
    start = event.get("DTSTART")
    is_date = start is not None and not isinstance(start.dt, dt.datetime)
    return is_date or _text(event, OUTLOOK_ALL_DAY) == "TRUE"


def blocks(event: icalendar.cal.Component, rules: BusyRules, microsoft: bool = False) -> bool:
    """Whether this occurrence of an event keeps the owner busy (the module's rules;
    ``microsoft``: the calendar is Exchange's or Outlook's)."""
    if _text(event, "STATUS") == "CANCELLED":
        return False
    if _text(event, "TRANSP") == "TRANSPARENT" or _text(event, FREE_BUSY_STATUS) == "FREE":
        return False
    if not _owner_busy(owner_reply(event, rules.owner, microsoft), rules):
        return False
    return rules.all_day_blocks or not all_day(event)


def from_microsoft(calendar: icalendar.Calendar) -> bool:
    """Whether Exchange or Outlook wrote ``calendar`` (its ``PRODID``)."""
    return "MICROSOFT" in _text(calendar, "PRODID")


def series_of(event: icalendar.cal.Component) -> str:
    """A short digest of the series ``event`` belongs to (its UID; never its title)."""
    uid = str(event.get(SERIES) or event.get("UID") or event.get("DTSTART", ""))
    return hashlib.sha256(uid.encode()).hexdigest()[:12]


def _aware(moment: dt.date, zone: ZoneInfo) -> dt.datetime:
    """``moment`` as an aware datetime: a date starts its day, a floating time is ``zone``'s."""
    if not isinstance(moment, dt.datetime):
        return dt.datetime.combine(moment, dt.time(), zone)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)


@dataclass(frozen=True)
class Interval:
    """A busy stretch of time, ``start`` included, ``end`` not (aware datetimes); ``series``:
    the digest of the series it comes from (``series_of``), if known."""

    start: dt.datetime
    end: dt.datetime
    series: str = field(default="", compare=False)


def occurrence_interval(event: icalendar.cal.Component, zone: ZoneInfo) -> Interval | None:
    """When one occurrence happens (None: no start, or it takes no time)."""
    start = event.get("DTSTART")
    if start is None:
        return None
    try:
        end = event.end  # DTEND, or DTSTART + DURATION, or RFC 5545's default.
    except (icalendar.IncompleteComponent, ValueError, TypeError):
        end = start.dt
    interval = Interval(_aware(start.dt, zone), _aware(end, zone), series_of(event))
    return interval if interval.end > interval.start else None


def merged(intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """``intervals`` sorted, overlapping and touching ones made one."""
    out: list[Interval] = []
    for interval in sorted(intervals, key=lambda i: i.start):
        if out and interval.start <= out[-1].end:
            if interval.end > out[-1].end:
                out[-1] = Interval(out[-1].start, interval.end)
        else:
            out.append(Interval(interval.start, interval.end))
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


def _too_frequent(event: icalendar.cal.Component) -> bool:
    """Whether ``event`` repeats every second or minute."""
    for rule in _all(event, "RRULE"):
        frequency = rule.get("FREQ", "") if hasattr(rule, "get") else ""
        values = frequency if isinstance(frequency, list) else [frequency]
        if any(str(value).strip().upper() in _TOO_FREQUENT for value in values):
            return True
    return False


def worth_expanding(calendar: icalendar.Calendar, rules: BusyRules) -> icalendar.Calendar:
    """``calendar`` without the events that cannot block whatever their occurrences: a
    series' main event (or a single event) the owner did not accept, unless an exception
    of it changes the series from then on (``RANGE=THISANDFUTURE``): its exceptions stay and
    are judged each on its own. And without series repeating every second or minute."""
    microsoft = from_microsoft(calendar)
    from_then_on = {
        str(event.get("UID"))
        for event in calendar.walk("VEVENT")
        if "RECURRENCE-ID" in event
        and str(event["RECURRENCE-ID"].params.get("RANGE", "")).upper() == "THISANDFUTURE"
    }
    kept = icalendar.Calendar()
    for name, value in calendar.items():
        kept[name] = value
    for component in calendar.subcomponents:
        if component.name == "VEVENT":
            if _too_frequent(component):
                continue
            is_main = "RECURRENCE-ID" not in component
            cannot_block = not _owner_busy(owner_reply(component, rules.owner, microsoft), rules)
            if is_main and cannot_block and str(component.get("UID")) not in from_then_on:
                continue
        kept.add_component(component)
    return kept


def busy_intervals(
    calendar: icalendar.Calendar, start: dt.datetime, end: dt.datetime, rules: BusyRules
) -> list[Interval]:
    """The blocking occurrences of ``calendar`` between ``start`` and ``end``, widened by
    the buffer (a series the library cannot expand is skipped, not the whole calendar)."""
    zone = ZoneInfo(AGENCY_TIME_ZONE)
    microsoft = from_microsoft(calendar)
    found = []
    expandable = worth_expanding(calendar, rules)
    for event in recurring_ical_events.of(expandable, skip_bad_series=True).between(start, end):
        if not blocks(event, rules, microsoft):
            continue
        interval = occurrence_interval(event, zone)
        if interval is not None:
            found.append(
                Interval(
                    interval.start - rules.buffer, interval.end + rules.buffer, interval.series
                )
            )
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


# --- A series that takes too much: the owner is asked about it -------------------------


@dataclass(frozen=True)
class WideSeries:
    """A series blocking more than a week of working days' slots within ``WIDE_SPAN``."""

    series: str  # Its digest (``series_of``).
    slots: int  # The most consultation slots of working days it blocks within WIDE_SPAN.
    first: dt.datetime  # The start of its first slot it blocks (the agency's zone).


def _working_slots(interval: Interval) -> Iterable[tuple[dt.date, str]]:
    """The slots of working days (Monday to Friday) ``interval`` makes busy."""
    zone = ZoneInfo(AGENCY_TIME_ZONE)
    day = interval.start.astimezone(zone).date()
    last = interval.end.astimezone(zone).date()
    while day <= last:
        if day.weekday() < 5:
            for slot in TIME_SLOTS:
                start = slot_start(day, slot)
                if start < interval.end and interval.start < start + SLOT_LENGTH:
                    yield day, slot
        day += dt.timedelta(days=1)


def wide_series(intervals: Iterable[Interval]) -> list[WideSeries]:
    """The series among ``intervals`` that block more consultation slots of working days
    within any ``WIDE_SPAN`` than a whole week of working days holds (a daily invitation
    from 08:00 to 20:00, a month of holidays marked busy), by digest."""
    taken: dict[str, set[tuple[dt.date, str]]] = {}
    for interval in intervals:
        if interval.series:
            taken.setdefault(interval.series, set()).update(_working_slots(interval))
    found = []
    for series, slots in sorted(taken.items()):
        per_day = sorted(Counter(day for day, _slot in slots).items())
        most = in_span = 0
        first = 0
        for day, count in per_day:
            in_span += count
            while per_day[first][0] <= day - WIDE_SPAN:
                in_span -= per_day[first][1]
                first += 1
            most = max(most, in_span)
        if most > WORKING_WEEK_SLOTS:
            day, slot = min(slots)
            found.append(WideSeries(series, most, slot_start(day, slot)))
    return found

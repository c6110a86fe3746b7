"""Which slots the form and the pages offer: a day's free ones, and the nearest free ones
when the asked one is taken (not held by a booking, ``slots.taken``, and not a time the
owner's calendar is busy, ``busy_times.py``)."""

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import Session

from agency_site.bookings.busy_times import NOTHING_BUSY, BusyTimes
from agency_site.bookings.slots import taken
from agency_site.working_calendar import WorkingCalendar

# How far ahead the nearest free slots are looked for when the asked one is taken.
_SEARCH_DAYS = 21


@dataclass(frozen=True)
class Availability:
    """What the form offers for a day."""

    free: tuple[str, ...]  # The day's slots still open, not held and not busy, in order.
    # The day's slots held by a pending or confirmed booking, or the owner is busy for.
    taken: tuple[str, ...]
    full: bool  # The day reached BOOKING_DAILY_LIMIT.


def availability(
    engine: sa.Engine,
    date: dt.date,
    now: dt.datetime,
    calendar: WorkingCalendar,
    daily_limit: int,
    busy: BusyTimes = NOTHING_BUSY,
) -> Availability:
    """The free slots of ``date`` at ``now`` (``busy``: the owner's calendar)."""
    held = taken(engine, [date])[date]
    full = bool(daily_limit) and len(held) >= daily_limit
    unavailable = held | busy.busy_slots(date)
    free = () if full else tuple(s for s in calendar.open_slots(date, now) if s not in unavailable)
    return Availability(free=free, taken=tuple(sorted(unavailable)), full=full)


def nearest_free(
    bind: sa.Engine | Session,
    date: dt.date,
    time: str,
    now: dt.datetime,
    calendar: WorkingCalendar,
    daily_limit: int,
    count: int = 3,
    busy: BusyTimes = NOTHING_BUSY,
) -> list[tuple[dt.date, str]]:
    """Up to ``count`` free slots nearest to ``date`` ``time``: that day's first (closest
    in time), then the following working days' in order (none the owner is ``busy`` for)."""
    found: list[tuple[dt.date, str]] = []
    for day, free in free_by_day(bind, date, now, calendar, daily_limit, busy):
        if day == date:
            free.sort(key=lambda slot: abs(_minutes(slot) - _minutes(time)))
        found.extend((day, slot) for slot in free)
        if len(found) >= count:
            break
    return found[:count]


def free_by_day(
    bind: sa.Engine | Session,
    start: dt.date,
    now: dt.datetime,
    calendar: WorkingCalendar,
    daily_limit: int,
    busy: BusyTimes = NOTHING_BUSY,
) -> list[tuple[dt.date, list[str]]]:
    """The days from ``start`` on (``_SEARCH_DAYS`` of them) with free slots, and those
    slots in order (none held, none the owner is ``busy`` for)."""
    days = [start + dt.timedelta(days=n) for n in range(_SEARCH_DAYS)]
    held = taken(bind, days)
    found = []
    for day in days:
        if daily_limit and len(held[day]) >= daily_limit:
            continue
        open_slots = calendar.open_slots(day, now)
        if free := [s for s in open_slots if s not in held[day] and not busy.blocks(day, s)]:
            found.append((day, free))
    return found


def _minutes(slot: str) -> int:
    hours, minutes = slot.split(":")
    return int(hours) * 60 + int(minutes)

"""The agency's working calendar: which days and slots a consultation can be booked for.

Monday to Friday, except the public holidays of Spain and Catalonia (``holidays``,
country ES, subdivision CT) and the closed days of ``BOOKING_CLOSED_DAYS`` (Agramunt's
local holidays, the agency's own closures). Today's slots are offered only if they start
at least ``BOOKING_MIN_NOTICE_HOURS`` from now, in the agency's time zone.

The server judges every booking with this; the form computes the same in the browser
from ``non_working_days`` (see ``components/form_hooks.py``) only to offer the right slots.
"""

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from zoneinfo import ZoneInfo

import holidays

from agency_site.rules import AGENCY_TIME_ZONE, TIME_SLOTS
from agency_site.settings import get_settings

HOLIDAY_COUNTRY = "ES"
HOLIDAY_SUBDIVISION = "CT"  # Catalonia.
# Saturday and Sunday (date.weekday()).
WEEKEND = frozenset({5, 6})


def one_year_after(day: dt.date) -> dt.date:
    """The same day a year later (28 February for 29 February): the last day a booking may
    be for, from today."""
    try:
        return day.replace(year=day.year + 1)
    except ValueError:
        return day.replace(year=day.year + 1, day=28)


class Closure(StrEnum):
    """Why the agency does not work on a day."""

    WEEKEND = "weekend"
    HOLIDAY = "holiday"  # A public holiday of Spain or Catalonia.
    CLOSED = "closed"  # A closed day of the settings.


def agency_now() -> dt.datetime:
    """The current time in the agency's time zone."""
    return dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE))


@dataclass(frozen=True)
class WorkingCalendar:
    """Working days and bookable slots."""

    closed_days: frozenset[dt.date] = frozenset()
    min_notice: dt.timedelta = dt.timedelta(hours=2)

    def closure(self, day: dt.date) -> Closure | None:
        """Why ``day`` is not a working day, or None when it is one."""
        if day.weekday() in WEEKEND:
            return Closure.WEEKEND
        if day in _public_holidays(day.year):
            return Closure.HOLIDAY
        if day in self.closed_days:
            return Closure.CLOSED
        return None

    def open_slots(self, day: dt.date, now: dt.datetime) -> tuple[str, ...]:
        """The slots of ``day`` still bookable at ``now`` (an aware datetime)."""
        if self.closure(day) is not None:
            return ()
        zone = ZoneInfo(AGENCY_TIME_ZONE)
        earliest = now.astimezone(zone) + self.min_notice
        return tuple(
            slot
            for slot in TIME_SLOTS
            if dt.datetime.combine(day, dt.time.fromisoformat(slot), zone) >= earliest
        )

    def next_working_day(self, day: dt.date) -> dt.date:
        """``day`` itself if the agency works then, else the first working day after it."""
        while self.closure(day) is not None:
            day += dt.timedelta(days=1)
        return day

    def non_working_days(self, start: dt.date, end: dt.date) -> list[dt.date]:
        """Holidays and closed days from ``start`` to ``end`` that fall on weekdays."""
        days = []
        day = start
        while day <= end:
            if self.closure(day) in (Closure.HOLIDAY, Closure.CLOSED):
                days.append(day)
            day += dt.timedelta(days=1)
        return days


@lru_cache(maxsize=16)
def _public_holidays(year: int) -> frozenset[dt.date]:
    """The public holidays of Spain and Catalonia in ``year``."""
    return frozenset(
        holidays.country_holidays(HOLIDAY_COUNTRY, subdiv=HOLIDAY_SUBDIVISION, years=year)
    )


@lru_cache(maxsize=1)
def default_calendar() -> WorkingCalendar:
    """The calendar of the ``BOOKING_*`` settings."""
    booking = get_settings().booking
    return WorkingCalendar(
        closed_days=booking.closed_dates,
        min_notice=dt.timedelta(hours=booking.min_notice_hours),
    )

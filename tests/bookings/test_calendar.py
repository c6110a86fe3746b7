"""Bookings only when the agency works: weekdays, no public holidays, no closed days, no passed slots.

"Now" is injected everywhere: nothing here depends on the real clock.
"""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from agency_site.content.form_words import COPY
from agency_site.forms.kinds import LeadKind
from agency_site.leads.validation import validate
from agency_site.rules import AGENCY_TIME_ZONE, TIME_SLOTS
from agency_site.settings import BookingSettings
from agency_site.working_calendar import Closure, WorkingCalendar

MADRID = ZoneInfo(AGENCY_TIME_ZONE)
# Thursday 10 September 2026, 10:30 in Agramunt; 11 September is the Diada (Catalonia).
NOW = dt.datetime(2026, 9, 10, 10, 30, tzinfo=MADRID)
AGRAMUNT_CLOSED = dt.date(2026, 9, 15)  # A Tuesday, closed in the settings.
CALENDAR = WorkingCalendar(
    closed_days=frozenset({AGRAMUNT_CLOSED}), min_notice=dt.timedelta(hours=2)
)
FORM = {
    "name": "Ana García",
    "email": "ana@example.com",
    "phone": "+34 600 12 34 56",
    "message": "",
}


def book(day: dt.date, slot: str = "16:00") -> dict[str, str]:
    """The errors of a booking for ``day`` at ``slot``, made at NOW."""
    data = {**FORM, "date": day.isoformat(), "time": slot}
    return validate(LeadKind.BOOKING, data, NOW.date(), now=NOW, calendar=CALENDAR).errors


@pytest.mark.parametrize(
    ("day", "message"),
    [
        (dt.date(2026, 9, 12), COPY.booking.date_weekend),  # Saturday.
        (dt.date(2026, 9, 13), COPY.booking.date_weekend),  # Sunday.
        (dt.date(2026, 9, 11), COPY.booking.date_holiday),  # Diada Nacional de Catalunya.
        (dt.date(2026, 10, 12), COPY.booking.date_holiday),  # Fiesta Nacional de España.
        (AGRAMUNT_CLOSED, COPY.booking.date_closed),
    ],
    ids=["saturday", "sunday", "catalan-holiday", "spanish-holiday", "closed-day"],
)
def test_days_the_agency_does_not_work_are_refused_next_to_the_date(
    day: dt.date, message: str
) -> None:
    assert book(day) == {"date": message}


def test_a_slot_of_today_that_starts_too_soon_is_refused_next_to_the_time() -> None:
    # 10:30 with two hours' notice: 12:00 has gone, 15:00 is still open.
    assert book(NOW.date(), "09:00") == {"time": COPY.booking.time_passed}
    assert book(NOW.date(), "12:00") == {"time": COPY.booking.time_passed}
    assert book(NOW.date(), "15:00") == {}


def test_the_next_working_day_is_accepted_with_every_slot() -> None:
    next_day = CALENDAR.next_working_day(dt.date(2026, 9, 11))
    assert next_day == dt.date(2026, 9, 14)  # Friday holiday, weekend: Monday.
    for slot in TIME_SLOTS:
        assert book(next_day, slot) == {}


def test_open_slots_follow_the_notice_and_the_time_zone() -> None:
    assert CALENDAR.open_slots(NOW.date(), NOW) == ("15:00", "16:00", "17:00", "18:00")
    # The same instant written in UTC (08:30 UTC = 10:30 in Madrid in summer).
    assert CALENDAR.open_slots(NOW.date(), NOW.astimezone(dt.UTC)) == CALENDAR.open_slots(
        NOW.date(), NOW
    )
    assert CALENDAR.open_slots(dt.date(2026, 9, 14), NOW) == TIME_SLOTS
    assert CALENDAR.open_slots(dt.date(2026, 9, 11), NOW) == ()
    late = NOW.replace(hour=17)
    assert CALENDAR.open_slots(NOW.date(), late) == ()


def test_non_working_days_lists_holidays_and_closures_but_not_weekends() -> None:
    days = CALENDAR.non_working_days(dt.date(2026, 9, 1), dt.date(2026, 9, 30))
    assert days == [dt.date(2026, 9, 11), AGRAMUNT_CLOSED]
    assert CALENDAR.closure(dt.date(2026, 9, 14)) is None
    assert CALENDAR.closure(dt.date(2026, 9, 12)) is Closure.WEEKEND


def test_closed_days_come_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOOKING_CLOSED_DAYS", "2026-05-11, 2026-08-16")
    monkeypatch.setenv("BOOKING_MIN_NOTICE_HOURS", "4")
    settings = BookingSettings(_env_file=None)
    assert settings.closed_dates == {dt.date(2026, 5, 11), dt.date(2026, 8, 16)}
    assert settings.min_notice_hours == 4
    monkeypatch.setenv("BOOKING_CLOSED_DAYS", "11/05/2026")
    with pytest.raises(ValueError):
        BookingSettings(_env_file=None)

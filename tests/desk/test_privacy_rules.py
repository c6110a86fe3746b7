"""A privacy request's deadline: one month, counted from date to date (the RGPD's, as
Regulation 1182/71 and the Código Civil count a period of months: Hypothesis), amber a week
before it and red once passed."""

import calendar
import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from agency_site.desk.privacy_rules import Urgency, deadline, urgency


def _next_month_days(day: dt.date) -> list[dt.date]:
    year, month = day.year + day.month // 12, day.month % 12 + 1
    return [dt.date(year, month, n) for n in range(1, calendar.monthrange(year, month)[1] + 1)]


@given(st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2999, 11, 30)))
def test_the_deadline_is_the_same_day_next_month_or_its_last_day(received: dt.date) -> None:
    """RGPD art. 12.3, counted as Regulation 1182/71 art. 3.2.c (and Código Civil art. 5.1)
    count a period of months: from date to date; the month's last day when it has none."""
    due = deadline(received)
    following = _next_month_days(received)
    assert due in following  # In the next month, always.
    # The latest day of that month not past the day of receipt: the same day, or the last.
    assert due == max(day for day in following if day.day <= received.day)
    assert 28 <= (due - received).days <= 31
    assert deadline(received + dt.timedelta(days=1)) >= due  # Never earlier for a later one.


def test_the_deadline_of_the_months_edges() -> None:
    assert deadline(dt.date(2026, 3, 15)) == dt.date(2026, 4, 15)
    assert deadline(dt.date(2027, 1, 31)) == dt.date(2027, 2, 28)
    assert deadline(dt.date(2028, 1, 31)) == dt.date(2028, 2, 29)
    assert deadline(dt.date(2026, 3, 31)) == dt.date(2026, 4, 30)
    assert deadline(dt.date(2026, 12, 31)) == dt.date(2027, 1, 31)
    due = dt.date(2026, 12, 30)
    assert urgency(due, dt.date(2026, 12, 22)) is Urgency.OK
    assert urgency(due, dt.date(2026, 12, 23)) is Urgency.NEAR
    assert urgency(due, due) is Urgency.NEAR
    assert urgency(due, dt.date(2026, 12, 31)) is Urgency.OVER

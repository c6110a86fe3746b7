"""The owner's busy times from real .ics files (tests/bookings/feeds/): which events block,
recurrences with moved and cancelled occurrences, all-day events, the buffer, Outlook's
free/busy, and the days the clocks change (Europe/Madrid on 2026-03-29 and 2026-10-25; an
America/New_York meeting in the weeks the US has already changed)."""

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agency_site.bookings.busy_times import (
    SLOT_LENGTH,
    BusyRules,
    BusyTimes,
    Interval,
    blocks,
    busy_times,
    parse,
    slot_start,
)
from agency_site.rules import TIME_SLOTS

FEEDS = Path(__file__).parent / "feeds"
MADRID = ZoneInfo("Europe/Madrid")
WINDOW = (dt.datetime(2026, 1, 1, tzinfo=dt.UTC), dt.datetime(2027, 1, 1, tzinfo=dt.UTC))


DEFAULT_RULES = BusyRules()


def feed(name: str, rules: BusyRules = DEFAULT_RULES) -> BusyTimes:
    """The busy times of ``feeds/<name>.ics`` over 2026."""
    return busy_times([parse((FEEDS / f"{name}.ics").read_bytes())], *WINDOW, rules)


def busy_on(busy: BusyTimes, day: str) -> list[str]:
    """The slots of ``day`` the owner is busy for, in order."""
    return sorted(busy.busy_slots(dt.date.fromisoformat(day)))


def event(**properties: str) -> icalendar.Event:
    """One timed event (10:00-11:00 Madrid) with ``properties``."""
    component = icalendar.Event()
    component.add("dtstart", dt.datetime(2026, 6, 1, 10, tzinfo=MADRID))
    component.add("dtend", dt.datetime(2026, 6, 1, 11, tzinfo=MADRID))
    for name, value in properties.items():
        component.add(name.replace("_", "-"), value)
    return component


# --- The rules, one by one --------------------------------------------------------------


def test_an_ordinary_event_blocks() -> None:
    assert blocks(event(), BusyRules())
    assert blocks(event(transp="OPAQUE", status="CONFIRMED"), BusyRules())


def test_a_transparent_event_does_not_block() -> None:
    assert not blocks(event(transp="TRANSPARENT"), BusyRules())


def test_a_cancelled_event_does_not_block() -> None:
    assert not blocks(event(status="CANCELLED"), BusyRules())
    assert blocks(event(status="TENTATIVE"), BusyRules())


@pytest.mark.parametrize(
    ("status", "blocking"),
    [("FREE", False), ("free", False), ("BUSY", True), ("OOF", True), ("TENTATIVE", True)],
)
def test_outlook_s_busy_status_free_does_not_block(status: str, blocking: bool) -> None:
    """Outlook says FREE even on an OPAQUE event; BUSY, OOF (out of office), TENTATIVE block."""
    outlook = event(transp="OPAQUE", **{"x_microsoft_cdo_busystatus": status})
    assert blocks(outlook, BusyRules()) is blocking


def test_an_all_day_event_blocks_only_by_setting() -> None:
    day = icalendar.Event()
    day.add("dtstart", dt.date(2026, 5, 15))
    day.add("dtend", dt.date(2026, 5, 16))
    assert not blocks(day, BusyRules())
    assert blocks(day, BusyRules(all_day_blocks=True))
    day.add("transp", "TRANSPARENT")
    assert not blocks(day, BusyRules(all_day_blocks=True))  # Marked free: never.
    outlook = event(**{"x_microsoft_cdo_alldayevent": "TRUE"})  # Outlook's own flag.
    assert not blocks(outlook, BusyRules()) and blocks(outlook, BusyRules(all_day_blocks=True))


def test_a_slot_is_busy_when_the_consultation_overlaps_an_interval() -> None:
    """A slot is a consultation of SLOT_LENGTH; intervals are half-open."""
    day = dt.date(2026, 6, 1)
    at = lambda hour, minute=0: dt.datetime(2026, 6, 1, hour, minute, tzinfo=MADRID)  # noqa: E731
    assert dt.timedelta(minutes=60) == SLOT_LENGTH
    busy = BusyTimes((Interval(at(10, 59), at(11, 1)), Interval(at(14), at(15))))
    assert sorted(busy.busy_slots(day)) == ["10:00", "11:00"]  # 15:00 starts as it ends.
    assert not BusyTimes((Interval(at(8), at(9)),)).blocks(day, "09:00")


def test_overlapping_intervals_are_merged() -> None:
    at = lambda hour: dt.datetime(2026, 6, 1, hour, tzinfo=MADRID)  # noqa: E731
    busy = BusyTimes((Interval(at(12), at(13)), Interval(at(9), at(11)), Interval(at(10), at(12))))
    assert busy.intervals == (Interval(at(9), at(13)),)
    assert busy == BusyTimes((Interval(at(9), at(13)),))


def test_what_is_not_a_calendar_is_refused() -> None:
    for text in (b"<html><body>Sign in</body></html>", b"BEGIN:VEVENT\nEND:VEVENT\n", b""):
        with pytest.raises(ValueError):
            parse(text)


# --- Real files ---------------------------------------------------------------------------


def test_a_weekly_meeting_with_one_moved_and_one_cancelled_occurrence() -> None:
    busy = feed("weekly")
    assert busy_on(busy, "2026-03-03") == ["10:00"]
    assert busy_on(busy, "2026-03-10") == ["10:00"]
    assert busy_on(busy, "2026-03-17") == []  # Moved...
    assert busy_on(busy, "2026-03-18") == ["16:00"]  # ...to Wednesday afternoon.
    assert busy_on(busy, "2026-03-24") == []  # EXDATE.
    assert busy_on(busy, "2026-04-07") == []  # An occurrence edited to STATUS:CANCELLED.
    assert busy_on(busy, "2026-04-14") == ["10:00"]
    assert busy_on(busy, "2026-04-28") == ["10:00"]  # UNTIL includes it...
    assert busy_on(busy, "2026-05-05") == []  # ...and nothing after.


def test_a_weekly_meeting_keeps_its_local_time_across_the_change_to_summer_time() -> None:
    """Tuesday 31 March, after the clocks went forward on Sunday 29: still 10:00 in Madrid."""
    busy = feed("weekly")
    assert busy_on(busy, "2026-03-31") == ["10:00"]
    start = slot_start(dt.date(2026, 3, 31), "10:00")
    assert start.utcoffset() == dt.timedelta(hours=2)
    assert busy.overlaps(start, start + dt.timedelta(minutes=1))


def test_an_all_day_holiday_blocks_its_days_only_by_setting() -> None:
    assert [busy_on(feed("holiday"), day) for day in ("2026-05-15", "2026-08-05")] == [[], []]
    busy = feed("holiday", BusyRules(all_day_blocks=True))
    assert busy_on(busy, "2026-05-14") == []
    assert busy_on(busy, "2026-05-15") == list(TIME_SLOTS)
    assert busy_on(busy, "2026-05-18") == []
    for day in ("2026-08-03", "2026-08-07"):  # DTEND 8 August: up to the 7th included.
        assert busy_on(busy, day) == list(TIME_SLOTS)
    assert busy_on(busy, "2026-08-10") == []
    assert busy_on(busy, "2026-05-20") == []  # A birthday marked free, every year.


def test_transparent_and_cancelled_events_do_not_block_in_a_google_feed() -> None:
    """12 May 2026 (CEST): a free reminder at 10:00, a lunch 12:00-12:30, a cancelled visit
    at 16:00, a tentative call at 17:00."""
    assert busy_on(feed("transparent"), "2026-05-12") == ["12:00", "17:00"]


def test_the_buffer_widens_every_busy_event() -> None:
    """12 May: 30 minutes around the 12:00-12:30 lunch take the 11:00 consultation (until
    12:00) and the 12:00 one; around the 17:00-17:30 call, 16:00 and 17:00 but not 18:00.
    90 minutes take 10:00 to 12:00 and 15:00 to 18:00."""
    half_hour = feed("transparent", BusyRules(buffer=dt.timedelta(minutes=30)))
    assert busy_on(half_hour, "2026-05-12") == ["11:00", "12:00", "16:00", "17:00"]
    wide = feed("transparent", BusyRules(buffer=dt.timedelta(minutes=90)))
    assert busy_on(wide, "2026-05-12") == [s for s in TIME_SLOTS if s != "09:00"]


def test_outlook_events_block_unless_free() -> None:
    """1 June 2026 in Outlook's "Romance Standard Time": FREE at 9:00, BUSY at 10:00, OOF
    at 12:00, TENTATIVE at 15:00; on 3 June an all-day course (Outlook's all-day flag)."""
    busy = feed("outlook")
    assert busy_on(busy, "2026-06-01") == ["10:00", "12:00", "15:00"]
    assert busy_on(busy, "2026-06-03") == []
    assert busy_on(feed("outlook", BusyRules(all_day_blocks=True)), "2026-06-03") == list(
        TIME_SLOTS
    )


def test_google_s_utc_times_follow_x_wr_timezone_across_both_changes() -> None:
    """Google writes a series' times in UTC with X-WR-TIMEZONE: the Monday 09:00 meeting
    stays at 09:00 in Madrid after 29 March and after 25 October (not 10:00 or 08:00)."""
    busy = feed("dst_google")
    for day in ("2026-03-16", "2026-03-23", "2026-04-06"):
        assert busy_on(busy, day) == ["09:00"], day
    for day in ("2026-10-19", "2026-10-26", "2026-11-02"):
        assert busy_on(busy, day) == ["09:00"], day
    assert busy_on(busy, "2026-11-09") == []  # COUNT=3.


def test_an_event_across_the_night_the_clocks_change() -> None:
    """Saturday 28 March 21:00 CET to Tuesday 31 March 08:30 CEST: all of Monday, and
    Tuesday's 09:00 only with a buffer longer than 30 minutes."""
    assert busy_on(feed("dst_google"), "2026-03-30") == list(TIME_SLOTS)
    assert busy_on(feed("dst_google"), "2026-03-31") == []
    buffered = feed("dst_google", BusyRules(buffer=dt.timedelta(minutes=45)))
    assert busy_on(buffered, "2026-03-31") == ["09:00"]


def test_a_new_york_meeting_in_the_weeks_the_us_has_already_changed() -> None:
    """05:00 in New York is 10:00 in Madrid on 16 March (the US on summer time since 8
    March, Spain not yet) and on 26 October (Spain back on winter time since 25 October,
    the US not until 1 November); 11:00 the rest of the year."""
    busy = feed("new_york")
    assert busy_on(busy, "2026-03-16") == ["10:00"]
    assert busy_on(busy, "2026-10-26") == ["10:00"]


def test_several_calendars_add_up() -> None:
    calendars = [parse((FEEDS / f"{name}.ics").read_bytes()) for name in ("weekly", "outlook")]
    busy = busy_times(calendars, *WINDOW, BusyRules())
    assert busy_on(busy, "2026-03-10") == ["10:00"] and busy_on(busy, "2026-06-01") == [
        "10:00",
        "12:00",
        "15:00",
    ]


# --- For any events: a busy slot is never offered, a free one always is ------------------

KINDS = ("opaque", "transparent", "cancelled", "free", "oof", "all_day")
events = st.lists(
    st.tuples(
        st.integers(0, 6),  # day of the week starting Monday 23 March 2026 (DST on the 29th)...
        st.integers(0, 24 * 60 - 1),  # ...start minute (Madrid)
        st.integers(0, 10 * 60),  # duration in minutes (0: an instant, blocks nothing)
        st.sampled_from(KINDS),
        st.sampled_from(["Europe/Madrid", "America/New_York", "UTC"]),
    ),
    max_size=8,
)
FIRST_DAY = dt.date(2026, 3, 23)


def _calendar(generated) -> bytes:
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//tests//busy//EN")
    calendar.add("version", "2.0")
    for number, (day, minute, length, kind, zone) in enumerate(generated):
        component = icalendar.Event()
        component.add("uid", f"e{number}@tests")
        date = FIRST_DAY + dt.timedelta(days=day)
        if kind == "all_day":
            component.add("dtstart", date)
            component.add("dtend", date + dt.timedelta(days=1 + length // 300))
        else:
            local = dt.datetime.combine(date, dt.time(), MADRID) + dt.timedelta(minutes=minute)
            start = local.astimezone(ZoneInfo(zone))
            component.add("dtstart", start)
            component.add("dtend", start + dt.timedelta(minutes=length))
        extra = {
            "transparent": ("transp", "TRANSPARENT"),
            "cancelled": ("status", "CANCELLED"),
            "free": ("x-microsoft-cdo-busystatus", "FREE"),
            "oof": ("x-microsoft-cdo-busystatus", "OOF"),
        }.get(kind)
        if extra:
            component.add(*extra)
        calendar.add_component(component)
    return calendar.to_ical()


def _expected_blocking(generated, rules: BusyRules) -> list[tuple[dt.datetime, dt.datetime]]:
    """The busy intervals the rules give, worked out here without the library."""
    out = []
    for day, minute, length, kind, _zone in generated:
        date = FIRST_DAY + dt.timedelta(days=day)
        if kind in ("transparent", "cancelled", "free") or (
            kind == "all_day" and not rules.all_day_blocks
        ):
            continue
        if kind == "all_day":
            start = dt.datetime.combine(date, dt.time(), MADRID)
            end_day = date + dt.timedelta(days=1 + length // 300)
            end = dt.datetime.combine(end_day, dt.time(), MADRID)
        else:
            start = dt.datetime.combine(date, dt.time(), MADRID) + dt.timedelta(minutes=minute)
            end = start + dt.timedelta(minutes=length)
            if length == 0:
                continue
        out.append((start - rules.buffer, end + rules.buffer))
    return out


@pytest.fixture(scope="module")
def empty_db(tmp_path_factory: pytest.TempPathFactory):
    """A migrated SQLite database without bookings, for the Hypothesis test."""
    import sqlalchemy as sa

    from agency_site.leads import migrations

    engine = sa.create_engine(f"sqlite:///{tmp_path_factory.mktemp('busy') / 'leads.db'}")
    migrations.upgrade(engine)
    yield engine
    engine.dispose()


@given(
    generated=events,
    buffer=st.integers(0, 90),
    all_day_blocks=st.booleans(),
)
def test_no_offered_slot_ever_overlaps_a_busy_interval(
    empty_db, generated, buffer, all_day_blocks
) -> None:
    """The free-slots answer (``slots.availability``) for the week of the change to summer
    time, against the busy intervals worked out by hand: never a busy slot offered, every
    other open slot offered."""
    from agency_site.bookings import slots
    from agency_site.working_calendar import WorkingCalendar

    rules = BusyRules(all_day_blocks=all_day_blocks, buffer=dt.timedelta(minutes=buffer))
    busy = busy_times([parse(_calendar(generated))], *WINDOW, rules)
    expected = _expected_blocking(generated, rules)
    calendar = WorkingCalendar(min_notice=dt.timedelta(0))
    now = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    for offset in range(9):
        day = FIRST_DAY + dt.timedelta(days=offset)
        offered = slots.availability(empty_db, day, now, calendar, 0, busy).free
        for slot in calendar.open_slots(day, now):
            start = slot_start(day, slot)
            end = start + SLOT_LENGTH
            overlapping = any(s < end and start < e for s, e in expected)
            assert (slot in offered) is not overlapping, (day, slot)


# --- A month of a real-looking calendar: 0 offered slots overlap a busy event ------------

MONTH = [dt.date(2026, 3, 9) + dt.timedelta(days=n) for n in range(31)]  # Across 29 March.
# The blocking events of feeds/month.ics in that month, worked out by hand (Madrid time).
MONTH_BUSY = [
    ("2026-03-10", "10:00", "11:00"),  # The weekly team meeting...
    ("2026-03-18", "16:00", "17:30"),  # ...17 March's moved to Wednesday afternoon...
    ("2026-03-31", "10:00", "11:00"),  # ...24 March's deleted, 7 April's cancelled.
    ("2026-03-19", "12:30", "13:15"),  # The client call every other Thursday.
    ("2026-04-02", "12:30", "13:15"),  # (its local time kept across the change)
    ("2026-03-13", "17:30", "18:30"),  # Pilates on Fridays.
    ("2026-03-20", "17:30", "18:30"),
    ("2026-03-27", "17:30", "18:30"),
    ("2026-04-03", "17:30", "18:30"),
    ("2026-03-26", "15:00", "16:30"),  # The dentist, in UTC as Google writes it.
    ("2026-03-30", "10:00", "11:00"),  # 08:00 UTC the Monday after the change: 10:00.
    ("2026-03-13", "11:00", "12:00"),  # A floating time: the agency's.
    ("2026-04-08", "09:00", "09:30"),  # Tentative blocks.
]
# Not here: the transparent day of remote work, the cancelled lunch, and Good Friday (an
# all-day event Google marks free); San José blocks its day only by setting.
MONTH_ALL_DAY = ["2026-03-19"]


def _month_expected(rules: BusyRules) -> list[tuple[dt.datetime, dt.datetime]]:
    out = []
    for day, start, end in MONTH_BUSY:
        date = dt.date.fromisoformat(day)
        out.append((slot_start(date, start) - rules.buffer, slot_start(date, end) + rules.buffer))
    if rules.all_day_blocks:
        for day in MONTH_ALL_DAY:
            date = dt.date.fromisoformat(day)
            start = dt.datetime.combine(date, dt.time(), MADRID)
            out.append((start - rules.buffer, start + dt.timedelta(days=1) + rules.buffer))
    return out


@pytest.mark.parametrize(
    "rules",
    [BusyRules(), BusyRules(all_day_blocks=True, buffer=dt.timedelta(minutes=15))],
    ids=["default", "all-day-and-buffer"],
)
def test_no_slot_offered_over_a_busy_event_in_a_month_of_a_real_looking_calendar(
    empty_db, tmp_path, rules: BusyRules
) -> None:
    """The issue's target: feeds/month.ics (a Google feed of a month across the change to
    summer time) read as the feed reads it, and the free slots the form is offered each day:
    none overlaps a busy event, and every other open slot is offered."""
    from agency_site.bookings import slots
    from agency_site.bookings.busy_feed import BusyFeed
    from agency_site.working_calendar import WorkingCalendar

    today = dt.date(2026, 3, 1)
    _, intervals = BusyFeed((), tmp_path, rules).read((FEEDS / "month.ics").read_bytes(), today)
    busy = BusyTimes(tuple(intervals))
    expected = _month_expected(rules)
    calendar = WorkingCalendar(min_notice=dt.timedelta(0))
    now = dt.datetime.combine(today, dt.time(), MADRID)
    offered = overlapping = withheld = 0
    for day in MONTH:
        free = slots.availability(empty_db, day, now, calendar, 0, busy).free
        for slot in calendar.open_slots(day, now):
            start = slot_start(day, slot)
            over = any(s < start + SLOT_LENGTH and start < e for s, e in expected)
            offered += slot in free
            overlapping += over and slot in free
            withheld += over and slot not in free
            assert (slot in free) is not over, (day, slot)
    print(
        f"\nmonth.ics, {rules}: {offered} slots offered, {overlapping} of them over a busy "
        f"event; {withheld} open slots withheld as busy"
    )
    assert overlapping == 0 and withheld >= 17 and offered > 100

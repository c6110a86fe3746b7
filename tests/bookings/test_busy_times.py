"""The owner's busy times from real .ics files (tests/bookings/feeds/): which events block,
recurrences with moved and cancelled occurrences, all-day events, the buffer, Outlook's
free/busy, and the days the clocks change (Europe/Madrid on 2026-03-29 and 2026-10-25; an
America/New_York meeting in the weeks the US has already changed)."""

import dataclasses
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
    owner_addresses,
    parse,
    slot_start,
    wide_series,
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
    """The free-slots answer (``availability.availability``) for the week of the change to summer
    time, against the busy intervals worked out by hand: never a busy slot offered, every
    other open slot offered."""
    from agency_site.bookings import availability
    from agency_site.working_calendar import WorkingCalendar

    rules = BusyRules(all_day_blocks=all_day_blocks, buffer=dt.timedelta(minutes=buffer))
    busy = busy_times([parse(_calendar(generated))], *WINDOW, rules)
    expected = _expected_blocking(generated, rules)
    calendar = WorkingCalendar(min_notice=dt.timedelta(0))
    now = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    for offset in range(9):
        day = FIRST_DAY + dt.timedelta(days=offset)
        offered = availability.availability(empty_db, day, now, calendar, 0, busy).free
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
    from agency_site.bookings import availability
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
        free = availability.availability(empty_db, day, now, calendar, 0, busy).free
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


# --- Whose events block: the owner's own time and what the owner accepted (issue 43) -----

OWNER = "hola@impulsodigital.es"
OWNER_RULES = BusyRules(owner=owner_addresses(f"{OWNER}, Ana.Owner@gmail.com"))


def meeting(
    written: str, part: str | None = "ACCEPTED", organizer: str = "mailto:marta@client.example"
) -> icalendar.Event:
    """A 10:00-11:00 meeting ``organizer`` called, inviting ``written`` (an address as a
    calendar writes it) with ``part`` (its PARTSTAT; None: not written, RFC 5545's
    NEEDS-ACTION)."""
    component = event()
    component.add("organizer", icalendar.vCalAddress(organizer))
    attendee = icalendar.vCalAddress(written)
    if part is not None:
        attendee.params["PARTSTAT"] = part
    component.add("attendee", attendee)
    return component


def invitation(part: str | None, organizer: str = "marta@client.example") -> icalendar.Event:
    """The owner invited to ``organizer``'s meeting, answering ``part``."""
    return meeting(f"mailto:{OWNER}", part, f"mailto:{organizer}")


@pytest.mark.parametrize(
    ("part", "blocking"),
    [
        ("ACCEPTED", True),
        ("accepted", True),
        ("TENTATIVE", False),
        ("DECLINED", False),
        ("NEEDS-ACTION", False),
        (None, False),
        ("DELEGATED", False),
    ],
)
def test_an_invitation_blocks_only_when_the_owner_accepted_it(part, blocking) -> None:
    assert blocks(invitation(part), OWNER_RULES) is blocking


def test_a_maybe_blocks_by_setting() -> None:
    maybe = invitation("TENTATIVE")
    assert not blocks(maybe, OWNER_RULES)
    assert blocks(maybe, dataclasses.replace(OWNER_RULES, tentative_blocks=True))
    unanswered = invitation("NEEDS-ACTION")
    assert not blocks(unanswered, dataclasses.replace(OWNER_RULES, tentative_blocks=True))


def test_the_owner_s_own_events_block() -> None:
    """Organised by the owner (whatever the guests answered), or without attendees."""
    own = invitation("NEEDS-ACTION", organizer=OWNER)
    assert blocks(own, OWNER_RULES)
    assert blocks(event(), OWNER_RULES)  # A private block: no attendees.
    # Organised by someone else without listing anyone: no invitation to answer.
    alone = event()
    alone.add("organizer", icalendar.vCalAddress("mailto:marta@client.example"))
    assert blocks(alone, OWNER_RULES)


def test_an_event_the_owner_is_not_among_the_attendees_of_does_not_block() -> None:
    """Another mailbox invited (an alias, a colleague): not the owner's answer."""
    assert not blocks(meeting("mailto:jordi@impulsodigital.es"), OWNER_RULES)


@pytest.mark.parametrize(
    "written",
    [
        "mailto:hola@impulsodigital.es",
        "MAILTO:HOLA@IMPULSODIGITAL.ES",
        "Mailto:Hola@ImpulsoDigital.es",
        "hola@impulsodigital.es",
        " mailto:ana.owner@GMAIL.com",
    ],
)
def test_addresses_are_compared_without_mailto_and_case(written: str) -> None:
    assert blocks(meeting(written), OWNER_RULES)  # Accepted by the owner...
    by_owner = meeting("mailto:marta@client.example", "NEEDS-ACTION", organizer=written)
    assert blocks(by_owner, OWNER_RULES)  # ...or called by the owner.


def test_an_attendee_named_by_its_email_parameter() -> None:
    """RFC 7986: the address may be a URN with the e-mail in ``EMAIL=``."""
    named = meeting("urn:uuid:0b4a2c4e-0000-4000-8000-000000000001")
    named["ATTENDEE"].params["EMAIL"] = "Hola@ImpulsoDigital.es"
    assert blocks(named, OWNER_RULES)
    assert not blocks(meeting("urn:uuid:0b4a2c4e-0000-4000-8000-000000000001"), OWNER_RULES)


@pytest.mark.parametrize(
    ("status", "blocking"),
    [("BUSY", True), ("OOF", True), ("TENTATIVE", False), ("FREE", False), ("", False)],
)
def test_in_an_exchange_calendar_the_busy_status_is_the_owner_s_answer(
    status: str, blocking: bool
) -> None:
    """Exchange and Outlook write every attendee NEEDS-ACTION; the owner's answer is the
    event's busy status (an invitation not answered yet is TENTATIVE there)."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", "Microsoft Exchange Server 2010")
    calendar.add("version", "2.0")
    meeting = invitation("NEEDS-ACTION")
    if status:
        meeting.add("x-microsoft-cdo-busystatus", status)
    meeting.add("uid", "exchange-1")
    calendar.add_component(meeting)
    busy = busy_times([calendar], *WINDOW, OWNER_RULES)
    assert (busy_on(busy, "2026-06-01") == ["10:00"]) is blocking
    # The same event from another producer: its PARTSTAT says not answered.
    calendar["prodid"] = "-//Google Inc//Google Calendar 70.9054//EN"
    assert busy_on(busy_times([calendar], *WINDOW, OWNER_RULES), "2026-06-01") == []


def test_a_series_repeating_every_minute_is_not_expanded() -> None:
    """Half a million occurrences a year, from anyone who can put an event in the
    calendar: skipped, like a series the library cannot expand."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//tests//busy//EN")
    calendar.add("version", "2.0")
    flood = event()
    flood.add("uid", "every-minute@spam.example")
    flood.add("rrule", {"freq": "minutely"})
    calendar.add_component(flood)
    assert busy_times([calendar], *WINDOW, OWNER_RULES).intervals == ()


def test_the_invitations_of_a_real_looking_feed() -> None:
    """feeds/invitations.ics, the week of 1 June 2026: an outsider's invitation every day
    from 08:00 to 20:00 not answered, a declined all-day congress, a declined weekly series
    with one occurrence accepted, a maybe, a delegated one, one to another mailbox; blocking:
    the accepted meeting, the owner's own meeting with guests, a private block."""
    rules = BusyRules(all_day_blocks=True, owner=owner_addresses(OWNER))
    busy = feed("invitations", rules)
    assert [busy_on(busy, f"2026-06-0{day}") for day in range(1, 6)] == [
        ["09:00"],  # The weekly series' accepted exception (not the 15:00 maybe)...
        ["10:00"],  # ...the accepted client meeting (not the other mailbox's at 17:00)...
        [],  # ...not the declined congress...
        ["12:00"],  # ...the owner's own meeting (not the delegated one at 17:00)...
        ["16:00"],  # ...and the private block.
    ]
    assert busy_on(busy, "2026-06-08") == []  # The series' other Mondays were declined.
    maybe = feed("invitations", dataclasses.replace(rules, tentative_blocks=True))
    assert busy_on(maybe, "2026-06-01") == ["09:00", "15:00"]


def _week_offered(empty_db, text: bytes, rules: BusyRules) -> int:
    """The slots the form offers in the week of 1 June 2026 with this calendar."""
    from agency_site.bookings import availability
    from agency_site.bookings.busy_feed import BusyFeed
    from agency_site.working_calendar import WorkingCalendar

    today = dt.date(2026, 5, 20)
    _, intervals = BusyFeed((), Path("."), rules).read(text, today)
    busy = BusyTimes(tuple(intervals))
    calendar = WorkingCalendar(min_notice=dt.timedelta(0))
    now = dt.datetime.combine(today, dt.time(), MADRID)
    week = [dt.date(2026, 6, day) for day in range(1, 6)]
    return sum(
        len(availability.availability(empty_db, day, now, calendar, 0, busy).free) for day in week
    )


def test_probe_slots_offered_with_declined_and_unanswered_invitations(empty_db) -> None:
    """The issue's probe: the slots offered in a week (40 open) with the invitations of
    feeds/invitations.ics; before this change the outsider's daily 08:00-20:00 invitation
    left 0, and the declined all-day congress alone (all-day events blocking) 32."""
    text = (FEEDS / "invitations.ics").read_bytes()
    calendar = parse(text)
    congress_only = icalendar.Calendar()
    for name, value in calendar.items():
        congress_only[name] = value
    for component in calendar.walk("VEVENT"):
        if str(component["UID"]).startswith("congreso"):
            congress_only.add_component(component)
    rules = BusyRules(all_day_blocks=True, owner=owner_addresses(OWNER))
    whole = _week_offered(empty_db, text, rules)
    congress = _week_offered(empty_db, congress_only.to_ical(), rules)
    print(
        f"\ninvitations.ics, week of 1 June 2026: {whole} of 40 slots offered; "
        f"with only the declined all-day invitation: {congress} of 40"
    )
    assert (whole, congress) == (36, 40)


# Generated events: who organised them, who is invited and what each answered, written
# in any of the ways calendars write an address, repeated daily with exceptions where the
# owner answered otherwise.
PEOPLE = ("owner", "owner2", "other")
ADDRESS = {"owner": OWNER, "owner2": "ana.owner@gmail.com", "other": "marta@client.example"}
PARTS = ("ACCEPTED", "TENTATIVE", "DECLINED", "NEEDS-ACTION", "DELEGATED", "accepted", None)
spelled = st.tuples(
    st.sampled_from(["mailto:", "MAILTO:", "Mailto:", ""]),
    st.sampled_from([str.lower, str.upper, str.title]),
)
parties = st.fixed_dictionaries(
    {
        "organizer": st.one_of(st.none(), st.tuples(st.sampled_from(PEOPLE), spelled)),
        "attendees": st.lists(
            st.tuples(st.sampled_from(PEOPLE), st.sampled_from(PARTS), spelled), max_size=3
        ),
    }
)
series = st.lists(
    st.tuples(
        st.integers(0, 4),  # the first day (Monday 1 June 2026 and on)
        st.integers(0, len(TIME_SLOTS) - 1),  # its slot
        st.integers(1, 4),  # occurrences, one a day
        parties,  # the series' attendees and answers
        st.dictionaries(st.integers(0, 3), parties, max_size=2),  # exceptions: n-th -> party
    ),
    max_size=5,
)
FIRST_JUNE = dt.date(2026, 6, 1)


def _written(person: str, spelling: tuple) -> icalendar.vCalAddress:
    prefix, case = spelling
    return icalendar.vCalAddress(prefix + case(ADDRESS[person]))


def _with_party(component: icalendar.Event, party: dict) -> None:
    if party["organizer"] is not None:
        component.add("organizer", _written(*party["organizer"]))
    for person, part, spelling in party["attendees"]:
        attendee = _written(person, spelling)
        if part is not None:
            attendee.params["PARTSTAT"] = part
        component.add("attendee", attendee)


def _owner_blocks(party: dict, tentative: bool) -> bool:
    """The rule, worked out here without the code: organised by the owner or no attendees;
    else any of the owner's addresses accepted (or said maybe, by setting)."""
    if party["organizer"] is not None and party["organizer"][0] != "other":
        return True
    if not party["attendees"]:
        return True
    answers = {
        (part or "NEEDS-ACTION").upper() for who, part, _ in party["attendees"] if who != "other"
    }
    return "ACCEPTED" in answers or (tentative and "TENTATIVE" in answers)


@given(generated=series, tentative=st.booleans())
def test_only_what_the_owner_organised_or_accepted_blocks(generated, tentative: bool) -> None:
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//Google Inc//Google Calendar 70.9054//EN")
    calendar.add("version", "2.0")
    expected: set[tuple[dt.date, str]] = set()
    for number, (day, slot_index, count, party, exceptions) in enumerate(generated):
        slot = TIME_SLOTS[slot_index]
        start = slot_start(FIRST_JUNE + dt.timedelta(days=day), slot)
        main = icalendar.Event()
        main.add("uid", f"series-{number}@tests")
        main.add("dtstart", start)
        main.add("dtend", start + SLOT_LENGTH)
        if count > 1:
            main.add("rrule", {"freq": "daily", "count": count})
        _with_party(main, party)
        calendar.add_component(main)
        for nth in range(count):
            moment = start + dt.timedelta(days=nth)
            answered = exceptions.get(nth) if count > 1 else None
            if answered is not None:
                exception = icalendar.Event()
                exception.add("uid", f"series-{number}@tests")
                exception.add("recurrence-id", moment)
                exception.add("dtstart", moment)
                exception.add("dtend", moment + SLOT_LENGTH)
                _with_party(exception, answered)
                calendar.add_component(exception)
            if _owner_blocks(answered if answered is not None else party, tentative):
                expected.add((moment.date(), slot))
    rules = dataclasses.replace(OWNER_RULES, tentative_blocks=tentative)
    busy = busy_times([parse(calendar.to_ical())], *WINDOW, rules)
    found = {
        (day, slot)
        for day in (FIRST_JUNE + dt.timedelta(days=n) for n in range(9))
        for slot in busy.busy_slots(day)
    }
    assert found == expected


# --- A series that takes too much ---------------------------------------------------------


def _daily(uid: str, start: str, end: str, days: int) -> list[Interval]:
    """Intervals of one series: ``start``-``end`` every day for ``days`` days from 1 June."""
    out = []
    for n in range(days):
        day = FIRST_JUNE + dt.timedelta(days=n)
        out.append(Interval(slot_start(day, start), slot_start(day, end), uid))
    return out


def test_a_series_blocking_more_than_a_week_of_working_days_is_wide() -> None:
    flood = _daily("flood", "08:00", "20:00", 60)
    (wide,) = wide_series(flood + _daily("standup", "09:00", "09:15", 60))
    assert wide.series == "flood" and wide.slots == 20 * len(TIME_SLOTS)
    assert wide.first == slot_start(FIRST_JUNE, TIME_SLOTS[0])


@pytest.mark.parametrize(
    ("start", "end", "days", "is_wide"),
    [
        ("10:00", "11:00", 365, False),  # A daily meeting: 20 slots in four weeks.
        ("09:00", "11:00", 60, False),  # Two hours a day: 40, a week's worth exactly.
        ("09:00", "12:00", 60, True),  # Three: 60.
        ("08:00", "20:00", 5, False),  # One busy week: 40.
        ("08:00", "20:00", 8, True),  # A week and a half: 48.
    ],
)
def test_what_counts_as_too_much(start: str, end: str, days: int, is_wide: bool) -> None:
    assert bool(wide_series(_daily("s", start, end, days))) is is_wide


def test_a_weekly_meeting_of_a_whole_year_is_not_too_much() -> None:
    weekly = [
        Interval(slot_start(day, "09:00"), slot_start(day, "13:00"), "weekly")
        for day in (FIRST_JUNE + dt.timedelta(weeks=n) for n in range(52))
    ]
    assert wide_series(weekly) == []

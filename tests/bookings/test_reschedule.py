"""Moving a booking (``reschedule.move``) on a real database (SQLite and PostgreSQL): one
transaction frees the old slot and holds the new one, one booking per slot even for moves
at the same moment, a replayed form changes nothing, the notice window and the most
moves, what a move does to a confirmed or pending booking, and the calendar file's
SEQUENCE and local time across the changes of clock."""

import datetime as dt
import threading
from collections import Counter
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, select

from agency_site.bookings import availability, reschedule, slots
from agency_site.bookings.busy_times import NOTHING_BUSY, BusyTimes, Interval, slot_start
from agency_site.bookings.calendar_file import ics
from agency_site.bookings.mails import appointment, starts_at
from agency_site.bookings.models import Booking, BookingLinkUse, BookingStatus, slot_key
from agency_site.leads.models import Lead
from agency_site.leads.plugins import Refused
from agency_site.leads.store import LeadStore
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_bookings import MONDAY, NOW, book
from tests.lead_store import new_engine, plugged

TUESDAY = MONDAY + dt.timedelta(days=1)
MADRID = ZoneInfo("Europe/Madrid")
CALENDAR = WorkingCalendar()
# No notice and no cap: the tests of those rules set their own.
FREE_RULES = reschedule.MoveRules(notice=dt.timedelta(0), max_moves=1000)


def move(
    store: LeadStore,
    lead_id: int,
    date: dt.date,
    time: str,
    *,
    version: int | None = None,
    now: dt.datetime = NOW,
    rules: reschedule.MoveRules = FREE_RULES,
    limit: int = 0,
    busy: BusyTimes = NOTHING_BUSY,
) -> tuple[reschedule.Moved | reschedule.MoveRefused, Booking | None]:
    """``reschedule.move`` as the manage page calls it (``version``: the booking's own)."""
    if version is None:
        version = slots.get(store.engine, lead_id).sequence
    return reschedule.move(
        store.engine,
        lead_id,
        date,
        time,
        version=version,
        now=now,
        rules=rules,
        calendar=CALENDAR,
        daily_limit=limit,
        busy=busy,
    )


def confirm(store: LeadStore, lead_id: int) -> None:
    assert slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)[0] is slots.Decision.DONE


def test_a_move_frees_the_old_slot_and_holds_the_new_one(store: LeadStore) -> None:
    lead_id = book(store, MONDAY, "10:00")
    confirm(store, lead_id)
    outcome, booking = move(store, lead_id, TUESDAY, "11:00")
    assert outcome is reschedule.Moved.DONE and booking is not None
    assert (booking.date, booking.time, booking.active_slot) == (
        TUESDAY,
        "11:00",
        slot_key(TUESDAY, "11:00"),
    )
    assert (booking.sequence, booking.reschedules) == (1, 1)
    assert booking.moved_from == slot_key(MONDAY, "10:00") and booking.moved_at is not None
    assert booking.state == BookingStatus.CONFIRMED  # BOOKING_RECONFIRM_MOVES is off.
    assert slots.taken(store.engine, [MONDAY, TUESDAY]) == {MONDAY: set(), TUESDAY: {"11:00"}}
    book(store, MONDAY, "10:00")  # The old slot is free for anyone.
    with pytest.raises(Refused):
        book(store, TUESDAY, "11:00")


def test_a_move_to_a_taken_slot_changes_nothing(store: LeadStore) -> None:
    mine, theirs = book(store, MONDAY, "10:00"), book(store, MONDAY, "11:00")
    outcome, booking = move(store, mine, MONDAY, "11:00")
    assert outcome is reschedule.Moved.SLOT_TAKEN
    assert booking.active_slot == slot_key(MONDAY, "10:00") and booking.sequence == 0
    assert slots.get(store.engine, theirs).active_slot == slot_key(MONDAY, "11:00")


def test_a_move_to_a_slot_the_owner_is_busy_for_is_answered_as_taken(store: LeadStore) -> None:
    """The owner's calendar (BOOKING_BUSY_ICS_URLS) keeps moves out as it keeps bookings out."""
    lead_id = book(store, MONDAY, "10:00")
    start = slot_start(TUESDAY, "11:00")
    dentist = BusyTimes((Interval(start, start + dt.timedelta(minutes=30)),))
    outcome, booking = move(store, lead_id, TUESDAY, "11:00", busy=dentist)
    assert outcome is reschedule.Moved.SLOT_TAKEN and booking.sequence == 0
    assert booking.active_slot == slot_key(MONDAY, "10:00")
    free = dict(availability.free_by_day(store.engine, TUESDAY, NOW, CALENDAR, 0, dentist))
    assert "11:00" not in free[TUESDAY] and "12:00" in free[TUESDAY]
    assert move(store, lead_id, TUESDAY, "12:00", busy=dentist)[0] is reschedule.Moved.DONE


def test_a_replayed_move_changes_nothing_and_the_link_stays_usable(store: LeadStore) -> None:
    lead_id = book(store, MONDAY, "10:00")
    assert move(store, lead_id, TUESDAY, "09:00", version=0)[0] is reschedule.Moved.DONE
    # The same form sent again (a double click, the back button, a replay)...
    outcome, booking = move(store, lead_id, TUESDAY, "09:00", version=0)
    assert outcome is reschedule.Moved.STALE and booking.sequence == 1
    # ...or an older form asking for another slot: neither changes anything.
    assert move(store, lead_id, TUESDAY, "12:00", version=0)[0] is reschedule.Moved.STALE
    assert slots.get(store.engine, lead_id).active_slot == slot_key(TUESDAY, "09:00")
    # The page drawn now carries the new version: the visitor can move again, or cancel.
    assert move(store, lead_id, TUESDAY, "12:00", version=1)[0] is reschedule.Moved.DONE
    assert slots.get(store.engine, lead_id).sequence == 2
    with Session(store.engine) as session:  # A move spends no link.
        assert session.exec(select(BookingLinkUse)).all() == []
    decision, cancelled = slots.decide(store.engine, lead_id, BookingStatus.CANCELLED)
    assert decision is slots.Decision.DONE and cancelled.active_slot is None


def test_a_moved_booking_keeps_its_state_unless_confirmed_moves_are_reconfirmed(
    store: LeadStore,
) -> None:
    pending = book(store, MONDAY, "09:00")
    assert move(store, pending, MONDAY, "12:00")[1].state == BookingStatus.PENDING
    confirmed = book(store, MONDAY, "10:00")
    confirm(store, confirmed)
    assert move(store, confirmed, MONDAY, "15:00")[1].state == BookingStatus.CONFIRMED
    again = reschedule.MoveRules(notice=dt.timedelta(0), max_moves=10, reconfirm=True)
    outcome, booking = move(store, confirmed, MONDAY, "16:00", rules=again)
    assert outcome is reschedule.Moved.DONE and booking.state == BookingStatus.PENDING
    assert booking.decided_at is None and booking.active_slot == slot_key(MONDAY, "16:00")
    # Pending again, the agency's confirm link confirms it at its new time.
    confirm(store, confirmed)
    assert move(store, pending, MONDAY, "17:00", rules=again)[1].state == BookingStatus.PENDING


def test_inside_the_notice_window_a_booking_cannot_move(store: LeadStore) -> None:
    lead_id = book(store, MONDAY, "10:00")
    rules = reschedule.MoveRules(notice=dt.timedelta(hours=24), max_moves=3)
    sunday_noon = dt.datetime(2026, 12, 13, 12, 0, tzinfo=MADRID)  # 22 h before.
    outcome, booking = move(store, lead_id, TUESDAY, "10:00", now=sunday_noon, rules=rules)
    assert outcome is reschedule.MoveRefused.TOO_LATE and booking.date == MONDAY
    saturday = dt.datetime(2026, 12, 12, 9, 59, tzinfo=MADRID)  # 48 h and a minute before.
    assert move(store, lead_id, TUESDAY, "10:00", now=saturday, rules=rules)[0] is (
        reschedule.Moved.DONE
    )
    after = dt.datetime(2026, 12, 15, 10, 30, tzinfo=MADRID)  # Once it started: never.
    assert move(store, lead_id, TUESDAY, "16:00", now=after, rules=FREE_RULES)[0] is (
        reschedule.MoveRefused.TOO_LATE
    )


def test_a_booking_moves_at_most_the_most_moves_allowed(store: LeadStore) -> None:
    lead_id = book(store, MONDAY, "10:00")
    twice = reschedule.MoveRules(notice=dt.timedelta(0), max_moves=2)
    assert move(store, lead_id, MONDAY, "11:00", rules=twice)[0] is reschedule.Moved.DONE
    assert move(store, lead_id, MONDAY, "12:00", rules=twice)[0] is reschedule.Moved.DONE
    outcome, booking = move(store, lead_id, MONDAY, "15:00", rules=twice)
    assert outcome is reschedule.MoveRefused.TOO_MANY and booking.time == "12:00"
    never = reschedule.MoveRules(notice=dt.timedelta(0), max_moves=0)
    other = book(store, TUESDAY, "10:00")
    assert move(store, other, TUESDAY, "11:00", rules=never)[0] is reschedule.MoveRefused.TOO_MANY


@pytest.mark.parametrize(
    ("date", "time"),
    [
        (dt.date(2026, 12, 12), "10:00"),  # A Saturday.
        (dt.date(2026, 12, 25), "10:00"),  # Christmas.
        (dt.date(2026, 12, 9), "10:00"),  # Before today.
        (dt.date(2026, 12, 10), "10:00"),  # Today, too soon (09:00 UTC now, 2 h notice).
        (dt.date(2027, 12, 13), "10:00"),  # More than a year ahead.
        (TUESDAY, "10:30"),  # No such slot.
    ],
)
def test_only_a_bookable_slot_is_moved_to(store: LeadStore, date: dt.date, time: str) -> None:
    lead_id = book(store, MONDAY, "10:00")
    outcome, booking = move(store, lead_id, date, time)
    assert outcome is reschedule.Moved.NOT_OPEN and booking.sequence == 0


def test_a_move_to_its_own_slot_or_of_a_booking_without_one(store: LeadStore) -> None:
    lead_id = book(store, MONDAY, "10:00")
    assert move(store, lead_id, MONDAY, "10:00")[0] is reschedule.Moved.SAME
    slots.decide(store.engine, lead_id, BookingStatus.CANCELLED)
    assert move(store, lead_id, TUESDAY, "10:00")[0] is reschedule.Moved.NOT_ALLOWED
    assert move(store, 999999, TUESDAY, "10:00", version=0)[0] is reschedule.Moved.UNKNOWN


def test_a_move_counts_the_new_days_limit_but_not_its_own_day(store: LeadStore) -> None:
    mine = book(store, MONDAY, "10:00", limit=1)
    book(store, TUESDAY, "10:00", limit=1)
    assert move(store, mine, TUESDAY, "11:00", limit=1)[0] is reschedule.Moved.SLOT_TAKEN
    assert move(store, mine, MONDAY, "12:00", limit=1)[0] is reschedule.Moved.DONE


def test_two_moves_to_one_slot_at_once_one_wins(db_url: str) -> None:
    store = plugged(new_engine(db_url))
    first, second = book(store, MONDAY, "10:00"), book(store, MONDAY, "11:00")
    engines = [new_engine(db_url) for _ in range(2)]
    start = threading.Barrier(2)
    outcomes: list[reschedule.Moved | reschedule.MoveRefused] = []

    def request(engine: sa.Engine, lead_id: int) -> None:
        start.wait()
        outcomes.append(
            reschedule.move(
                engine,
                lead_id,
                TUESDAY,
                "16:00",
                version=0,
                now=NOW,
                rules=FREE_RULES,
                calendar=CALENDAR,
            )[0]
        )

    threads = [
        threading.Thread(target=request, args=(engine, lead_id))
        for engine, lead_id in zip(engines, (first, second), strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == [reschedule.Moved.DONE, reschedule.Moved.SLOT_TAKEN]
    assert slots.taken(store.engine, [MONDAY, TUESDAY]) in (
        {MONDAY: {"11:00"}, TUESDAY: {"16:00"}},
        {MONDAY: {"10:00"}, TUESDAY: {"16:00"}},
    )
    for engine in [*engines, store.engine]:
        engine.dispose()


def test_one_booking_moved_twice_at_once_moves_once(db_url: str) -> None:
    store = plugged(new_engine(db_url))
    lead_id = book(store, MONDAY, "10:00")
    engines = [new_engine(db_url) for _ in range(2)]
    start = threading.Barrier(2)
    outcomes = []

    def request(engine: sa.Engine, time: str) -> None:
        start.wait()
        outcomes.append(
            reschedule.move(
                engine,
                lead_id,
                TUESDAY,
                time,
                version=0,
                now=NOW,
                rules=FREE_RULES,
                calendar=CALENDAR,
            )[0]
        )

    threads = [
        threading.Thread(target=request, args=(engine, time))
        for engine, time in zip(engines, ("12:00", "15:00"), strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == [reschedule.Moved.DONE, reschedule.Moved.STALE]
    booking = slots.get(store.engine, lead_id)
    assert booking.sequence == 1 and len(slots.taken(store.engine, [TUESDAY])[TUESDAY]) == 1
    assert not slots.taken(store.engine, [MONDAY])[MONDAY]
    for engine in [*engines, store.engine]:
        engine.dispose()


# --- Any sequence of bookings, moves and cancels --------------------------------------------

SLOTS = [(MONDAY, "10:00"), (MONDAY, "11:00"), (TUESDAY, "10:00"), (TUESDAY, "11:00")]
STEP = st.one_of(
    st.tuples(st.just("book"), st.integers(0, len(SLOTS) - 1)),
    st.tuples(st.just("move"), st.integers(0, 5), st.integers(0, len(SLOTS) - 1), st.booleans()),
    st.tuples(st.just("cancel"), st.integers(0, 5)),
    st.tuples(st.just("confirm"), st.integers(0, 5)),
)


def _empty(store: LeadStore) -> None:
    with store.engine.begin() as connection:
        connection.execute(sa.delete(Booking))
        connection.execute(sa.delete(Lead))


def _active(store: LeadStore) -> dict[int, str]:
    with Session(store.engine) as session:
        rows = session.exec(select(Booking)).all()
    return {b.lead_id: b.active_slot for b in rows if b.active_slot is not None}


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, max_size=14))
def test_any_bookings_moves_and_cancels_leave_one_booking_per_slot(
    store: LeadStore, steps: list[tuple]
) -> None:
    """The model: which booking holds which slot. After every step the database holds
    exactly the model's slots (never two bookings on one), a moved booking's old slot is
    free, and a booking's SEQUENCE counts its moves."""
    _empty(store)
    held: dict[int, str] = {}  # lead id -> its slot, while active.
    moves: Counter[int] = Counter()
    ids: list[int] = []
    for step in steps:
        if step[0] == "book":
            date, time = SLOTS[step[1]]
            try:
                ids.append(book(store, date, time))
                held[ids[-1]] = slot_key(date, time)
            except Refused:
                assert slot_key(date, time) in held.values()
        elif ids and step[0] == "move":
            lead_id = ids[step[1] % len(ids)]
            date, time = SLOTS[step[2]]
            version = moves[lead_id] - 1 if step[3] else moves[lead_id]  # step[3]: a replay.
            outcome, booking = move(store, lead_id, date, time, version=version)
            key = slot_key(date, time)
            if outcome is reschedule.Moved.DONE:
                assert lead_id in held and key not in held.values() and not step[3]
                assert booking.moved_from not in _active(store).values()  # Freed.
                held[lead_id] = key
                moves[lead_id] += 1
            else:
                free = key not in held.values()
                assert step[3] or lead_id not in held or not free or held[lead_id] == key
        elif ids and step[0] in ("cancel", "confirm"):
            lead_id = ids[step[1] % len(ids)]
            to = BookingStatus.CANCELLED if step[0] == "cancel" else BookingStatus.CONFIRMED
            if slots.decide(store.engine, lead_id, to)[0] is slots.Decision.DONE and not to.active:
                held.pop(lead_id)
        active = _active(store)
        assert active == held
        assert max(Counter(active.values()).values(), default=0) <= 1
        for lead_id in ids:
            assert slots.get(store.engine, lead_id).sequence == moves[lead_id]


# --- The calendar file: same UID, SEQUENCE + 1, the local time across the clock changes ----


@pytest.mark.parametrize(
    ("before", "after", "utc_before", "utc_after"),
    [
        # Europe/Madrid goes from UTC+1 to UTC+2 on 2026-03-29...
        (dt.date(2026, 3, 27), dt.date(2026, 3, 30), "20260327T090000Z", "20260330T080000Z"),
        # ...and back on 2026-10-25.
        (dt.date(2026, 10, 23), dt.date(2026, 10, 26), "20261023T080000Z", "20261026T090000Z"),
    ],
)
def test_a_move_across_the_clock_change_keeps_the_local_time_and_the_uid(
    store: LeadStore, before: dt.date, after: dt.date, utc_before: str, utc_after: str
) -> None:
    now = dt.datetime.combine(before - dt.timedelta(days=10), dt.time(9), MADRID)
    lead_id = book(store, before, "10:00")
    confirm(store, lead_id)
    old = ics(appointment(slots.get(store.engine, lead_id), {})).decode()
    outcome, booking = move(store, lead_id, after, "10:00", now=now)
    assert outcome is reschedule.Moved.DONE
    new = ics(appointment(booking, {})).decode()
    uid = f"UID:booking-{lead_id}@"
    assert uid in old and uid in new
    assert "SEQUENCE:0" in old and "SEQUENCE:1" in new
    assert f"DTSTART;TZID=Europe/Madrid:{before:%Y%m%d}T100000" in old
    assert f"DTSTART;TZID=Europe/Madrid:{after:%Y%m%d}T100000" in new
    assert f"DTEND;TZID=Europe/Madrid:{after:%Y%m%d}T110000" in new
    assert starts_at(booking).astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ") == utc_after
    old_start = slots.slot_start(before, "10:00").astimezone(dt.UTC)
    assert old_start.strftime("%Y%m%dT%H%M%SZ") == utc_before
    # A second move: SEQUENCE 2, the same UID.
    again = move(store, lead_id, after, "16:00", now=now)[1]
    assert "SEQUENCE:2" in ics(appointment(again, {})).decode()


# --- The migration --------------------------------------------------------------------------


def test_the_moves_migration_keeps_the_bookings_unmoved_and_told(tmp_path) -> None:
    """0e4fa46310b1 on a SQLite file holding a booking: kept, at SEQUENCE 0, never moved,
    nothing to tell; then back down."""
    from alembic.config import Config

    from agency_site.leads import migrations
    from alembic import command

    url = f"sqlite:///{tmp_path / 'old.db'}"
    config = Config(str(migrations.ALEMBIC_INI))
    config.set_main_option("script_location", str(migrations.ALEMBIC_DIR))
    config.set_main_option("sqlalchemy.url", url)
    command.upgrade(config, "8fbff7d91664")
    engine = new_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO leads (id, kind, fields, created_at, status, attempts) "
            "VALUES (1, 'booking', '{}', '2026-11-20 10:00:00', 'sent', 1)"
        )
        connection.exec_driver_sql(
            "INSERT INTO bookings (lead_id, date, time, state, active_slot, created_at) "
            "VALUES (1, '2026-12-14', '10:00', 'confirmed', '2026-12-14T10:00', "
            "'2026-11-20 10:00:00')"
        )
    migrations.upgrade(engine)
    booking = slots.get(engine, 1)
    assert (booking.sequence, booking.reschedules, booking.moved_from) == (0, 0, None)
    assert reschedule.moves_untold(engine, dt.datetime.now(dt.UTC)) == []
    with engine.connect() as connection:
        job = "SELECT count(*) FROM lead_monitor WHERE name = 'booking_moves'"
        assert connection.exec_driver_sql(job).scalar() == 1
    command.downgrade(config, "8fbff7d91664")
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("bookings")}
    assert "sequence" not in columns and "link_key" in columns
    engine.dispose()


# The days after Madrid's clocks change (spring: an hour lost, autumn: one more), and the
# first consultation of each.
AFTER_A_CLOCK_CHANGE = (dt.date(2026, 3, 30), dt.date(2026, 10, 26), dt.date(2027, 3, 29))


@given(
    day=st.sampled_from(AFTER_A_CLOCK_CHANGE),
    time=st.sampled_from(["09:00", "12:00", "18:00"]),
    notice_h=st.integers(1, 72),
    off_by_min=st.integers(-90, 90),
)
def test_the_notice_is_counted_in_real_hours_across_a_clock_change(
    day: dt.date, time: str, notice_h: int, off_by_min: int
) -> None:
    """However far before a meeting the visitor asks, across a change of the clocks or not:
    refused exactly when less than the notice is left in real time (before: the wall
    clock's hours, one more or one less across the change)."""
    start = slots.slot_start(day, time)
    notice = dt.timedelta(hours=notice_h)
    left = notice + dt.timedelta(minutes=off_by_min)
    now = (start.astimezone(dt.UTC) - left).astimezone(MADRID)  # As agency_now() gives it.
    booking = Booking(lead_id=1, date=day, time=time)
    refused = reschedule.MoveRules(notice=notice, max_moves=3).refusal(booking, now)
    assert (refused is reschedule.MoveRefused.TOO_LATE) == (left < notice)

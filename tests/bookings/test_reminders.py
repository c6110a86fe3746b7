"""The visitor's reminders before a confirmed meeting (``bookings/reminders.py``) on a real
database (SQLite and PostgreSQL): sent once about 24 real hours before, only for a
confirmed booking, never twice (a restart, two workers at once), again for a moved
meeting's new time and never for its old one, skipped when too late, the optional second
one, across the clock changes; and the calendar file's alarm."""

import datetime as dt
import logging
import threading
from collections import Counter
from dataclasses import replace

import icalendar
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agency_site.bookings import reminders, reschedule, slots
from agency_site.bookings.calendar_file import ALARM_BEFORE, ics
from agency_site.bookings.mails import appointment, starts_at
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.bookings.plugin import BookingsPlugin
from agency_site.content.bookings import COPY
from agency_site.leads.models import Lead
from agency_site.leads.plugins import Refused
from agency_site.leads.store import LeadStore
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_booking_pages import desk_for
from tests.bookings.test_bookings import MONDAY
from tests.lead_store import BOOKING_FIELDS, add_held_booking, new_engine, plugged
from tests.run_async import run

DAY = reminders.plan(24)
DAY_AND_TWO_HOURS = reminders.plan(24, 2)
MINUTE = dt.timedelta(minutes=1)
# When the tests' bookings were confirmed: before any of their reminders.
ANSWERED = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)
FREE = reschedule.MoveRules(notice=dt.timedelta(0), max_moves=1000)


def booked(
    store: LeadStore,
    date: dt.date = MONDAY,
    time: str = "10:00",
    *,
    language: str = "es",
    email: str = "ana@example.com",
    to: BookingStatus | None = BookingStatus.CONFIRMED,
) -> int:
    """A booking of a visitor of ``language``, then answered ``to`` (None: left pending)."""
    fields = BOOKING_FIELDS | {"date": str(date), "time": time, "email": email}
    lead_id = add_held_booking(plugged(store.engine), fields, language=language)
    if to is not None:
        assert slots.decide(store.engine, lead_id, to)[0] is slots.Decision.DONE
        answered(store, lead_id, ANSWERED)
    return lead_id


def answered(store: LeadStore, lead_id: int, moment: dt.datetime, moved: bool = False) -> None:
    """Make booking ``lead_id`` look answered (confirmed: its e-mail sent), or ``moved``, at
    ``moment`` (not the real clock's: the tests' meetings are at fixed dates)."""
    values = {"moved_at": moment} if moved else {"decided_at": moment}
    with store.engine.begin() as connection:
        connection.execute(sa.update(Booking).where(Booking.lead_id == lead_id).values(values))


def remind(store: LeadStore, sent: list, now: dt.datetime, plan=DAY) -> int:
    """One reminders round at ``now`` (a desk that records what it sends)."""
    return run(reminders.send_due(desk_for(store, 14, sent), now, plan))


def start(store: LeadStore, lead_id: int) -> dt.datetime:
    return starts_at(slots.get(store.engine, lead_id))


def test_a_confirmed_booking_is_reminded_once_about_24_hours_before(store: LeadStore) -> None:
    lead_id = booked(store, language="ca")
    due = start(store, lead_id) - dt.timedelta(hours=24)
    sent: list = []
    assert remind(store, sent, due - MINUTE) == 0 and sent == []
    assert remind(store, sent, due + MINUTE) == 1
    ((template, params),) = sent
    assert template == "visitor" and params["to_email"] == "ana@example.com"
    # In the visitor's language, with the manage link, the calendar file, the meeting link.
    from agency_site import locale

    with locale.active("ca"):
        assert params["subject"] == COPY.mails.reminder.subject
    assert "/_site/bookings/cancel?t=" in params["cancel_url"]
    assert "/_site/bookings/calendar?t=" in params["ics_url"]
    assert "meeting_url" in params and params["time"] == "10:00"
    for later in (due + 2 * MINUTE, due + dt.timedelta(hours=3)):
        assert remind(store, sent, later) == 0
    assert len(sent) == 1
    assert slots.get(store.engine, lead_id).reminder_sequence == 0


@pytest.mark.parametrize(
    "to", [None, BookingStatus.CANCELLED, BookingStatus.DECLINED, BookingStatus.EXPIRED]
)
def test_no_reminder_for_a_booking_not_confirmed(store: LeadStore, to) -> None:
    if to is BookingStatus.EXPIRED:
        lead_id = booked(store, to=None)
        with store.engine.begin() as connection:
            connection.execute(sa.update(Booking).values(state=to, active_slot=None))
    else:
        lead_id = booked(store, to=to)
    due = start(store, lead_id) - dt.timedelta(hours=24)
    sent: list = []
    assert remind(store, sent, due + MINUTE, DAY_AND_TWO_HOURS) == 0
    assert remind(store, sent, due + dt.timedelta(hours=22, minutes=1), DAY_AND_TWO_HOURS) == 0
    assert sent == []


def test_no_reminder_twice_after_a_restart(store: LeadStore) -> None:
    """A new process (another engine, another desk, a new watch) finds the claim stored."""
    lead_id = booked(store)
    due = start(store, lead_id) - dt.timedelta(hours=24)
    sent: list = []
    assert remind(store, sent, due + MINUTE) == 1
    restarted = LeadStore(new_engine(str(store.engine.url.render_as_string(False))))
    watch = reminders.ReminderWatch(DAY, lambda: desk_for(restarted, 14, sent))
    assert run(reminders.send_due(watch.desk(), due + 2 * MINUTE, DAY)) == 0
    assert len(sent) == 1
    restarted.engine.dispose()


def test_two_watchers_at_once_send_once(db_url: str) -> None:
    engines = [new_engine(db_url) for _ in range(4)]
    lead_ids = [booked(LeadStore(engines[0]), MONDAY, time) for time in ("09:00", "10:00")]
    due = start(LeadStore(engines[0]), lead_ids[-1]) - dt.timedelta(hours=24) + MINUTE
    sent: list = []
    gate = threading.Barrier(len(engines))

    def worker(engine: sa.Engine) -> None:
        gate.wait()
        remind(LeadStore(engine), sent, due)

    threads = [threading.Thread(target=worker, args=(engine,)) for engine in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(params["time"] for _, params in sent) == ["09:00", "10:00"]
    for engine in engines:
        engine.dispose()


def test_a_moved_meeting_is_reminded_for_its_new_time_only(store: LeadStore) -> None:
    lead_id = booked(store, MONDAY, "10:00")
    old_due = start(store, lead_id) - dt.timedelta(hours=24)
    sent: list = []
    assert remind(store, sent, old_due + MINUTE) == 1  # Reminded for Monday 10:00...
    later = WorkingCalendar().next_working_day(MONDAY + dt.timedelta(days=2))
    outcome, _ = reschedule.move(
        store.engine,
        lead_id,
        later,
        "12:00",
        version=0,
        now=old_due,
        rules=FREE,
        calendar=WorkingCalendar(),
    )
    assert outcome is reschedule.Moved.DONE  # ...then moved: one reminder for the new time.
    answered(store, lead_id, old_due, moved=True)
    assert remind(store, sent, old_due + 2 * MINUTE) == 0  # Not due yet.
    new_due = start(store, lead_id) - dt.timedelta(hours=24)
    assert remind(store, sent, new_due + MINUTE) == 1
    assert remind(store, sent, new_due + 2 * MINUTE) == 0
    assert [params["time"] for _, params in sent] == ["10:00", "12:00"]
    assert slots.get(store.engine, lead_id).reminder_sequence == 1


def test_a_meeting_moved_after_its_reminder_was_found_is_not_reminded_of_the_old_time(
    store: LeadStore,
) -> None:
    lead_id = booked(store, MONDAY, "10:00")
    now = start(store, lead_id) - dt.timedelta(hours=24) + MINUTE
    (found,) = reminders.due(store.engine, now, DAY)  # Queued for Monday 10:00...
    outcome, _ = reschedule.move(
        store.engine,
        lead_id,
        MONDAY,
        "16:00",
        version=0,
        now=now - dt.timedelta(hours=1),
        rules=FREE,
        calendar=WorkingCalendar(),
    )
    assert outcome is reschedule.Moved.DONE  # ...moved before it was claimed: the claim fails.
    answered(store, lead_id, now - dt.timedelta(hours=1), moved=True)
    assert not reminders.claim(store.engine, found.booking, found.reminder.which)
    sent: list = []
    assert remind(store, sent, now) == 0  # 16:00 is not due yet at 10:01 the day before.
    assert remind(store, sent, now + dt.timedelta(hours=6)) == 1
    assert [params["time"] for _, params in sent] == ["16:00"]


def test_a_reminder_not_accepted_is_sent_again_next_round(store: LeadStore) -> None:
    lead_id = booked(store)
    now = start(store, lead_id) - dt.timedelta(hours=24) + MINUTE
    refused: list = []

    async def refuse(template: str, params: dict[str, str]) -> bool:
        refused.append(template)
        return False

    down = replace(desk_for(store, 14, []), send=refuse)
    assert run(reminders.send_due(down, now, DAY)) == 0 and refused == ["visitor"]
    assert slots.get(store.engine, lead_id).reminder_sequence == -1  # Released.
    sent: list = []
    assert remind(store, sent, now + MINUTE) == 1 and len(sent) == 1


def test_a_reminder_too_late_is_skipped_not_sent(store: LeadStore, caplog) -> None:
    """The site was down: 13 h past a 24 h reminder's time (its window is 12 h)."""
    lead_id = booked(store)
    late = start(store, lead_id) - dt.timedelta(hours=11)
    sent: list = []
    with caplog.at_level(logging.WARNING, logger="agency_site.bookings.reminders"):
        assert remind(store, sent, late) == 0
    assert "skipped, not sent late" in caplog.text and sent == []
    assert remind(store, sent, late + MINUTE) == 0  # Skipped once, not logged every round.
    assert caplog.text.count("skipped") == 1
    # Within the window it would have gone out.
    other = booked(store, MONDAY, "12:00")
    assert remind(store, sent, start(store, other) - dt.timedelta(hours=13)) == 1


def test_no_reminder_due_before_the_booking_was_confirmed(store: LeadStore, caplog) -> None:
    """Confirmed 20 h before the meeting: the confirmation has just told the time, so the
    24 h reminder (due 4 h before that, still in its window) is skipped; the 2 h one goes."""
    lead_id = booked(store)
    begins = start(store, lead_id)
    answered(store, lead_id, begins - dt.timedelta(hours=20))
    sent: list = []
    now = begins - dt.timedelta(hours=20) + MINUTE
    with caplog.at_level(logging.INFO, logger="agency_site.bookings.reminders"):
        assert remind(store, sent, now, DAY_AND_TWO_HOURS) == 0
    assert "due before it was confirmed or moved" in caplog.text and sent == []
    assert remind(store, sent, begins - dt.timedelta(hours=2), DAY_AND_TWO_HOURS) == 1


def test_the_second_reminder_two_hours_before_when_set(store: LeadStore) -> None:
    lead_id = booked(store)
    begins = start(store, lead_id)
    sent: list = []
    assert remind(store, sent, begins - dt.timedelta(hours=24) + MINUTE, DAY_AND_TWO_HOURS) == 1
    assert remind(store, sent, begins - dt.timedelta(hours=2) - MINUTE, DAY_AND_TWO_HOURS) == 0
    assert remind(store, sent, begins - dt.timedelta(hours=2) + MINUTE, DAY_AND_TWO_HOURS) == 1
    assert remind(store, sent, begins - dt.timedelta(hours=1), DAY_AND_TWO_HOURS) == 0
    assert len(sent) == 2
    # Without it (BOOKING_SECOND_REMINDER_HOURS unset), only the first goes out.
    assert reminders.plan(24, 0) == DAY and reminders.plan(0, 0) == ()


@pytest.mark.parametrize(
    ("day", "due_utc"),
    [
        # The Monday after Europe/Madrid went to UTC+2 (2026-03-29): 09:00 is 07:00 UTC...
        (dt.date(2026, 3, 30), dt.datetime(2026, 3, 29, 7, 0, tzinfo=dt.UTC)),
        # ...and after it went back to UTC+1 (2026-10-25): 09:00 is 08:00 UTC.
        (dt.date(2026, 10, 26), dt.datetime(2026, 10, 25, 8, 0, tzinfo=dt.UTC)),
    ],
)
def test_a_reminder_across_the_clock_change_is_due_24_real_hours_before(
    store: LeadStore, day: dt.date, due_utc: dt.datetime
) -> None:
    """Chosen: real elapsed hours, not the same local time the day before. 24 h before
    these Mondays is also 09:00 local (the clock changed at night, before the Sunday's 09:00);
    48 h before the spring one is Saturday 08:00 local, one local hour off: the real hours
    count."""
    lead_id = booked(store, day, "09:00")
    sent: list = []
    assert remind(store, sent, due_utc - MINUTE) == 0
    assert remind(store, sent, due_utc) == 1
    if day.month == 3:
        other = booked(store, day, "10:00")
        two_days = reminders.plan(48)
        due = dt.datetime(2026, 3, 28, 8, 0, tzinfo=dt.UTC)  # 09:00 CET, Saturday.
        assert start(store, other) - due == dt.timedelta(hours=48)
        assert remind(store, sent, due - MINUTE, two_days) == 0
        assert remind(store, sent, due, two_days) == 1
    assert slots.get(store.engine, lead_id).reminder_sequence == 0


def test_the_calendar_file_has_a_display_alarm_an_hour_before() -> None:
    booking = Booking(lead_id=7, date=MONDAY, time="10:00", link_key="k" * 32, sequence=2)
    event = icalendar.Calendar.from_ical(ics(appointment(booking, {}))).walk("VEVENT")[0]
    (alarm,) = event.walk("VALARM")
    assert str(alarm["ACTION"]) == "DISPLAY" and alarm["DESCRIPTION"]
    assert alarm.decoded("TRIGGER") == -ALARM_BEFORE == -dt.timedelta(hours=1)
    assert str(event["UID"]).startswith("booking-7@") and event.decoded("SEQUENCE") == 2
    cancelled = icalendar.Calendar.from_ical(ics(appointment(booking, {}), cancelled=True))
    assert cancelled.walk("VALARM") == []  # A cancelled event rings no alarm.


def test_the_plugin_runs_the_reminders_round_at_most_every_minute(store: LeadStore) -> None:
    sent: list = []
    watch = reminders.ReminderWatch(DAY, lambda: desk_for(store, 14, sent))
    plugin = BookingsPlugin(reminders=watch)
    assert watch.watch in plugin.watchers(None)  # type: ignore[arg-type]
    assert run(watch.watch()) == 0  # Nothing due now.
    assert watch._next > 0 and run(watch.watch()) == 0  # Throttled.
    assert BookingsPlugin().reminders is None


# --- Any sequence of steps: at most one reminder per version, only while confirmed --------

SLOTS = [(MONDAY + dt.timedelta(days=d), t) for d in (0, 1) for t in ("09:00", "10:00", "16:00")]
STEP = st.one_of(
    # A booking, confirmed at once or left pending.
    st.tuples(st.just("book"), st.integers(0, len(SLOTS) - 1), st.booleans()),
    st.tuples(st.sampled_from(["confirm", "cancel", "decline"]), st.integers(0, 9)),
    st.tuples(st.just("move"), st.integers(0, 9), st.integers(0, len(SLOTS) - 1)),
    st.tuples(st.just("advance"), st.integers(1, 6)),
)


def _empty(store: LeadStore) -> None:
    with store.engine.begin() as connection:
        connection.execute(sa.delete(Booking))
        connection.execute(sa.delete(Lead))


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(STEP, max_size=24))
def test_any_steps_give_at_most_one_reminder_per_version_and_only_while_confirmed(
    store: LeadStore, steps: list[tuple], monkeypatch: pytest.MonkeyPatch
) -> None:
    _empty(store)
    # Sunday 06:00 UTC: Monday 09:00's reminder is due two hours later.
    now = dt.datetime.combine(MONDAY - dt.timedelta(days=1), dt.time(6), dt.UTC)
    # Confirmations and moves happen on the steps' clock (``decided_at``, ``moved_at``).
    monkeypatch.setattr(slots, "utcnow", lambda: now)
    monkeypatch.setattr(reschedule, "utcnow", lambda: now)
    ids: list[int] = []
    told: Counter[tuple[int, int]] = Counter()

    async def send(template: str, params: dict[str, str]) -> bool:
        lead_id = ids[int(params["to_email"].split("@")[0][1:])]
        booking = slots.get(store.engine, lead_id)
        assert booking.state == BookingStatus.CONFIRMED  # Confirmed when sent...
        assert params["time"] == booking.time  # ...and about its current time.
        told[(lead_id, booking.sequence)] += 1
        return True

    desk = replace(desk_for(store, 14), send=send)
    for step in steps:
        if step[0] == "book":
            date, time = SLOTS[step[1]]
            try:
                to = BookingStatus.CONFIRMED if step[2] else None
                ids.append(booked(store, date, time, email=f"v{len(ids)}@example.com", to=to))
            except Refused:
                pass
        elif step[0] == "advance":
            now += dt.timedelta(hours=step[1])
        elif ids and step[0] == "move":
            lead_id = ids[step[1] % len(ids)]
            version = slots.get(store.engine, lead_id).sequence
            date, time = SLOTS[step[2]]
            reschedule.move(
                store.engine,
                lead_id,
                date,
                time,
                version=version,
                now=now,
                rules=FREE,
                calendar=WorkingCalendar(),
            )
        elif ids:
            to = {
                "confirm": BookingStatus.CONFIRMED,
                "cancel": BookingStatus.CANCELLED,
                "decline": BookingStatus.DECLINED,
            }[step[0]]
            slots.decide(store.engine, ids[step[1] % len(ids)], to)
        run(reminders.send_due(desk, now, DAY))
    for _ in range(0, 60, 3):  # Then time goes by: every reminder still due goes out.
        now += dt.timedelta(hours=3)
        run(reminders.send_due(desk, now, DAY))
    assert max(told.values(), default=0) <= 1


def test_the_reminders_migration_leaves_the_bookings_unreminded(tmp_path) -> None:
    """3c7e5a9b1d42 on a SQLite file holding a confirmed booking: kept, no reminder claimed
    yet (so it gets its reminder when due); then back down."""
    from alembic.config import Config

    from agency_site.leads import migrations
    from alembic import command

    url = f"sqlite:///{tmp_path / 'old.db'}"
    config = Config(str(migrations.ALEMBIC_INI))
    config.set_main_option("script_location", str(migrations.ALEMBIC_DIR))
    config.set_main_option("sqlalchemy.url", url)
    command.upgrade(config, "0e4fa46310b1")
    engine = new_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO leads (id, kind, fields, created_at, status, attempts) "
            "VALUES (1, 'booking', '{}', '2026-11-20 10:00:00', 'sent', 1)"
        )
        connection.exec_driver_sql(
            "INSERT INTO bookings (lead_id, date, time, state, active_slot, created_at, "
            "decided_at) VALUES (1, '2026-12-14', '10:00', 'confirmed', '2026-12-14T10:00', "
            "'2026-11-20 10:00:00', '2026-11-20 11:00:00')"
        )
    migrations.upgrade(engine)
    booking = slots.get(engine, 1)
    assert (booking.reminder_sequence, booking.second_reminder_sequence) == (-1, -1)
    now = starts_at(booking) - dt.timedelta(hours=23)
    assert [d.booking.lead_id for d in reminders.due(engine, now, DAY)] == [1]
    command.downgrade(config, "0e4fa46310b1")
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("bookings")}
    assert "reminder_sequence" not in columns and "sequence" in columns
    engine.dispose()


def test_the_reminders_follow_their_settings(monkeypatch, tmp_path) -> None:
    """BOOKING_REMINDER_HOURS and BOOKING_SECOND_REMINDER_HOURS make the plan; without the
    visitor template no reminder could go out, so none is looked for."""
    from agency_site.bookings.plugin import plugin
    from agency_site.settings import get_settings

    monkeypatch.setenv("DEPLOY_DATA_DIR", str(tmp_path))  # Its generated link secret.
    monkeypatch.setenv("EMAILJS_VISITOR_TEMPLATE_ID", "")
    get_settings.cache_clear()
    try:
        assert plugin(get_settings()).reminders is None
        monkeypatch.setenv("EMAILJS_VISITOR_TEMPLATE_ID", "template_visitor")
        get_settings.cache_clear()
        assert plugin(get_settings()).reminders.reminders == DAY  # 24 h by default.
        monkeypatch.setenv("BOOKING_SECOND_REMINDER_HOURS", "2")
        get_settings.cache_clear()
        assert plugin(get_settings()).reminders.reminders == DAY_AND_TWO_HOURS
        monkeypatch.setenv("BOOKING_REMINDER_HOURS", "0")
        monkeypatch.setenv("BOOKING_SECOND_REMINDER_HOURS", "0")
        get_settings.cache_clear()
        assert plugin(get_settings()).reminders.reminders == ()
    finally:
        get_settings.cache_clear()

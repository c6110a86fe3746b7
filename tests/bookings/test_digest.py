"""The owner's morning digest (``bookings/digest.py``) on a real database (SQLite and
PostgreSQL): once a day whatever the workers and restarts, only on working days from
``BOOKING_DIGEST_HOUR`` agency time (across the changes of clock), the day's confirmed
meetings only, the passed ones with their attendance links, and a refused send tried
again."""

import asyncio
import dataclasses
import datetime as dt
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa

from agency_site.bookings import digest, slots
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.models import Attendance, BookingStatus
from agency_site.content.bookings import COPY
from agency_site.content.form_words import COPY as FORM_WORDS
from agency_site.leads.models import Lead, LeadMonitor
from agency_site.leads.store import LeadStore
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_booking_pages import desk_for
from tests.bookings.test_bookings import MONDAY, book
from tests.lead_store import BOOKING_FIELDS, new_engine, plugged
from tests.run_async import run

MADRID = ZoneInfo("Europe/Madrid")
CALENDAR = WorkingCalendar()
FRIDAY = MONDAY - dt.timedelta(days=3)
MORNING = dt.datetime.combine(MONDAY, dt.time(8, 0), MADRID)


def confirmed(store: LeadStore, day: dt.date, time: str) -> int:
    lead_id = book(store, day, time)
    assert slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)[0] is slots.Decision.DONE
    return lead_id


def send_digest(store: LeadStore, desk: BookingDesk, now: dt.datetime = MORNING) -> bool:
    """One round of the digest watcher of a worker over ``store``."""
    worker = plugged(store.engine, desk=lambda: desk, digest_hour=8)
    plugin = next(iter(worker.plugins))
    return run(plugin.send_digest(SimpleNamespace(store=worker), now))


def retry_due(store: LeadStore) -> None:
    """Make the digest's next try due now (as ``digest.RETRY_EVERY`` later)."""
    with store.engine.begin() as connection:
        connection.execute(
            sa.update(LeadMonitor)
            .where(LeadMonitor.name == digest.BOOKING_DIGEST)
            .values(due_at=None)
        )


def agency_mails(sent: list) -> list[str]:
    return [params["message"] for template, params in sent if template == "agency"]


def test_the_digest_goes_once_a_day_with_two_workers_and_after_a_restart(db_url: str) -> None:
    engines = [new_engine(db_url) for _ in range(2)]
    sent: list = []
    stores = [plugged(engine) for engine in engines]
    confirmed(stores[0], MONDAY, "10:00")
    desks = [desk_for(store, 14, sent) for store in stores]

    async def both() -> list[bool]:
        rounds = []
        for store, desk in zip(stores, desks, strict=True):
            worker = plugged(store.engine, desk=lambda desk=desk: desk, digest_hour=8)
            plugin = next(iter(worker.plugins))
            rounds.append(plugin.send_digest(SimpleNamespace(store=worker), MORNING))
        return await asyncio.gather(*rounds)

    assert sorted(run(both())) == [False, True]
    assert len(agency_mails(sent)) == 1
    retry_due(store=stores[0])  # Only the claimed day stops the next ones.
    later = MORNING + dt.timedelta(hours=9)
    restarted = plugged(new_engine(db_url))  # A new process: only the database remembers.
    assert not send_digest(restarted, desk_for(restarted, 14, sent), later)
    assert len(agency_mails(sent)) == 1
    retry_due(store=stores[0])
    tomorrow = MORNING + dt.timedelta(days=1)
    confirmed(stores[0], MONDAY + dt.timedelta(days=1), "10:00")
    assert send_digest(restarted, desk_for(restarted, 14, sent), tomorrow)
    assert len(agency_mails(sent)) == 2
    for engine in engines:
        engine.dispose()


def test_the_digest_lists_only_the_days_confirmed_meetings(store: LeadStore) -> None:
    sent: list = []
    confirmed(store, MONDAY, "10:00")
    book(store, MONDAY, "11:00")  # Pending.
    declined = book(store, MONDAY, "12:00")
    slots.decide(store.engine, declined, BookingStatus.DECLINED)
    cancelled = confirmed(store, MONDAY, "13:00")
    slots.decide(store.engine, cancelled, BookingStatus.CANCELLED)
    confirmed(store, MONDAY + dt.timedelta(days=1), "09:00")  # Tomorrow's.
    assert send_digest(store, desk_for(store, 14, sent))
    (text,) = agency_mails(sent)
    assert text.startswith("Consultas del") and "14 de diciembre" in text
    assert "10:00 · Ana García" in text
    assert "+34 600 12 34 56" in text and "ana@example.com" in text
    for other in ("11:00", "12:00", "13:00", "09:00"):
        assert other not in text
    assert "attended" not in text  # Nothing passed to mark.


def test_no_digest_on_weekends_holidays_before_the_hour_or_without_meetings(
    store: LeadStore,
) -> None:
    sent: list = []
    desk = desk_for(store, 14, sent)
    saturday = MORNING - dt.timedelta(days=2)
    holiday = dt.datetime(2026, 12, 8, 9, 0, tzinfo=MADRID)  # La Inmaculada, a Tuesday.
    confirmed(store, MONDAY, "10:00")
    assert digest.digest_day(saturday, 8, CALENDAR) is None
    assert digest.digest_day(holiday, 8, CALENDAR) is None
    assert not send_digest(store, desk, saturday)
    assert not send_digest(store, desk, holiday)
    assert not send_digest(store, desk, MORNING - dt.timedelta(minutes=1))
    assert not agency_mails(sent)
    quiet = MORNING + dt.timedelta(days=2)  # Wednesday: no meeting, none to mark.
    assert not send_digest(store, desk, quiet)
    retry_due(store)
    assert not send_digest(store, desk, quiet)
    assert len(agency_mails(sent)) == 0


def test_a_refused_digest_is_sent_on_a_later_round(store: LeadStore) -> None:
    sent: list = []
    accepted = iter([False, True])

    async def flaky(template: str, params: dict[str, str]) -> bool:
        sent.append((template, params))
        return next(accepted)

    confirmed(store, MONDAY, "10:00")
    desk = dataclasses.replace(desk_for(store, 14), send=flaky)
    assert not send_digest(store, desk)
    assert not send_digest(store, desk, MORNING + dt.timedelta(minutes=1))  # Not every tick.
    assert len(agency_mails(sent)) == 1
    retry_due(store)
    assert send_digest(store, desk, MORNING + dt.timedelta(minutes=5))
    retry_due(store)
    assert not send_digest(store, desk, MORNING + dt.timedelta(minutes=2))
    assert len(agency_mails(sent)) == 2  # The refused one, then the accepted one.


def test_mondays_digest_carries_fridays_meetings_to_mark(store: LeadStore) -> None:
    sent: list = []
    came = confirmed(store, FRIDAY, "10:00")
    marked = confirmed(store, FRIDAY, "11:00")
    slots.mark_attendance(store.engine, marked, Attendance.NO_SHOW, None, MORNING)
    cancelled = confirmed(store, FRIDAY, "12:00")
    slots.decide(store.engine, cancelled, BookingStatus.CANCELLED)
    assert send_digest(store, desk_for(store, 14, sent))
    (text,) = agency_mails(sent)
    assert COPY.digest.none_today in text  # Nothing today, but Friday's to mark.
    assert text.count("/_site/bookings/attended?t=") == 1
    assert text.count("/_site/bookings/no_show?t=") == 1
    assert "10:00 · Ana García" in text and "11:00" not in text and "12:00" not in text
    assert came


def test_the_day_after_a_holiday_looks_back_to_the_last_working_day() -> None:
    wednesday = dt.date(2026, 12, 9)  # After La Inmaculada (Tuesday 8).
    assert digest.previous_working_day(wednesday, CALENDAR) == dt.date(2026, 12, 7)
    assert digest.previous_working_day(MONDAY, CALENDAR) == FRIDAY


@pytest.mark.parametrize("day", [dt.date(2026, 3, 30), dt.date(2026, 10, 26)])
def test_the_digest_hour_is_eight_local_across_the_changes_of_clock(day: dt.date) -> None:
    eight = dt.datetime.combine(day, dt.time(8, 0), MADRID)
    just_before = (eight - dt.timedelta(minutes=1)).astimezone(dt.UTC)
    assert digest.digest_day(just_before, 8, CALENDAR) is None
    assert digest.digest_day(eight.astimezone(dt.UTC), 8, CALENDAR) == day
    offset = {3: 2, 10: 1}[day.month]  # Summer time (CEST) in March, winter (CET) after.
    assert eight.astimezone(dt.UTC).hour == 8 - offset


def test_each_meeting_shows_its_message_and_video_call(store: LeadStore, monkeypatch) -> None:
    monkeypatch.setattr(digest, "booking_meeting_url", lambda key: f"https://meet.jit.si/x-{key}")
    lead_id = confirmed(store, MONDAY, "10:00")
    with store.engine.begin() as connection:  # The visitor wrote a message.
        fields = BOOKING_FIELDS | {"date": str(MONDAY), "time": "10:00", "message": "Una web"}
        connection.execute(sa.update(Lead).where(Lead.id == lead_id).values(fields=fields))
    sent: list = []
    assert send_digest(store, desk_for(store, 14, sent))
    (text,) = agency_mails(sent)
    key = slots.get(store.engine, lead_id).link_key
    assert f"{FORM_WORDS.booking.fields['message'].summary}: Una web" in text
    assert f"{COPY.digest.meeting_link}: https://meet.jit.si/x-{key}" in text


def test_the_settings_turn_the_digest_on_at_its_hour_or_off(monkeypatch, tmp_path) -> None:
    from agency_site.bookings.plugin import plugin
    from agency_site.settings import BookingSettings, DeploySettings, load_settings

    def digest_hour() -> int | None:
        booking = BookingSettings(_env_file=None, link_secret="s" * 40)
        deploy = DeploySettings(_env_file=None, data_dir=str(tmp_path))
        settings = load_settings().model_copy(update={"booking": booking, "deploy": deploy})
        return plugin(settings).digest_hour

    for name in ("BOOKING_DIGEST", "BOOKING_DIGEST_HOUR"):
        monkeypatch.delenv(name, raising=False)
    assert digest_hour() == 8
    monkeypatch.setenv("BOOKING_DIGEST_HOUR", "7")
    assert digest_hour() == 7
    monkeypatch.setenv("BOOKING_DIGEST", "false")
    assert digest_hour() is None
    monkeypatch.setenv("BOOKING_DIGEST_HOUR", "24")
    with pytest.raises(ValueError):
        BookingSettings(_env_file=None)


def test_without_a_digest_hour_the_watcher_is_not_run(store: LeadStore) -> None:
    def runs_digest(plugin) -> bool:
        watchers = plugin.watchers(SimpleNamespace(store=store))
        return any(getattr(watcher, "func", None) == plugin.send_digest for watcher in watchers)

    desk = desk_for(store, 14)
    off = next(iter(plugged(store.engine, desk=lambda: desk).plugins))
    on = next(iter(plugged(store.engine, desk=lambda: desk, digest_hour=8).plugins))
    assert runs_digest(on) and not runs_digest(off)
    assert not run(off.send_digest(SimpleNamespace(store=store), MORNING))

"""The issue's target for the reminders, as a seeded simulation: 500 bookings over three
months (across the change to summer time of 2026-03-29), answered, moved, cancelled and
declined at random while the monitor's reminders rounds run every hour of the agency's day
(when reminders fall due), a third of them by a worker that found its reminders and claims
them only after some of those bookings were moved, cancelled or declined.

Counted, and each must be 0: reminders for a booking not confirmed when sent (cancelled,
declined, pending again), reminders of a time the meeting was moved from, a reminder sent
twice for one version, and a reminder missed (a confirmed meeting whose visitor was last
e-mailed before its reminder was due, not reminded of its final time). The counts are
printed (``-s``): they go in the issue's closing note.
"""

import datetime as dt
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site import locale
from agency_site.bookings import reminders, reschedule, slots
from agency_site.bookings.links import LinkSigner, VerifiedLink
from agency_site.bookings.mails import starts_at
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.forms.email import date_es
from agency_site.leads.store import LeadStore
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_booking_pages import desk_for
from tests.bookings.test_bookings import SECRET
from tests.lead_store import BOOKING_FIELDS, add_held_booking, plugged
from tests.run_async import run

SEED = 31
BOOKINGS = 500
# Monday 2 March 2026, 08:00 in Madrid: every booking is made now, for the weeks after.
START = dt.datetime(2026, 3, 2, 7, 0, tzinfo=dt.UTC)
MADRID = ZoneInfo("Europe/Madrid")
ROUND = dt.timedelta(hours=1)
# The hours of the agency's day (Madrid) a reminder can fall due in: the meetings are 09:00
# to 18:00, their reminders 24 and 2 real hours before (one hour off across a change).
DAYTIME = range(6, 21)
PLAN = reminders.plan(24, 2)
CALENDAR = WorkingCalendar(min_notice=dt.timedelta(hours=2))
# Per hour: the owner answers a pending booking (confirm, or now and then decline)...
ANSWER, DECLINE = 0.08, 0.1
# ...a visitor moves or cancels (half the time one whose meeting is within two days)...
MOVE, CANCEL = 0.15, 0.06
# ...and a worker is slow: it claims what it found after some of those bookings changed.
SLOW, CHANGED_MEANWHILE = 0.3, 0.3
NOTICE = dt.timedelta(hours=2)


# What must never happen, each counted (and printed, 0 included).
NOT_CONFIRMED = "sent for a booking not confirmed then"
OLD_TIME = "sent for a time the meeting was moved from"
TWICE = "sent twice for one version"
MISSED = "missed (first)", "missed (second)"
WRONG = (NOT_CONFIRMED, OLD_TIME, TWICE, *MISSED)


@dataclass
class Tally:
    """What the simulation did and what the reminders did."""

    did: Counter = field(default_factory=Counter)
    sent: Counter = field(default_factory=Counter)
    wrong: Counter = field(default_factory=lambda: Counter(dict.fromkeys(WRONG, 0)))
    # Each reminder sent: (lead id, version, which).
    reminded: Counter = field(default_factory=Counter)


class Row(NamedTuple):
    """A booking as the simulation picks it."""

    lead_id: int
    date: dt.date
    time: str
    sequence: int

    @property
    def start(self) -> dt.datetime:
        return slots.slot_start(self.date, self.time)


@dataclass
class Simulation:
    store: LeadStore
    rng: random.Random
    now: dt.datetime = START
    tally: Tally = field(default_factory=Tally)

    last_day: dt.date = field(default_factory=START.date)
    # Whether a booking may be pending (none once all are answered, until a move's).
    pending: bool = True

    def rows(self) -> list[Booking]:
        with Session(self.store.engine) as session:
            return list(session.exec(select(Booking)))

    def future(self, *states: BookingStatus) -> list[Row]:
        """The bookings of ``states`` whose meeting is still to come (a light query)."""
        query = sa.select(Booking.lead_id, Booking.date, Booking.time, Booking.sequence).where(
            col(Booking.state).in_(states), col(Booking.date) >= self.now.date()
        )
        with self.store.engine.connect() as connection:
            rows = [Row(*row) for row in connection.execute(query)]
        return [row for row in rows if row.start > self.now]

    def book_all(self) -> None:
        """``BOOKINGS`` bookings on free slots of the coming weeks (a fifth left free)."""
        day, open_slots = START.date() + dt.timedelta(days=1), []
        while len(open_slots) < BOOKINGS * 5 // 4:
            open_slots += [(day, time) for time in CALENDAR.open_slots(day, START)]
            day += dt.timedelta(days=1)
        store = plugged(self.store.engine)
        for number, (date, time) in enumerate(sorted(self.rng.sample(open_slots, BOOKINGS))):
            fields = BOOKING_FIELDS | {
                "date": str(date),
                "time": time,
                "email": f"v{number}@example.com",
            }
            language = self.rng.choice(["es", "ca"])
            add_held_booking(store, fields, language=language)
        self.tally.did["booked"] = BOOKINGS
        self.last_day = max(date for date, _ in open_slots)

    # --- What the owner and the visitors do ---------------------------------------------

    def pick(self, bookings: list[Row]) -> Row | None:
        """A booking, half the time one whose meeting is within two days (its reminders)."""
        soon = [b for b in bookings if b.start - self.now < dt.timedelta(days=2)]
        choice = soon if soon and self.rng.random() < 0.5 else bookings
        return self.rng.choice(choice) if choice else None

    def answer(self, booking: Row | Booking) -> None:
        to = BookingStatus.DECLINED if self.rng.random() < DECLINE else BookingStatus.CONFIRMED
        decision, _ = slots.decide(self.store.engine, booking.lead_id, to)
        self.tally.did[f"{to} ({decision})"] += 1

    def move(self, booking: Row | Booking) -> None:
        """To a slot of the next three weeks (not after the simulation's last day)."""
        date = self.now.date() + dt.timedelta(days=self.rng.randint(0, 21))
        date = min(date, self.last_day)
        time = self.rng.choice(CALENDAR.open_slots(date, self.now) or ("09:00",))
        reconfirm = self.rng.random() < 0.2
        outcome, _ = reschedule.move(
            self.store.engine,
            booking.lead_id,
            date,
            time,
            version=booking.sequence,
            now=self.now,
            rules=reschedule.MoveRules(notice=NOTICE, max_moves=3, reconfirm=reconfirm),
            calendar=CALENDAR,
        )
        self.tally.did[f"moved ({outcome})"] += 1
        self.pending |= reconfirm  # A moved confirmed booking may be pending again.

    def cancel(self, booking: Row | Booking) -> None:
        decision, _ = slots.decide(self.store.engine, booking.lead_id, BookingStatus.CANCELLED)
        self.tally.did[f"cancelled ({decision})"] += 1

    def change(self, booking: Booking) -> None:
        """A visitor moves or cancels ``booking``, or the owner answers it if pending."""
        if booking.state == BookingStatus.PENDING and self.rng.random() < 0.5:
            self.answer(booking)
        elif self.rng.random() < 0.7:
            self.move(booking)
        else:
            self.cancel(booking)

    def hour(self) -> None:
        """What happens in an hour before the round."""
        pending = self.future(BookingStatus.PENDING) if self.pending else []
        self.pending = bool(pending)
        for booking in pending:
            if self.rng.random() < ANSWER:
                self.answer(booking)
        for chance, act in ((MOVE, self.move), (CANCEL, self.cancel)):
            if self.rng.random() < chance:
                active = self.future(BookingStatus.PENDING, BookingStatus.CONFIRMED)
                if booking := self.pick(active):
                    act(booking)

    # --- The reminders rounds ------------------------------------------------------------

    async def round(self) -> None:
        sent: list[tuple[str, dict[str, str]]] = []
        desk = desk_for(self.store, 14, sent)
        if self.rng.random() < SLOW:
            found = reminders.due(self.store.engine, self.now, PLAN)
            for item in found:
                if self.rng.random() < CHANGED_MEANWHILE:
                    self.tally.did["changed between found and claimed"] += 1
                    self.change(slots.get(self.store.engine, item.booking.lead_id))
            with mock.patch.object(reminders, "due", lambda *_: found):
                await reminders.send_due(desk, self.now, PLAN)
        else:
            await reminders.send_due(desk, self.now, PLAN)
        self.judge(sent)

    def judge(self, sent: list[tuple[str, dict[str, str]]]) -> None:
        """Each reminder just sent, against its booking as it is now (nothing else ran)."""
        for _template, params in sent:
            verified = LinkSigner(SECRET).verify(params["cancel_url"].split("?t=")[1], 10**10)
            assert isinstance(verified, VerifiedLink)
            booking = slots.get(self.store.engine, verified.lead_id)
            assert booking is not None
            # The first is due 24 h before (sent until 12 h before), the second 2 h before.
            before = slots.slot_start(booking.date, booking.time) - self.now
            which = "first" if before > dt.timedelta(hours=6) else "second"
            self.tally.sent[f"reminders sent: {which}"] += 1
            self.tally.reminded[(booking.lead_id, booking.sequence, which)] += 1
            if booking.state != BookingStatus.CONFIRMED:
                self.tally.wrong[NOT_CONFIRMED] += 1
            lead = self.store.get(booking.lead_id)
            assert lead is not None
            with locale.active(lead.language):  # The e-mail's words: the visitor's language.
                when = (date_es(booking.date.isoformat()), booking.time)
            if (params["date_es"], params["time"]) != when:
                self.tally.wrong[OLD_TIME] += 1

    async def run(self) -> None:
        """Book, then hour by hour until the last day: what people do, then a round."""
        self.book_all()
        last = dt.datetime.combine(self.last_day + dt.timedelta(days=1), dt.time(), dt.UTC)
        while self.now < last:
            self.hour()
            if self.now.astimezone(MADRID).hour in DAYTIME:
                await self.round()
            self.now += ROUND
            slots.utcnow.now = self.now  # type: ignore[attr-defined]
        self.final_check()

    def final_check(self) -> None:
        """Twice for one version, and missed: a confirmed meeting whose visitor was last
        e-mailed (confirmed, moved) before a reminder's time got none for its final time."""
        self.tally.wrong[TWICE] = sum(n - 1 for n in self.tally.reminded.values() if n > 1)
        for booking in self.rows():
            self.tally.did[f"finally {booking.state}"] += 1
            if booking.state != BookingStatus.CONFIRMED:
                continue
            told = max(m for m in (booking.decided_at, booking.moved_at) if m is not None)
            told = told.replace(tzinfo=dt.UTC) if told.tzinfo is None else told
            for which, hours in (("first", 24), ("second", 2)):
                due = starts_at(booking) - dt.timedelta(hours=hours)
                if (
                    told < due
                    and not self.tally.reminded[(booking.lead_id, booking.sequence, which)]
                ):
                    self.tally.wrong[f"missed ({which})"] += 1


class SimulatedNow:
    """``slots.utcnow`` and ``reschedule.utcnow`` during the simulation: when the owner answered, the visitor moved."""

    now = START

    def __call__(self) -> dt.datetime:
        return self.now


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_no_reminder_for_moved_cancelled_or_declined_bookings_among_500(
    store: LeadStore, monkeypatch
) -> None:
    simulated = SimulatedNow()
    monkeypatch.setattr(slots, "utcnow", simulated)
    monkeypatch.setattr(reschedule, "utcnow", simulated)
    # Thousands of small transactions: SQLite without waiting for the disk (a test's file).
    store.engine.dispose()
    sa.event.listen(
        store.engine, "connect", lambda connection, _: connection.execute("PRAGMA synchronous=OFF")
    )
    simulation = Simulation(store, random.Random(SEED))
    run(simulation.run())
    tally = simulation.tally
    print(f"\nReminders simulation (seed {SEED}, {BOOKINGS} bookings, a round every hour):")
    for counter in (tally.did, tally.sent, tally.wrong):
        for name, count in sorted(counter.items()):
            print(f"  {name:48} {count:6}")
    assert sum(tally.wrong.values()) == 0, tally.wrong
    # The simulation did meet what it is about.
    assert tally.sent["reminders sent: first"] > 100 and tally.sent["reminders sent: second"] > 100
    assert tally.did["changed between found and claimed"] > 20
    assert tally.did[f"finally {BookingStatus.CANCELLED}"] > 20
    assert tally.did[f"finally {BookingStatus.DECLINED}"] > 10
    assert tally.did[f"moved ({reschedule.Moved.DONE})"] > 50

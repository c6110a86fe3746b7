"""The owner's busy times on a real database (SQLite and PostgreSQL): left out of the
form's free slots, refused by the server in the visitor's language like a taken slot, and
a booking drained from the spool for a busy slot still stored (never a lost lead)."""

import dataclasses
import datetime as dt

from agency_site import paths
from agency_site.bookings import availability, slots
from agency_site.bookings.busy_times import BusyTimes, Interval, slot_start
from agency_site.bookings.pages import create_app
from agency_site.content.bookings import COPY
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result
from agency_site.leads.spool_drain import SpoolDrain
from agency_site.leads.store import LeadStore
from agency_site.locale import active
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_booking_pages import DAY, Client, desk_for
from tests.bookings.test_bookings import MONDAY, NOW, book
from tests.lead_store import BOOKING_FIELDS, bookings_of
from tests.leads.test_intake import booking_form, make_intake, submit


def busy_at(day: dt.date, *times: str) -> BusyTimes:
    """The owner busy for the consultation at each of ``times`` on ``day``."""
    return BusyTimes(
        tuple(
            Interval(slot_start(day, time), slot_start(day, time) + dt.timedelta(minutes=60))
            for time in times
        )
    )


def test_busy_slots_are_neither_free_nor_offered(store: LeadStore) -> None:
    book(store, DAY, "09:00")
    desk = dataclasses.replace(desk_for(store, 14), busy=lambda: busy_at(DAY, "10:00", "16:00"))
    answer = Client(create_app(lambda: desk)).get(paths.FREE_SLOTS + f"?date={DAY}").json()
    # The form hides "taken": held and busy alike, without saying which is which.
    assert answer["taken"] == ["09:00", "10:00", "16:00"] and not answer["full"]
    assert answer["free"] == ["11:00", "12:00", "15:00", "17:00", "18:00"]


def test_a_booking_for_a_busy_slot_is_refused_with_the_nearest_free_ones(
    store: LeadStore,
) -> None:
    form = booking_form(time="10:00")
    day = dt.date.fromisoformat(form["date"])
    bookings_of(store).busy = lambda: busy_at(day, "10:00", "11:00")
    intake = make_intake(store, None)
    refused = submit(intake, LeadKind.BOOKING, form)
    assert refused.result is Result.INVALID and list(refused.errors) == ["time"]
    message = refused.errors["time"]
    assert message.startswith(COPY.slots.busy.split("{slots}")[0])
    assert "09:00 del" in message and "12:00 del" in message and "11:00 del" not in message
    assert store.all() == []  # Refused before it is stored.
    assert submit(intake, LeadKind.BOOKING, booking_form(time="12:00")).result is Result.QUEUED


def test_a_busy_slot_is_refused_in_the_visitor_s_language(store: LeadStore) -> None:
    form = booking_form(time="15:00", language="ca")
    bookings_of(store).busy = lambda: busy_at(dt.date.fromisoformat(form["date"]), "15:00")
    refused = submit(make_intake(store, None), LeadKind.BOOKING, form)
    with active("ca"):
        busy = COPY.slots.busy.split("{slots}")[0]
    assert refused.result is Result.INVALID and refused.errors["time"].startswith(busy)


def test_the_nearest_free_slots_skip_busy_ones(store: LeadStore) -> None:
    busy = busy_at(MONDAY, "12:00", "15:00")
    nearest = availability.nearest_free(
        store.engine, MONDAY, "10:00", NOW, WorkingCalendar(), 0, 4, busy
    )
    assert nearest == [(MONDAY, slot) for slot in ("10:00", "09:00", "11:00", "16:00")]


def test_a_drained_booking_for_a_busy_slot_is_stored_without_it_and_the_agency_told(
    store: LeadStore, tmp_path
) -> None:
    """The visitor was told "received" while the database was down: stored all the same,
    holding no slot (``slot_lost``), as when its slot was taken meanwhile."""
    from agency_site.bookings.mails import agency_params
    from agency_site.leads.spool import Spool, SpooledLead
    from tests.leads.test_durable import intake_on

    bookings_of(store).busy = lambda: busy_at(MONDAY, "10:00")
    intake = intake_on(store, Spool(tmp_path / "spool", "w1"))
    fields = BOOKING_FIELDS | {"date": str(MONDAY), "time": "10:00"}
    spooled = SpooledLead("drained-busy-slot-1", LeadKind.BOOKING, fields, dt.datetime.now(dt.UTC))
    assert SpoolDrain.of(intake).store_spooled(spooled)
    lead = store.by_key("drained-busy-slot-1")
    booking = slots.get(store.engine, lead.id)
    assert booking.slot_lost and booking.active_slot is None
    note = agency_params(store.engine, None, lead.id)["slot_note"]
    assert note.startswith(COPY.slot_lost.split("(")[0])

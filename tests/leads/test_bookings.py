"""Bookings on a real database (SQLite and PostgreSQL): one active booking per slot, even
for simultaneous requests; state changes once; single-use links; the calendar file."""

import datetime as dt
import threading
from functools import partial
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import Session

from agency_site.bookings import slots
from agency_site.bookings.calendar_file import Appointment, google_link, ics, outlook_link
from agency_site.bookings.links import Action, LinkProblem, LinkSigner
from agency_site.bookings.models import BookingState
from agency_site.forms.kinds import LeadKind
from agency_site.leads.store import LeadStore, Slot
from agency_site.working_calendar import WorkingCalendar
from tests.leads.conftest import BOOKING_FIELDS, LEASE, new_engine
from tests.run_async import in_own_thread

MONDAY = dt.date(2026, 12, 14)
NOW = dt.datetime(2026, 12, 10, 9, 0, tzinfo=dt.UTC)
SECRET = "s" * 40


def book(store: LeadStore, date: dt.date = MONDAY, time: str = "10:00", limit: int = 0) -> int:
    """Store a booking lead holding its slot, as the intake does; its lead id."""
    fields = BOOKING_FIELDS | {"date": str(date), "time": time}
    slot = Slot(date, time, limit)
    return store.add(LeadKind.BOOKING, fields, claim_token=None, lease=LEASE, slot=slot)


def test_a_slot_is_held_once_and_freed_by_a_decline(store: LeadStore) -> None:
    first = book(store)
    with pytest.raises(slots.SlotTaken):
        book(store)
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: {"10:00"}}
    assert slots.decide(store.engine, first, BookingState.DECLINED)[0] is slots.Decision.DONE
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: set()}
    book(store)  # Free again.


def test_a_refused_slot_stores_no_lead(store: LeadStore) -> None:
    book(store)
    with pytest.raises(slots.SlotTaken):
        book(store)
    assert len(store.all()) == 1


def test_two_simultaneous_requests_for_one_slot_give_one_booking(db_url: str) -> None:
    engines = [new_engine(db_url) for _ in range(2)]
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def request(engine) -> None:
        start.wait()
        try:
            book(LeadStore(engine))
            outcomes.append("booked")
        except slots.SlotTaken:
            outcomes.append("taken")

    threads = [threading.Thread(target=request, args=(engine,)) for engine in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["booked", "taken"]
    with Session(engines[0]) as session:
        assert slots.active_on(session, MONDAY) == 1
    for engine in engines:
        engine.dispose()


def test_the_daily_limit(store: LeadStore) -> None:
    book(store, time="09:00", limit=2)
    book(store, time="10:00", limit=2)
    with pytest.raises(slots.DayFull):
        book(store, time="11:00", limit=2)
    calendar = WorkingCalendar()
    assert slots.availability(store.engine, MONDAY, NOW, calendar, 2) == slots.Availability(
        (), ("09:00", "10:00"), True
    )
    free = slots.availability(store.engine, MONDAY, NOW, calendar, 0)
    assert "10:00" not in free.free and "11:00" in free.free and not free.full


def test_the_nearest_free_slots_start_beside_the_asked_one(store: LeadStore) -> None:
    for time in ("10:00", "11:00", "09:00"):
        book(store, time=time)
    nearest = slots.nearest_free(store.engine, MONDAY, "10:00", NOW, WorkingCalendar(), 0)
    assert nearest == [(MONDAY, "12:00"), (MONDAY, "15:00"), (MONDAY, "16:00")]
    tuesday_only = slots.nearest_free(store.engine, MONDAY, "10:00", NOW, WorkingCalendar(), 3)
    assert tuesday_only == [
        (MONDAY + dt.timedelta(days=1), slot) for slot in ("09:00", "10:00", "11:00")
    ]


def test_a_booking_changes_state_once_and_a_link_is_single_use(store: LeadStore) -> None:
    lead_id = book(store)
    signer = LinkSigner(SECRET)
    link = signer.verify(signer.token(Action.CONFIRM, lead_id), 3600)
    assert not isinstance(link, LinkProblem)
    decision, booking = slots.decide(store.engine, lead_id, BookingState.CONFIRMED, link.digest)
    assert decision is slots.Decision.DONE and booking and booking.state == BookingState.CONFIRMED
    again = slots.decide(store.engine, lead_id, BookingState.CONFIRMED, link.digest)
    assert again[0] is slots.Decision.REPLAYED
    assert (
        slots.decide(store.engine, lead_id, BookingState.CONFIRMED)[0] is slots.Decision.NOT_ALLOWED
    )
    cancelled = slots.decide(store.engine, lead_id, BookingState.CANCELLED)
    assert cancelled[0] is slots.Decision.DONE and cancelled[1].active_slot is None
    assert slots.decide(store.engine, 999999, BookingState.CANCELLED)[0] is slots.Decision.UNKNOWN


def test_an_answer_is_due_one_working_day_later() -> None:
    friday = dt.datetime(2026, 12, 4, 16, 30, tzinfo=dt.UTC)  # 17:30 in Madrid.
    monday = dt.datetime(2026, 12, 7, 17, 30, tzinfo=ZoneInfo("Europe/Madrid"))
    assert slots.answer_due(friday, WorkingCalendar()) == monday
    before_holiday = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)  # Tue 8 is a holiday.
    assert slots.answer_due(before_holiday, WorkingCalendar()).date() == dt.date(2026, 12, 9)


def test_unanswered_bookings_are_reported_once(store: LeadStore) -> None:
    lead_id = book(store)
    assert slots.unanswered(store.engine, dt.datetime.now(dt.UTC)) == []
    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=5)
    assert [b.lead_id for b in slots.unanswered(store.engine, later)] == [lead_id]
    slots.mark_reminded(store.engine, [lead_id])
    assert slots.unanswered(store.engine, later) == []


def test_links_are_signed_and_expire() -> None:
    signer = LinkSigner(SECRET)
    token = signer.token(Action.DECLINE, 42)
    link = signer.verify(token, 3600)
    assert not isinstance(link, LinkProblem) and (link.action, link.lead_id) == (Action.DECLINE, 42)
    assert signer.verify(token, -1) is LinkProblem.EXPIRED
    assert LinkSigner("t" * 40).verify(token, 3600) is LinkProblem.TAMPERED
    other = signer.token(Action.DECLINE, 43)
    swapped = other.rpartition(".")[0] + "." + token.rpartition(".")[2]  # 43 with 42's signature.
    assert signer.verify(swapped, 3600) is LinkProblem.TAMPERED
    assert signer.verify("", 3600) is LinkProblem.TAMPERED
    assert signer.verify("x" * 600, 3600) is LinkProblem.TAMPERED
    assert signer.token(Action.CANCEL, 42) != signer.token(Action.CANCEL, 42)  # Own nonce each.
    with pytest.raises(ValueError):
        LinkSigner("short")


def test_the_calendar_file_has_the_appointment_in_madrid_time() -> None:
    appointment = Appointment(
        uid="booking-7@agencia.test",
        date=dt.date(2026, 7, 6),  # Summer time: UTC+2.
        time="16:00",
        title="Consulta con la agencia",
        description="Consulta gratuita",
        location="Agramunt",
        organizer_email="hola@agencia.test",
    )
    text = ics(appointment).decode()
    assert "DTSTART;TZID=Europe/Madrid:20260706T160000" in text
    assert "DTEND;TZID=Europe/Madrid:20260706T170000" in text
    assert "BEGIN:VTIMEZONE" in text and "TZID:Europe/Madrid" in text
    assert "UID:booking-7@agencia.test" in text and "STATUS:CONFIRMED" in text
    assert "STATUS:CANCELLED" in ics(appointment, cancelled=True).decode()
    assert "dates=20260706T140000Z%2F20260706T150000Z" in google_link(appointment)
    assert "startdt=2026-07-06T16%3A00%3A00%2B02%3A00" in outlook_link(appointment)


# --- Through the intake: what the visitor is told ------------------------------------------


def test_a_taken_slot_is_refused_with_the_nearest_free_ones(store: LeadStore) -> None:
    from agency_site.content.bookings import COPY
    from agency_site.forms.outcome import Result
    from tests.leads.test_intake import booking_form, make_intake, submit

    intake = make_intake(store, None)
    first = submit(intake, LeadKind.BOOKING, booking_form(time="10:00", email="ana@example.com"))
    assert first.result is Result.QUEUED
    second = submit(intake, LeadKind.BOOKING, booking_form(time="10:00", email="luis@example.com"))
    assert second.result is Result.INVALID
    message = second.errors["time"]
    assert message.startswith(COPY.slots.taken.split("{slots}")[0])
    assert "09:00 del" in message and "11:00 del" in message  # The closest, either side.
    assert [lead.fields["email"] for lead in store.all()] == ["ana@example.com"]


def test_the_daily_limit_is_told_next_to_the_date(store: LeadStore) -> None:
    from agency_site.content.bookings import COPY
    from agency_site.forms.outcome import Result
    from tests.leads.test_intake import booking_form, make_intake, submit

    intake = make_intake(store, None)
    intake.daily_limit = 1
    assert submit(intake, LeadKind.BOOKING, booking_form(time="10:00")).result is Result.QUEUED
    full = submit(intake, LeadKind.BOOKING, booking_form(time="12:00", email="b@example.com"))
    assert full.result is Result.INVALID and full.errors == {"date": COPY.slots.day_full}


def test_a_spooled_booking_whose_slot_was_taken_meanwhile_is_still_stored(
    store: LeadStore, tmp_path
) -> None:
    from agency_site.leads.spool import Spool, SpooledLead
    from tests.leads.test_durable import intake_on

    lead_id = book(store, MONDAY, "10:00")
    intake = intake_on(store, Spool(tmp_path / "spool", "w1"))
    fields = BOOKING_FIELDS | {"date": str(MONDAY), "time": "10:00", "email": "luis@example.com"}
    spooled = SpooledLead("k" * 20, LeadKind.BOOKING, fields, dt.datetime.now(dt.UTC), None)
    assert intake.store_spooled(spooled)
    assert len(store.all()) == 2  # Never lost: the agency sees both requests.
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: {"10:00"}}
    assert slots.get(store.engine, lead_id).active_slot is not None


def test_erasing_a_person_frees_their_slot(store: LeadStore) -> None:
    book(store, MONDAY, "10:00")
    assert store.erase_email(BOOKING_FIELDS["email"]) == 1
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: set()}
    book(store, MONDAY, "10:00")


def test_the_agency_email_carries_working_confirm_and_decline_links(
    store: LeadStore, emailjs
) -> None:
    from functools import partial

    from agency_site.bookings.mails import agency_links
    from tests.leads.conftest import accept_all, sent_payloads
    from tests.leads.test_intake import booking_form, make_intake, submit

    accept_all(emailjs)
    intake = make_intake(store, emailjs)
    intake.delivery.booking_links = partial(agency_links, "https://api.test", LinkSigner(SECRET))
    submit(intake, LeadKind.BOOKING, booking_form(time="15:00"))
    [payload] = sent_payloads(emailjs)
    [lead] = store.all()
    for action in (Action.CONFIRM, Action.DECLINE):
        url = payload["template_params"][f"{action}_url"]
        assert url.startswith(f"https://api.test/_site/bookings/{action}?t=")
        link = LinkSigner(SECRET).verify(url.split("?t=")[1], 3600)
        assert not isinstance(link, LinkProblem) and (link.action, link.lead_id) == (
            action,
            lead.id,
        )


def test_the_operator_confirms_and_cancels_from_the_command_line(store: LeadStore) -> None:
    import io

    from agency_site.leads import cli
    from tests.leads.test_booking_pages import desk_for

    lead_id = book(store, MONDAY, "09:00")
    sent: list = []
    desk = desk_for(store, 14, sent)
    out = io.StringIO()
    delivery = type("D", (), {"store": store})()

    def command(*argv: str) -> int:  # In a thread of its own: asyncio.run inside.
        return in_own_thread(partial(cli.run, list(argv), delivery, out, desk=desk))

    assert command("confirm", str(lead_id)) == 0
    assert "confirmed; the visitor was e-mailed" in out.getvalue()
    assert sent[-1][1]["ics_url"]
    assert command("confirm", str(lead_id)) == 1
    assert command("cancel", str(lead_id)) == 0
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: set()}
    assert command("decline", "999999") == 1
    assert "No booking 999999." in out.getvalue()

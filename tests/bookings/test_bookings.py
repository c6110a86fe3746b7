"""Bookings on a real database (SQLite and PostgreSQL): one active booking per slot, even
for simultaneous requests; state changes once; single-use links; the calendar file."""

import datetime as dt
import ipaddress
import threading
from functools import partial
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from sqlmodel import Session

from agency_site.bookings import availability, slots
from agency_site.bookings.calendar_file import Appointment, google_link, ics, outlook_link
from agency_site.bookings.caps import PendingCaps
from agency_site.bookings.links import LinkAction, LinkProblem, LinkSigner
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.forms.kinds import LeadKind
from agency_site.leads.plugins import Refused
from agency_site.leads.ratelimit import network_digest
from agency_site.leads.spool_drain import SpoolDrain
from agency_site.leads.store import LeadStore
from agency_site.working_calendar import WorkingCalendar
from tests.lead_store import BOOKING_FIELDS, add_held_booking, bookings_of, new_engine, plugged
from tests.run_async import in_own_thread, run

MONDAY = dt.date(2026, 12, 14)
NOW = dt.datetime(2026, 12, 10, 9, 0, tzinfo=dt.UTC)
SECRET = "s" * 40


def book(store: LeadStore, date: dt.date = MONDAY, time: str = "10:00", limit: int = 0) -> int:
    """Store a booking lead holding its slot, as the intake does (``limit``: the day's);
    its lead id."""
    fields = BOOKING_FIELDS | {"date": str(date), "time": time}
    store = plugged(store.engine, daily_limit=limit)
    return add_held_booking(store, fields)


def test_a_slot_is_held_once_and_freed_by_a_decline(store: LeadStore) -> None:
    first = book(store)
    with pytest.raises(Refused, match="time"):
        book(store)
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: {"10:00"}}
    assert slots.decide(store.engine, first, BookingStatus.DECLINED)[0] is slots.Decision.DONE
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: set()}
    book(store)  # Free again.


def test_a_refused_slot_stores_no_lead(store: LeadStore) -> None:
    book(store)
    with pytest.raises(Refused, match="time"):
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
        except Refused as refused:
            outcomes.append("taken" if "time" in refused.errors else "?")

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
    with pytest.raises(Refused, match="date"):
        book(store, time="11:00", limit=2)
    calendar = WorkingCalendar()
    assert availability.availability(
        store.engine, MONDAY, NOW, calendar, 2
    ) == availability.Availability((), ("09:00", "10:00"), True)
    free = availability.availability(store.engine, MONDAY, NOW, calendar, 0)
    assert "10:00" not in free.free and "11:00" in free.free and not free.full


def test_the_nearest_free_slots_start_beside_the_asked_one(store: LeadStore) -> None:
    for time in ("10:00", "11:00", "09:00"):
        book(store, time=time)
    nearest = availability.nearest_free(store.engine, MONDAY, "10:00", NOW, WorkingCalendar(), 0)
    assert nearest == [(MONDAY, "12:00"), (MONDAY, "15:00"), (MONDAY, "16:00")]
    tuesday_only = availability.nearest_free(
        store.engine, MONDAY, "10:00", NOW, WorkingCalendar(), 3
    )
    assert tuesday_only == [
        (MONDAY + dt.timedelta(days=1), slot) for slot in ("09:00", "10:00", "11:00")
    ]


def test_a_booking_changes_state_once_and_a_link_is_single_use(store: LeadStore) -> None:
    lead_id = book(store)
    signer = LinkSigner(SECRET)
    link = signer.verify(signer.token(LinkAction.CONFIRM, lead_id, "k"), 3600)
    assert not isinstance(link, LinkProblem)
    decision, booking = slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED, link.digest)
    assert decision is slots.Decision.DONE and booking and booking.state == BookingStatus.CONFIRMED
    again = slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED, link.digest)
    assert again[0] is slots.Decision.REPLAYED
    assert (
        slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)[0]
        is slots.Decision.NOT_ALLOWED
    )
    cancelled = slots.decide(store.engine, lead_id, BookingStatus.CANCELLED)
    assert cancelled[0] is slots.Decision.DONE and cancelled[1].active_slot is None
    assert slots.decide(store.engine, 999999, BookingStatus.CANCELLED)[0] is slots.Decision.UNKNOWN


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
    token = signer.token(LinkAction.DECLINE, 42, "k")
    link = signer.verify(token, 3600)
    assert not isinstance(link, LinkProblem) and (link.action, link.lead_id) == (
        LinkAction.DECLINE,
        42,
    )
    assert signer.verify(token, -1) is LinkProblem.EXPIRED
    assert LinkSigner("t" * 40).verify(token, 3600) is LinkProblem.TAMPERED
    other = signer.token(LinkAction.DECLINE, 43, "k")
    swapped = other.rpartition(".")[0] + "." + token.rpartition(".")[2]  # 43 with 42's signature.
    assert signer.verify(swapped, 3600) is LinkProblem.TAMPERED
    assert signer.verify("", 3600) is LinkProblem.TAMPERED
    assert signer.verify("x" * 600, 3600) is LinkProblem.TAMPERED
    assert signer.token(LinkAction.CANCEL, 42, "k") != signer.token(
        LinkAction.CANCEL, 42, "k"
    )  # Own nonce each.
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


def test_a_taken_slot_is_refused_in_the_visitors_language(store: LeadStore) -> None:
    """The refusal is made in the store's transaction, on a database thread: in the
    language of the lead's page all the same."""
    from agency_site.content.bookings import COPY
    from agency_site.forms.outcome import Result
    from agency_site.locale import active
    from tests.leads.test_intake import booking_form, make_intake, submit

    intake = make_intake(store, None)
    submit(intake, LeadKind.BOOKING, booking_form(time="10:00", email="ana@example.com"))
    again = booking_form(time="10:00", email="luis@example.com", language="ca")
    second = submit(intake, LeadKind.BOOKING, again)
    with active("ca"):
        taken = COPY.slots.taken.split("{slots}")[0]
    assert second.result is Result.INVALID and second.errors["time"].startswith(taken)


def test_the_daily_limit_is_told_next_to_the_date(store: LeadStore) -> None:
    from agency_site.content.bookings import COPY
    from agency_site.forms.outcome import Result
    from tests.leads.test_intake import booking_form, make_intake, submit

    intake = make_intake(store, None)
    bookings_of(store).daily_limit = 1
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
    assert SpoolDrain.of(intake).store_spooled(spooled)
    assert len(store.all()) == 2  # Never lost: the agency sees both requests.
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: {"10:00"}}
    assert slots.get(store.engine, lead_id).active_slot is not None


def test_the_bookings_plug_in_by_the_leads_plugins_setting(monkeypatch, tmp_path) -> None:
    """LEADS_PLUGINS names the bookings by default, configured from BOOKING_*; a site
    may name other plugins (or none) without a change to the lead core."""
    from agency_site.bookings.plugin import BookingsPlugin
    from agency_site.leads import plugins
    from agency_site.settings import get_settings

    monkeypatch.setenv("BOOKING_DAILY_LIMIT", "4")
    monkeypatch.setenv("DEPLOY_DATA_DIR", str(tmp_path))  # Its generated link secret.
    get_settings.cache_clear()
    try:
        [loaded] = [p for p in plugins.load(get_settings()) if isinstance(p, BookingsPlugin)]
        assert isinstance(loaded, BookingsPlugin) and loaded.daily_limit == 4
        monkeypatch.setenv("LEADS_PLUGINS", " ")
        get_settings.cache_clear()
        assert list(plugins.load(get_settings())) == []
    finally:
        get_settings.cache_clear()


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
    from tests.emailjs_fake import accept_sends, sent_payloads
    from tests.leads.test_intake import booking_form, make_intake, submit

    accept_sends(emailjs)
    intake = make_intake(store, emailjs)
    bookings_of(store).agency_email = partial(agency_links, "https://api.test", LinkSigner(SECRET))
    submit(intake, LeadKind.BOOKING, booking_form(time="15:00"))
    [payload] = sent_payloads(emailjs)
    [lead] = store.all()
    for action in (LinkAction.CONFIRM, LinkAction.DECLINE):
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
    from tests.bookings.test_booking_pages import desk_for

    lead_id = book(store, MONDAY, "09:00")
    sent: list = []
    desk = desk_for(store, 14, sent)
    bookings_of(store).desk = lambda: desk
    out = io.StringIO()
    delivery = type("D", (), {"store": store})()

    def command(*argv: str) -> int:  # In a thread of its own: asyncio.run inside.
        return in_own_thread(partial(cli.run, list(argv), delivery, out))

    assert command("confirm", str(lead_id)) == 0
    assert "confirmed; the visitor was e-mailed" in out.getvalue()
    assert sent[-1][1]["ics_url"]
    assert command("confirm", str(lead_id)) == 1
    assert command("cancel", str(lead_id)) == 0
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: set()}
    assert command("decline", "999999") == 1
    assert "No booking 999999." in out.getvalue()


# --- A booking drained after its slot was taken: marked, told, confirmed only if free -------


def drained_over(
    store: LeadStore, tmp_path, date: dt.date = MONDAY, time: str = "10:00", limit: int = 0
) -> int:
    """A booking for ``date`` ``time`` spooled during an outage and drained after another
    took the slot (or filled the day); its lead id."""
    from agency_site.leads.spool import Spool, SpooledLead
    from tests.leads.test_durable import intake_on

    intake = intake_on(store, Spool(tmp_path / "spool", "w1"))
    bookings_of(store).daily_limit = limit
    fields = BOOKING_FIELDS | {"date": str(date), "time": time, "email": "luis@example.com"}
    key = f"drained-{date}-{time}".replace(":", "")
    assert SpoolDrain.of(intake).store_spooled(
        SpooledLead(key, LeadKind.BOOKING, fields, dt.datetime.now(dt.UTC))
    )
    return store.by_key(key).id


def test_a_drained_booking_without_its_slot_is_marked_and_the_agency_email_says_so(
    store: LeadStore, emailjs, tmp_path
) -> None:
    from agency_site.bookings.mails import agency_params
    from agency_site.content.bookings import COPY
    from tests.emailjs_fake import accept_sends, make_client, sent_payloads
    from tests.lead_store import make_delivery

    first = book(store, MONDAY, "10:00")
    drained = drained_over(store, tmp_path)
    assert slots.get(store.engine, drained).slot_lost
    assert not slots.get(store.engine, first).slot_lost
    accept_sends(emailjs)
    delivery = make_delivery(store, make_client(emailjs))
    bookings_of(store).agency_email = lambda engine, lead_id: agency_params(engine, None, lead_id)
    assert run(delivery.retry_due()) == 2
    by_email = {
        p["template_params"]["from_email"]: p["template_params"] for p in sent_payloads(emailjs)
    }
    told, held = by_email["luis@example.com"], by_email["ana@example.com"]
    warning = COPY.slot_lost.split("(")[0]
    assert told["slot_note"].startswith(warning) and told["message"].startswith(warning)
    assert "10:00" in told["slot_note"] and told["confirm_url"] == ""
    assert held["slot_note"] == "" and not held["message"].startswith(warning)


def test_a_booking_without_its_slot_is_confirmed_only_once_the_slot_is_free(
    store: LeadStore, tmp_path
) -> None:
    first = book(store, MONDAY, "10:00")
    drained = drained_over(store, tmp_path)
    signer = LinkSigner(SECRET)
    link = signer.verify(
        signer.token(LinkAction.CONFIRM, drained, slots.get(store.engine, drained).link_key), 3600
    )
    refused = slots.decide(store.engine, drained, BookingStatus.CONFIRMED, link.digest)
    assert refused[0] is slots.Decision.SLOT_TAKEN
    assert refused[1].state == BookingStatus.PENDING and refused[1].active_slot is None
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: {"10:00"}}
    slots.decide(store.engine, first, BookingStatus.DECLINED)
    # The same link works now: the refusal spent nothing.
    done = slots.decide(store.engine, drained, BookingStatus.CONFIRMED, link.digest)
    assert done[0] is slots.Decision.DONE and done[1].active_slot == "2026-12-14T10:00"
    assert not done[1].slot_lost
    with pytest.raises(Refused, match="time"):
        book(store, MONDAY, "10:00")


def test_a_booking_without_its_slot_is_not_confirmed_on_a_full_day(
    store: LeadStore, tmp_path
) -> None:
    book(store, MONDAY, "09:00", limit=1)
    drained = drained_over(store, tmp_path, MONDAY, "11:00", limit=1)  # Free slot, full day.
    assert slots.get(store.engine, drained).slot_lost
    assert slots.decide(store.engine, drained, BookingStatus.CONFIRMED, daily_limit=1)[0] is (
        slots.Decision.SLOT_TAKEN
    )
    assert slots.decide(store.engine, drained, BookingStatus.CONFIRMED, daily_limit=2)[0] is (
        slots.Decision.DONE
    )
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: {"09:00", "11:00"}}


def test_the_confirm_page_of_a_booking_without_its_slot_warns_and_refuses(
    store: LeadStore, tmp_path
) -> None:
    from agency_site import paths
    from agency_site.bookings.pages import create_app
    from agency_site.content.bookings import COPY
    from tests.bookings.test_booking_pages import Client, desk_for, url

    book(store, MONDAY, "10:00")
    drained = drained_over(store, tmp_path)
    sent: list = []
    client = Client(create_app(lambda: desk_for(store, 14, sent)))
    shown = client.get(url(store, LinkAction.CONFIRM, drained))
    assert shown.status_code == 200 and "NO tiene la hora reservada" in shown.text
    token = url(store, LinkAction.CONFIRM, drained).split("?t=")[1]
    answer = client.post(paths.booking_link("confirm"), data={"t": token})
    assert answer.status_code == 409 and COPY.problems.slot_taken in answer.text
    assert sent == [] and slots.get(store.engine, drained).state == BookingStatus.PENDING


# --- The daily limit holds under simultaneous requests ---------------------------------------


def race_for_one_day(engines: list, day: dt.date, times: tuple[str, ...], limit: int) -> list[str]:
    """Each engine requests one of ``times`` of ``day`` at the same moment; the outcomes."""
    start = threading.Barrier(len(engines))
    outcomes: list[str] = []

    def request(engine, time: str) -> None:
        start.wait()
        try:
            book(LeadStore(engine), day, time, limit=limit)
            outcomes.append("booked")
        except Refused as refused:
            outcomes.append("full" if "date" in refused.errors else "?")

    threads = [
        threading.Thread(target=request, args=(engine, time))
        for engine, time in zip(engines, times, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return sorted(outcomes)


def test_the_daily_limit_holds_for_simultaneous_requests(db_url: str) -> None:
    """Eight requests at once for eight free slots of a day limited to two, on several
    days: never more than two bookings a day (count-then-insert raced on PostgreSQL)."""
    engines = [new_engine(db_url) for _ in range(8)]
    times = ("09:00", "10:00", "11:00", "12:00", "15:00", "16:00", "17:00", "18:00")
    for week in range(4):
        day = MONDAY + dt.timedelta(days=7 * week)
        assert race_for_one_day(engines, day, times, 2) == ["booked"] * 2 + ["full"] * 6
        with Session(engines[0]) as session:
            assert slots.active_on(session, day) == 2
    for engine in engines:
        engine.dispose()


# --- Caps on pending bookings, per address and per network -----------------------------------


def capped_intake(store: LeadStore, per_email: int = 2, per_network: int = 6):
    from tests.leads.test_intake import make_intake

    intake = make_intake(store, None, per_ip=100)
    bookings_of(store).caps = PendingCaps(per_email, per_network)
    return intake


@pytest.mark.parametrize("language", ["es", "ca"])
def test_an_address_holds_at_most_two_pending_bookings(store: LeadStore, language: str) -> None:
    from agency_site.content.bookings import COPY
    from agency_site.forms.outcome import Result
    from agency_site.locale import active
    from tests.leads.test_intake import booking_form, submit

    intake = capped_intake(store)
    for time in ("09:00", "10:00"):
        form = booking_form(
            time=time, language=language, idempotency_key=f"booking-key-{time[:2]}-{language}"
        )
        assert submit(intake, LeadKind.BOOKING, form).result is Result.QUEUED
    # The second one sent again (the websocket's answer was lost): its outcome, not a refusal.
    assert submit(intake, LeadKind.BOOKING, form).result is Result.QUEUED
    third = submit(intake, LeadKind.BOOKING, booking_form(time="11:00", language=language))
    with active(language):
        refusal = COPY.slots.too_many_email
    assert third.result is Result.INVALID and third.errors == {"email": refusal}
    assert "@" in refusal  # Says where to write instead.
    assert len(store.all()) == 2
    # Same address in other letter case: the same person.
    shout = booking_form(time="11:00", email="ANA@Example.com", language=language)
    assert submit(intake, LeadKind.BOOKING, shout).result is Result.INVALID
    # Answered: no longer pending, so the address may ask again.
    [first, _] = store.all()
    slots.decide(store.engine, first.id, BookingStatus.CONFIRMED)
    assert slots.get(store.engine, first.id).network is None  # Kept only while pending.
    again = submit(intake, LeadKind.BOOKING, booking_form(time="11:00", language=language))
    assert again.result is Result.QUEUED


def test_a_network_holds_at_most_six_pending_bookings(store: LeadStore) -> None:
    from agency_site.content.bookings import COPY
    from agency_site.forms.outcome import Result
    from tests.leads.test_intake import booking_form, submit

    intake = capped_intake(store)
    times = ("09:00", "10:00", "11:00", "12:00", "15:00", "16:00", "17:00")
    results = [
        submit(
            intake,
            LeadKind.BOOKING,
            booking_form(time=t, email=f"p{n}@example.com"),
            ip=f"203.0.113.{n + 1}",
        )
        for n, t in enumerate(times)
    ]
    assert [r.result for r in results] == [Result.QUEUED] * 6 + [Result.INVALID]
    assert results[-1].errors == {"date": COPY.slots.too_many_network}
    other_network = submit(
        intake,
        LeadKind.BOOKING,
        booking_form(time="17:00", email="q@example.com"),
        ip="198.51.100.7",
    )
    assert other_network.result is Result.QUEUED
    assert all(
        b.network is None or len(b.network) == 64
        for b in map(lambda lead: slots.get(store.engine, lead.id), store.all())
    )


def digest(address: str, key: str = "k") -> str | None:
    """The network digest a booking from ``address`` keeps."""
    return network_digest(address, key)


@given(st.ip_addresses(v=4), st.integers(0, 255), st.ip_addresses(v=6), st.integers(0, 2**80 - 1))
def test_a_network_digest_is_the_same_within_a_24_or_a_48_and_hides_it(
    ipv4, host, ipv6, interface
) -> None:
    same_24 = ipaddress.IPv4Address((int(ipv4) & ~0xFF) | host)
    assert digest(str(ipv4)) == digest(str(same_24))
    next_24 = ipaddress.IPv4Address((int(ipv4) + 256) % 2**32)
    assert digest(str(ipv4)) != digest(str(next_24))
    mapped = ipaddress.IPv6Address(f"::ffff:{ipv4}")
    assert digest(str(mapped)) == digest(str(ipv4))
    if ipv6.ipv4_mapped is None:
        # Another /64 (and host) of the same /48: one subscriber, one network.
        same_48 = ipaddress.IPv6Address((int(ipv6) & ~(2**80 - 1)) | interface)
        if same_48.ipv4_mapped is None:
            assert digest(str(ipv6)) == digest(str(same_48))
        next_48 = ipaddress.IPv6Address((int(ipv6) + 2**80) % 2**128)
        if next_48.ipv4_mapped is None:
            assert digest(str(ipv6)) != digest(str(next_48))
    hidden = digest(str(ipv4))
    assert hidden is not None and str(ipv4) not in hidden and len(hidden) == 64
    assert digest(str(ipv4), "other key") != hidden
    assert digest("not an address") is None


def test_a_pending_booking_expires_after_three_working_days(store: LeadStore) -> None:
    lead_id = book(store, MONDAY, "10:00")
    friday = dt.datetime(2026, 12, 4, 16, 30, tzinfo=dt.UTC)  # Tue 8 is a holiday.
    with store.engine.begin() as connection:
        connection.execute(sa.update(Booking).values(created_at=friday))
    calendar = WorkingCalendar()
    due = slots.answer_due(friday, calendar, 3)
    assert due.date() == dt.date(2026, 12, 10)  # Mon 7, Wed 9, Thu 10.
    assert slots.expire_pending(store.engine, due - dt.timedelta(minutes=1), calendar, 3) == []
    assert slots.expire_pending(store.engine, due, calendar, 3) == [lead_id]
    assert slots.expire_pending(store.engine, due, calendar, 3) == []  # Once.
    expired = slots.get(store.engine, lead_id)
    assert expired.state == BookingStatus.EXPIRED and expired.active_slot is None
    assert slots.taken(store.engine, [MONDAY]) == {MONDAY: set()}
    assert slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)[0] is (
        slots.Decision.NOT_ALLOWED
    )
    assert slots.expire_pending(store.engine, due, calendar, 0) == []  # 0: never.

"""The visitor's manage page on a real database: their link shows the free slots with the
booking form's date and time controls, the move form moves once (a replayed form changes
nothing, the link keeps working), a taken slot is answered with the nearest free ones,
inside the notice window or after the most moves the page offers the phone instead, and
the visitor (in their language) and the agency are e-mailed, retried until accepted."""

import datetime as dt
from dataclasses import replace
from types import SimpleNamespace

import pytest
import sqlalchemy as sa

from agency_site import locale, paths
from agency_site.bookings import reschedule, slots
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import LinkAction
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.bookings.pages import create_app
from agency_site.bookings.plugin import BookingsPlugin
from agency_site.content.bookings import COPY
from agency_site.content.site import SITE
from agency_site.leads.store import LeadStore
from agency_site.rules import TIME_SLOTS
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_booking_pages import DAY, Client, desk_for, url
from tests.lead_store import BOOKING_FIELDS, add_held_booking
from tests.run_async import run

NEXT_DAY = WorkingCalendar().next_working_day(DAY + dt.timedelta(days=1))
MOVE = paths.booking_link("move")
FREE = reschedule.MoveRules(notice=dt.timedelta(hours=24), max_moves=3)


def manage_desk(
    store: LeadStore, sent: list, rules: reschedule.MoveRules = FREE, **more
) -> BookingDesk:
    return replace(desk_for(store, 14, sent), moves=rules, **more)


@pytest.fixture
def sent() -> list[tuple[str, dict[str, str]]]:
    return []


@pytest.fixture
def client(store: LeadStore, sent) -> Client:
    return Client(create_app(lambda: manage_desk(store, sent)))


def booked(store: LeadStore, time: str = "10:00", language: str = "es", confirmed=True) -> int:
    """A booking on ``DAY`` at ``time`` from a visitor of ``language``."""
    fields = BOOKING_FIELDS | {"date": str(DAY), "time": time}
    lead_id = add_held_booking(store, fields, language=language)
    if confirmed:
        slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)
    return lead_id


def token(store: LeadStore, lead_id: int) -> str:
    """The visitor's link (the cancel link of their e-mail): its token."""
    return url(store, LinkAction.CANCEL, lead_id).split("?t=")[1]


def move_form(link: str, day: dt.date, time: str, version: int = 0) -> dict[str, str]:
    return {"t": link, "v": str(version), "date": day.isoformat(), "time": time}


def test_the_visitors_link_shows_the_free_slots_with_the_booking_forms_controls(
    client: Client, store: LeadStore
) -> None:
    lead_id = booked(store)
    page = client.get(url(store, LinkAction.CANCEL, lead_id))
    assert page.status_code == 200 and "<script" not in page.text
    assert 'id="booking-move-form"' in page.text and f'action="{MOVE}"' in page.text
    assert 'id="booking-date"' in page.text and 'type="date"' in page.text
    assert 'id="booking-time"' in page.text and 'name="time"' in page.text
    assert all(f'<option value="{slot}">' in page.text for slot in TIME_SLOTS)
    assert 'name="v" value="0"' in page.text  # The version the form moves.
    assert COPY.manage.next_free in page.text and "<li>" in page.text
    assert COPY.cancel.button in page.text  # Cancelling stays one button away.
    assert slots.get(store.engine, lead_id).sequence == 0  # A GET changes nothing.


@pytest.mark.parametrize("language", ["es", "ca"])
def test_the_visitor_moves_the_booking_and_gets_the_new_calendar_file(
    client: Client, store: LeadStore, sent: list, language: str
) -> None:
    lead_id = booked(store, language=language)
    link = token(store, lead_id)
    answer = client.post(MOVE, data=move_form(link, NEXT_DAY, "16:00"))
    with locale.active(language):
        assert answer.status_code == 200 and COPY.manage.done in answer.text
        assert COPY.manage.sent in answer.text and COPY.manage.calendar in answer.text
        assert f'lang="{locale.HTML_LANG[language]}"' in answer.text
        ((_, visitor), (template, agency)) = sent
        assert visitor["subject"] == COPY.mails.moved.subject
        assert visitor["time"] == "16:00" and visitor["cancel_url"] and visitor["google_url"]
    booking = slots.get(store.engine, lead_id)
    assert (booking.date, booking.time, booking.state) == (NEXT_DAY, "16:00", "confirmed")
    assert (booking.visitor_told_sequence, booking.agency_told_sequence) == (1, 1)
    assert template == "agency" and "16:00" in agency["message"] and "10:00" in agency["message"]
    calendar = client.get(visitor["ics_url"].removeprefix("https://api.agencia.test"))
    assert calendar.status_code == 200 and "SEQUENCE:1" in calendar.text
    assert f"DTSTART;TZID=Europe/Madrid:{NEXT_DAY:%Y%m%d}T160000" in calendar.text
    # The same link opens the page again, at the new version, to move or cancel again.
    again = client.get(f"{paths.booking_link('cancel')}?t={link}")
    assert again.status_code == 200 and 'name="v" value="1"' in again.text
    cancel = client.post(paths.booking_link("cancel"), data={"t": link})
    assert cancel.status_code == 200
    assert slots.get(store.engine, lead_id).state == BookingStatus.CANCELLED


def test_a_replayed_move_form_changes_nothing(client, store: LeadStore, sent: list) -> None:
    lead_id = booked(store)
    form = move_form(token(store, lead_id), NEXT_DAY, "11:00")
    assert client.post(MOVE, data=form).status_code == 200
    replay = client.post(MOVE, data=form)
    assert replay.status_code == 409 and COPY.manage.stale in replay.text
    older = client.post(MOVE, data=form | {"time": "12:00"})  # An older tab's form.
    assert older.status_code == 409
    booking = slots.get(store.engine, lead_id)
    assert (booking.time, booking.sequence) == ("11:00", 1) and len(sent) == 2


def test_a_taken_slot_is_answered_with_the_nearest_free_ones(client, store: LeadStore) -> None:
    mine, _ = booked(store, "10:00"), booked(store, "11:00")
    answer = client.post(MOVE, data=move_form(token(store, mine), DAY, "11:00"))
    assert answer.status_code == 409
    assert COPY.slots.taken.split("{slots}")[0] in answer.text
    assert "12:00 del" in answer.text  # The nearest free slot, that day.
    assert 'id="booking-move-form"' in answer.text  # Pick again.
    assert slots.get(store.engine, mine).time == "10:00"


def test_a_day_the_agency_does_not_work_is_refused_next_to_the_date(client, store) -> None:
    lead_id = booked(store)
    saturday = DAY + dt.timedelta(days=(5 - DAY.weekday()) % 7)
    answer = client.post(MOVE, data=move_form(token(store, lead_id), saturday, "10:00"))
    assert answer.status_code == 400 and COPY.manage.not_open in answer.text
    nonsense = client.post(MOVE, data=move_form(token(store, lead_id), DAY, "10:00") | {"v": "x"})
    assert nonsense.status_code == 400
    assert client.post(MOVE, data={"t": "nothing"}).status_code == 400
    assert slots.get(store.engine, lead_id).sequence == 0


def test_inside_the_notice_window_the_page_offers_the_phone_instead(store, sent) -> None:
    lead_id = booked(store)
    late = reschedule.MoveRules(notice=dt.timedelta(days=400), max_moves=3)
    client = Client(create_app(lambda: manage_desk(store, sent, late)))
    page = client.get(url(store, LinkAction.CANCEL, lead_id))
    assert page.status_code == 200 and 'id="booking-move-form"' not in page.text
    assert "9600" in page.text  # BOOKING_CHANGE_NOTICE_HOURS, said.
    assert SITE.tel in page.text and SITE.whatsapp_url in page.text
    assert COPY.cancel.button in page.text
    refused = client.post(MOVE, data=move_form(token(store, lead_id), NEXT_DAY, "10:00"))
    assert refused.status_code == 409 and SITE.whatsapp_url in refused.text
    assert slots.get(store.engine, lead_id).time == "10:00" and sent == []


def test_after_the_most_moves_the_page_offers_the_phone_instead(store, sent) -> None:
    lead_id = booked(store)
    once = reschedule.MoveRules(notice=dt.timedelta(hours=24), max_moves=1)
    client = Client(create_app(lambda: manage_desk(store, sent, once)))
    link = token(store, lead_id)
    assert client.post(MOVE, data=move_form(link, NEXT_DAY, "10:00")).status_code == 200
    page = client.get(f"{paths.booking_link('cancel')}?t={link}")
    assert COPY.manage.too_many in page.text and 'id="booking-move-form"' not in page.text
    refused = client.post(MOVE, data=move_form(link, NEXT_DAY, "12:00", version=1))
    assert refused.status_code == 409 and slots.get(store.engine, lead_id).time == "10:00"


def test_a_moved_booking_reconfirmed_waits_for_the_agency(store, sent) -> None:
    lead_id = booked(store)
    again = reschedule.MoveRules(notice=dt.timedelta(hours=24), max_moves=3, reconfirm=True)
    client = Client(create_app(lambda: manage_desk(store, sent, again)))
    answer = client.post(MOVE, data=move_form(token(store, lead_id), NEXT_DAY, "09:00"))
    assert answer.status_code == 200 and COPY.manage.confirm_later in answer.text
    assert COPY.manage.calendar not in answer.text  # No calendar file until confirmed.
    ((_, visitor), (_, agency)) = sent
    assert visitor["subject"] == COPY.mails.moved_pending.subject and not visitor["ics_url"]
    assert "/_site/bookings/confirm?t=" in agency["message"]  # The agency confirms again.
    assert slots.get(store.engine, lead_id).state == BookingStatus.PENDING


def test_the_monitor_sends_again_what_was_not_accepted(store: LeadStore) -> None:
    lead_id = booked(store)
    refused: list = []

    async def refuse(template: str, params: dict[str, str]) -> bool:
        refused.append(template)
        return False

    down = replace(manage_desk(store, []), send=refuse)
    client = Client(create_app(lambda: down))
    answer = client.post(MOVE, data=move_form(token(store, lead_id), NEXT_DAY, "15:00"))
    assert answer.status_code == 200 and COPY.manage.sent not in answer.text
    assert refused == ["visitor", "agency"]
    booking = slots.get(store.engine, lead_id)
    assert (booking.visitor_told_sequence, booking.agency_told_sequence) == (0, 0)

    sent: list = []
    plugin = BookingsPlugin(desk=lambda: manage_desk(store, sent))
    monitor = SimpleNamespace(store=store)
    assert run(plugin.tell_moves(monitor)) == 0  # Too fresh: the page may still be sending.
    with store.engine.begin() as connection:
        moment = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
        connection.execute(sa.update(Booking).values(moved_at=moment))
    assert run(plugin.tell_moves(monitor)) == 1
    assert [template for template, _ in sent] == ["visitor", "agency"]
    assert sent[0][1]["subject"] == COPY.mails.moved.subject
    assert run(plugin.tell_moves(monitor)) == 0  # Told once.
    assert len(sent) == 2

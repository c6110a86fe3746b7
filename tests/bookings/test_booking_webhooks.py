"""A booking's changes of state go out as signed webhooks, each once, queued in the
transaction of the change, each body valid against the documented schema; the bookings
declare their events and their chat line to the core (``LeadPlugin.webhook_events``,
``chat_line``), which names neither."""

import datetime as dt
import json

import jsonschema
import sqlalchemy as sa
from standardwebhooks import Webhook

from agency_site.bookings import reschedule, slots
from agency_site.bookings.models import Attendance, Booking, BookingStatus
from agency_site.bookings.plugin import BookingsPlugin
from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks import payload as webhook_payload
from agency_site.leads.webhooks.channel import WebhookChannel
from agency_site.leads.webhooks.destinations import slack_text
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_bookings import MONDAY, book
from tests.bookings.test_reschedule import TUESDAY, move
from tests.leads.test_webhooks import HOOK, SECRET, channel, received, receiver, rows, send

__all__ = ["receiver"]  # The receiver fixture, used by name.

FRIDAY = dt.datetime(2026, 12, 4, 16, 30, tzinfo=dt.UTC)  # Tuesday 8 is a holiday.
AFTER_MONDAY = dt.datetime(2026, 12, 14, 12, 0, tzinfo=dt.UTC)  # Its meetings have started.


def test_a_booking_s_life_is_posted_event_by_event(store: LeadStore, receiver) -> None:
    receiver.expect_request(HOOK).respond_with_data("")
    hooks = channel(store, receiver)
    lead_id = book(store)
    assert slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)[0] is slots.Decision.DONE
    assert move(store, lead_id, TUESDAY, "16:00")[0] is reschedule.Moved.DONE
    slots.decide(store.engine, lead_id, BookingStatus.CANCELLED)
    # Refused changes queue nothing.
    assert slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)[0] is not (
        slots.Decision.DONE
    )
    assert send(hooks) == 5

    bodies = {}
    for request, body in received(receiver):
        payload = Webhook(SECRET).verify(body, dict(request.headers))
        jsonschema.validate(payload, webhook_payload.schema())
        bodies[payload["type"]] = (request.headers["webhook-id"], payload["data"]["booking"])
    assert list(bodies) == [
        "lead.created",
        "booking.requested",
        "booking.confirmed",
        "booking.rescheduled",
        "booking.cancelled",
    ]
    assert bodies["booking.requested"][1]["status"] == "pending"
    assert bodies["booking.confirmed"][1]["status"] == "confirmed"
    moved = bodies["booking.rescheduled"][1]
    assert (moved["date"], moved["time"]) == (TUESDAY.isoformat(), "16:00")
    assert moved["moved_from"].endswith("T10:00")
    assert bodies["booking.cancelled"][1]["status"] == "cancelled"
    # A message id per event and booking version: receivers deduplicate retries only.
    assert len({msg_id for msg_id, _ in bodies.values()}) == 5
    assert all(row.lead_id == lead_id for row in rows(store))


def test_a_declined_booking_is_posted_once(store: LeadStore, receiver) -> None:
    receiver.expect_request(HOOK).respond_with_data("")
    hooks = channel(store, receiver)
    lead_id = book(store)
    slots.decide(store.engine, lead_id, BookingStatus.DECLINED)
    slots.decide(store.engine, lead_id, BookingStatus.DECLINED)
    send(hooks)
    events = [row.event for row in rows(store)]
    assert events == ["lead.created", "booking.requested", "booking.declined"]


def test_an_expiry_and_a_meeting_s_attendance_are_posted_once(store: LeadStore, receiver) -> None:
    """``booking.expired`` queued in the transaction that expires it, ``booking.attended``
    and ``booking.no_show`` in the one that marks the meeting; each body valid, each once
    however often the change is tried again."""
    receiver.expect_request(HOOK).respond_with_data("")
    hooks = channel(store, receiver)
    left = book(store, MONDAY, "10:00")
    came, absent = book(store, MONDAY, "11:00"), book(store, MONDAY, "12:00")
    with store.engine.begin() as connection:  # Requested on a Friday afternoon.
        connection.execute(sa.update(Booking).values(created_at=FRIDAY))
    for lead_id in (came, absent):
        slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)
    due = slots.answer_due(FRIDAY, WorkingCalendar(), 3)
    for _ in range(2):
        slots.expire_pending(store.engine, due, WorkingCalendar(), 3)
        slots.mark_attendance(store.engine, came, Attendance.ATTENDED, None, AFTER_MONDAY)
        slots.mark_attendance(store.engine, absent, Attendance.NO_SHOW, None, AFTER_MONDAY)
    send(hooks)

    posted: dict[int, list[str]] = {}
    for request, body in received(receiver):
        payload = Webhook(SECRET).verify(body, dict(request.headers))
        jsonschema.validate(payload, webhook_payload.schema())
        data = payload["data"]
        posted.setdefault(data["lead_id"], []).append(payload["type"])
        if payload["type"] == "booking.expired":
            assert data["booking"]["status"] == "expired"
        if payload["type"] in ("booking.attended", "booking.no_show"):
            assert data["booking"]["attendance"] == payload["type"].removeprefix("booking.")
    start = ["lead.created", "booking.requested"]
    assert posted == {
        left: [*start, "booking.expired"],
        came: [*start, "booking.confirmed", "booking.attended"],
        absent: [*start, "booking.confirmed", "booking.no_show"],
    }


def test_the_schema_lists_the_core_s_events_and_those_the_bookings_declare() -> None:
    declared = BookingsPlugin().webhook_events()
    assert declared and not set(declared) & set(webhook_payload.EVENTS)
    assert set(webhook_payload.schema()["properties"]["type"]["enum"]) == {
        *webhook_payload.EVENTS,
        *declared,
    }


def test_a_chat_says_the_booking_s_line_of_its_changes_and_the_core_s_of_its_lead(
    store: LeadStore, receiver
) -> None:
    """The first line of each message: the core's for the new lead (``chat_lead``), the
    bookings plugin's for its changes (``chat_booking``, with the slot)."""
    receiver.expect_request("/chat").respond_with_data("ok")
    hooks = WebhookChannel(
        store.engine, ("slack+" + receiver.url_for("/chat"),), (), plugins=store.plugins
    )
    hooks.register()
    lead_id = book(store)
    slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)
    assert send(hooks) == 3
    first_lines = [json.loads(body)["text"].split("\n")[0] for _, body in received(receiver)]
    chat = [render(ALERTS.chat_lead, kind="booking", lead_id=lead_id)] + [
        render(
            ALERTS.chat_booking, event=event, lead_id=lead_id, date=MONDAY.isoformat(), time="10:00"
        )
        for event in ("requested", "confirmed")
    ]
    assert first_lines == [slack_text(line) for line in chat]

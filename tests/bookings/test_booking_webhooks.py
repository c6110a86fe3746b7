"""A booking's changes of state go out as signed webhooks, each once, queued in the
transaction of the change, each body valid against the documented schema."""

import jsonschema
from standardwebhooks import Webhook

from agency_site.bookings import slots
from agency_site.bookings.models import BookingStatus
from agency_site.leads import webhook_payload
from agency_site.leads.store import LeadStore
from tests.bookings.test_bookings import book
from tests.bookings.test_reschedule import TUESDAY, move
from tests.leads.test_webhooks import HOOK, SECRET, channel, received, receiver, rows, send

__all__ = ["receiver"]  # The receiver fixture, used by name.


def test_a_booking_s_life_is_posted_event_by_event(store: LeadStore, receiver) -> None:
    receiver.expect_request(HOOK).respond_with_data("")
    hooks = channel(store, receiver)
    lead_id = book(store)
    assert slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)[0] is slots.Decision.DONE
    assert move(store, lead_id, TUESDAY, "16:00")[0] is slots.Moved.DONE
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

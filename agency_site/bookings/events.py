"""A booking's changes of state as webhook events (``booking.requested``, ``confirmed``,
``declined``, ``cancelled``, ``rescheduled``, ``expired`` (left unanswered,
``slots.expire_pending``), and after the meeting ``attended`` or ``no_show``
(``slots.mark_attendance``)): queued by ``leads.webhooks.queue.queue_event`` in the transaction
that changes the booking, so an event is sent exactly when its change is stored. Each body
carries the booking as it is right after the change (``as_data``). The same change is a
row of ``booking_history`` (``BookingChange``), webhooks or not: the desk's page of the
lead shows the booking's history from it."""

from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, select

from agency_site.bookings.models import Booking, BookingChange
from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.leads.webhooks import queue as webhook_queue

# The events a booking's changes queue (``BookingsPlugin.webhook_events``), as
# docs/lead-webhook.schema.json lists them.
EVENTS = (
    "booking.requested",
    "booking.confirmed",
    "booking.declined",
    "booking.cancelled",
    "booking.rescheduled",
    "booking.expired",
    "booking.attended",
    "booking.no_show",
)


def as_data(booking: Booking) -> dict[str, Any]:
    """The ``booking`` object of a webhook body (``docs/lead-webhook.schema.json``)."""
    return {
        "status": booking.state,
        "date": booking.date.isoformat(),
        "time": booking.time,
        "slot_lost": booking.slot_lost,
        "slot_lost_reason": booking.slot_lost_reason,
        "moved_from": booking.moved_from,
        "attendance": booking.attendance,
    }


def queue(session: Session, lead_id: int, event: str) -> int:
    """In the caller's transaction (after its change): ``event`` of booking ``lead_id``
    queued for every webhook endpoint, one message per event and booking version."""
    assert event in EVENTS, event
    session.flush()
    query = (
        select(Booking).where(Booking.lead_id == lead_id).execution_options(populate_existing=True)
    )
    booking = session.exec(query).first()
    if booking is None:
        return 0
    session.add(
        BookingChange(
            lead_id=lead_id,
            event=event.removeprefix("booking."),
            date=booking.date,
            time=booking.time,
            moved_from=booking.moved_from if event == "booking.rescheduled" else None,
            slot_lost=booking.slot_lost,
        )
    )
    data = {"booking": as_data(booking)}
    return webhook_queue.queue_event(session, lead_id, event, data, sequence=booking.sequence)


def current(engine: sa.Engine, lead_id: int) -> dict[str, Any]:
    """``{"booking": ...}`` of lead ``lead_id`` as it is now; nothing when not a booking."""
    with Session(engine) as session:
        booking = session.get(Booking, lead_id)
        return {"booking": as_data(booking)} if booking is not None else {}


def chat_line(payload: dict[str, Any]) -> str:
    """What a chat says first of a booking's event (``chat_booking``, the owner's words):
    the lead's number, what happened, the slot as the body carries it."""
    data = payload["data"]
    booking = data.get("booking") or {}
    return render(
        ALERTS.chat_booking,
        event=payload["type"].removeprefix("booking."),
        lead_id=data["lead_id"],
        date=booking.get("date", ""),
        time=booking.get("time", ""),
    )

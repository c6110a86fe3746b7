"""The visitor's e-mails about their booking (confirmed, declined, cancelled, expired,
moved, the reminder before the meeting), sent through the visitor template (``EMAILJS_VISITOR_TEMPLATE_ID``), and the links
they carry; what the agency's booking e-mail adds (``agency_params``).

Template parameters: ``to_email``, ``to_name`` (the name cut short, as in the auto-reply),
``subject``, ``message`` (the whole text, in the language in use: the visitor's),
``date_es`` (the date in words of that language), ``time``,
``time_zone``, and, when they apply, ``ics_url``, ``google_url``, ``outlook_url``,
``cancel_url`` (the visitor's manage link), ``meeting_url`` (the video call,
``BOOKING_MEETING_URL``: then the confirmation's ``message`` says it too) and
``book_again_url`` (empty otherwise); the agency's e-mail when the visitor moves a booking
(``agency_move_message``).
"""

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from agency_site import locale, paths
from agency_site.bookings import slots
from agency_site.bookings.calendar_file import Appointment, google_link, outlook_link
from agency_site.bookings.links import LinkAction, LinkSigner
from agency_site.bookings.meeting import booking_meeting_url
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.content.bookings import COPY
from agency_site.content.site import SITE
from agency_site.content.template import render
from agency_site.forms.declarations import BY_KIND
from agency_site.forms.email import date_es, short_name, summary_rows
from agency_site.forms.fields import Control
from agency_site.forms.kinds import LeadKind
from agency_site.leads.delivery import template_params
from agency_site.leads.store import LeadStore
from agency_site.locale import localized_path
from agency_site.rules import AGENCY_TIME_ZONE


def link(api_url: str, signer: LinkSigner, action: LinkAction, booking: Booking) -> str:
    """The absolute URL of a signed ``action`` link to ``booking`` (with its key)."""
    page = paths.booking_link(str(action))
    token = signer.token(action, booking.lead_id, booking.link_key or "")
    return f"{api_url.rstrip('/')}{page}?t={token}"


def appointment(booking: Booking, fields: Mapping[str, Any]) -> Appointment:
    """The calendar event of a booking (at its video call, when there is one)."""
    meeting = booking_meeting_url(booking.link_key)
    return Appointment(
        uid=f"booking-{booking.lead_id}@{SITE.email.split('@')[-1]}",
        date=booking.date,
        time=booking.time,
        title=COPY.event_title,
        description=COPY.event_description,
        location=meeting or SITE.address.one_line,
        organizer_email=SITE.email,
        url=meeting,
        sequence=booking.sequence,
    )


# The links a visitor's e-mail may carry, each empty when it has none (the visitor
# template shows each only when set: ``agency_site/emailjs_templates.py``).
VISITOR_LINKS = (
    "ics_url",
    "google_url",
    "outlook_url",
    "cancel_url",
    "meeting_url",
    "book_again_url",
)


@dataclass(frozen=True)
class VisitorMail:
    """What the visitor template receives for one booking e-mail."""

    params: dict[str, str]


def visitor_mail(
    booking: Booking,
    fields: Mapping[str, Any],
    *,
    api_url: str,
    site_url: str,
    signer: LinkSigner | None,
    moved: bool = False,
    reminder: bool = False,
) -> VisitorMail:
    """The e-mail telling the visitor of ``fields`` where their booking now stands (only a
    confirmed or ``moved`` one carries signed links: it needs ``signer``). ``moved``: the
    visitor just moved it (confirmed: the updated calendar file; pending: their manage
    link, the calendar file follows the agency's confirmation). ``reminder``: the meeting
    is near (``reminders.py``): a confirmed booking's reminder, with the same links."""
    state = BookingStatus(booking.state)
    if reminder and state is BookingStatus.CONFIRMED:
        mail = COPY.mails.reminder
    elif moved:
        mail = COPY.mails.moved if state is BookingStatus.CONFIRMED else COPY.mails.moved_pending
    else:
        mail = {
            BookingStatus.CONFIRMED: COPY.mails.confirmed,
            BookingStatus.DECLINED: COPY.mails.declined,
            BookingStatus.CANCELLED: COPY.mails.cancelled,
            BookingStatus.EXPIRED: COPY.mails.expired,
        }[state]
    name = short_name(str(fields.get("name", "")))
    words = {"name": name, "date_es": date_es(booking.date.isoformat()), "time": booking.time}
    params = {
        "to_email": str(fields.get("email", "")),
        "to_name": name,
        "subject": mail.subject,
        "message": render(mail.message, **words),
        "date_es": words["date_es"],
        "time": booking.time,
        "time_zone": AGENCY_TIME_ZONE,
        **dict.fromkeys(VISITOR_LINKS, ""),
    }
    if state is BookingStatus.CONFIRMED:
        assert signer is not None, "a confirmation carries signed links"
        event = appointment(booking, fields)
        params |= {
            "ics_url": link(api_url, signer, LinkAction.CALENDAR, booking),
            "google_url": google_link(event),
            "outlook_url": outlook_link(event),
            "cancel_url": link(api_url, signer, LinkAction.CANCEL, booking),
            "meeting_url": event.url,
        }
        if event.url:
            params["message"] += " " + render(COPY.meeting, url=event.url)
    elif moved:
        assert signer is not None, "a moved booking's e-mail carries its manage link"
        params["cancel_url"] = link(api_url, signer, LinkAction.CANCEL, booking)
    else:
        params["book_again_url"] = site_url.rstrip("/") + localized_path(paths.SCHEDULE)
    return VisitorMail(params)


def booking_summary(
    fields: Mapping[str, Any], leave_out: tuple[str, ...] = ()
) -> list[tuple[str, str]]:
    """A booking's lead as its summaries list it (the booking's pages, the agency's digest),
    in the language in use: every field the booking form declares but its slot and the
    slot's day (the booking's own, which a move changes), labelled by its words, in the
    form's order; the empty ones and those of ``leave_out`` left out."""
    form = BY_KIND[LeadKind.BOOKING]
    held = [(f.name, f.day_field) for f in form.fields if f.control is Control.SLOT]
    return summary_rows(form, fields, (*(name for pair in held for name in pair), *leave_out))


def agency_move_message(booking: Booking, fields: Mapping[str, Any], links: str = "") -> str:
    """The agency's e-mail (Spanish) when a visitor moved their booking: from when to when,
    and whether it needs confirming again (``links``: its confirm and decline links)."""
    old_date, _, old_time = (booking.moved_from or "").partition("T")
    with locale.active(locale.DEFAULT_LOCALE):
        words = {
            "name": str(fields.get("name", "")),
            "email": str(fields.get("email", "")),
            "old_date_es": date_es(old_date) if old_date else "",
            "old_time": old_time,
            "date_es": date_es(booking.date.isoformat()),
            "time": booking.time,
            "state": getattr(COPY.states, str(booking.state)),
        }
        return f"{render(COPY.agency_moved, **words)}\n\n{links}".rstrip()


def agency_links(
    api_url: str, signer: LinkSigner, engine: sa.Engine, lead_id: int
) -> dict[str, str]:
    """The booking e-mail's ``confirm_url`` and ``decline_url`` (empty: no such booking)."""
    booking = slots.get(engine, lead_id)
    if booking is None:
        return {"confirm_url": "", "decline_url": ""}
    return {
        "confirm_url": link(api_url, signer, LinkAction.CONFIRM, booking),
        "decline_url": link(api_url, signer, LinkAction.DECLINE, booking),
    }


def agency_params(
    engine: sa.Engine, links: Callable[[int], dict[str, str]] | None, lead_id: int
) -> dict[str, str]:
    """What the agency's e-mail of booking ``lead_id`` adds to its lead's parameters:
    ``confirm_url`` and ``decline_url`` (``links``; empty without BOOKING_LINK_SECRET) and
    ``slot_note``, empty unless the booking holds no slot (``slot_lost``): then it says
    so, and ``message`` starts with it too, so no template can miss it."""
    params = links(lead_id) if links else {"confirm_url": "", "decline_url": ""}
    booking = slots.get(engine, lead_id)
    lead = LeadStore(engine).get(lead_id)
    if booking is None or lead is None or not booking.slot_lost:
        return params | {"slot_note": ""}
    with locale.active(locale.DEFAULT_LOCALE):  # The agency's e-mail: Spanish.
        note = slot_lost_note(booking)
        resend_of = lead_id if lead.unconfirmed_sends else None
        message = template_params(LeadKind.BOOKING, lead.fields, "", resend_of=resend_of)
    return params | {"slot_note": note, "message": f"{note}\n\n{message['message']}".rstrip()}


def slot_lost_note(booking: Booking) -> str:
    """What the agency is told of a booking that holds no slot (``slot_lost``), and why,
    in the active language."""
    why = getattr(COPY.slot_lost_why, booking.slot_lost_reason or "unknown", None)
    return render(
        COPY.slot_lost,
        date_es=date_es(booking.date.isoformat()),
        time=booking.time,
        why=why or COPY.slot_lost_why.unknown,
    )


def starts_at(booking: Booking) -> dt.datetime:
    """When the appointment starts (aware)."""
    return appointment(booking, {}).start

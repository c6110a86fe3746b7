"""The visitor's e-mails about their booking (confirmed, declined, cancelled), sent through
the visitor template (``EMAILJS_VISITOR_TEMPLATE_ID``), and the links they carry.

Template parameters: ``to_email``, ``to_name`` (the name cut short, as in the auto-reply),
``subject``, ``message`` (the whole text, in the language in use: the visitor's),
``date_es`` (the date in words of that language), ``time``,
``time_zone``, and, when they apply, ``ics_url``, ``google_url``, ``outlook_url``,
``cancel_url`` and ``book_again_url`` (empty otherwise).
"""

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agency_site import paths
from agency_site.bookings.calendar_file import Appointment, google_link, outlook_link
from agency_site.bookings.links import Action, LinkSigner
from agency_site.bookings.models import Booking, BookingState
from agency_site.content.bookings import COPY
from agency_site.content.loader import fill
from agency_site.content.site import SITE
from agency_site.forms.email import date_es, short_name
from agency_site.locale import localized_path
from agency_site.rules import AGENCY_TIME_ZONE


def link(api_url: str, signer: LinkSigner, action: Action, lead_id: int) -> str:
    """The absolute URL of a signed ``action`` link to booking ``lead_id``."""
    page = paths.booking_link(str(action))
    return f"{api_url.rstrip('/')}{page}?t={signer.token(action, lead_id)}"


def appointment(booking: Booking, fields: Mapping[str, Any]) -> Appointment:
    """The calendar event of a booking."""
    return Appointment(
        uid=f"booking-{booking.lead_id}@{SITE.email.split('@')[-1]}",
        date=booking.date,
        time=booking.time,
        title=COPY.event_title,
        description=COPY.event_description,
        location=SITE.address.one_line,
        organizer_email=SITE.email,
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
    signer: LinkSigner,
) -> VisitorMail:
    """The e-mail telling the visitor of ``fields`` where their booking now stands."""
    state = BookingState(booking.state)
    mail = {
        BookingState.CONFIRMED: COPY.mails.confirmed,
        BookingState.DECLINED: COPY.mails.declined,
        BookingState.CANCELLED: COPY.mails.cancelled,
    }[state]
    name = short_name(str(fields.get("name", "")))
    words = {"name": name, "date_es": date_es(booking.date.isoformat()), "time": booking.time}
    params = {
        "to_email": str(fields.get("email", "")),
        "to_name": name,
        "subject": mail.subject,
        "message": fill(mail.message, words),
        "date_es": words["date_es"],
        "time": booking.time,
        "time_zone": AGENCY_TIME_ZONE,
        "ics_url": "",
        "google_url": "",
        "outlook_url": "",
        "cancel_url": "",
        "book_again_url": "",
    }
    if state is BookingState.CONFIRMED:
        event = appointment(booking, fields)
        params |= {
            "ics_url": link(api_url, signer, Action.CALENDAR, booking.lead_id),
            "google_url": google_link(event),
            "outlook_url": outlook_link(event),
            "cancel_url": link(api_url, signer, Action.CANCEL, booking.lead_id),
        }
    else:
        params["book_again_url"] = site_url.rstrip("/") + localized_path(paths.SCHEDULE)
    return VisitorMail(params)


def agency_links(api_url: str, signer: LinkSigner, lead_id: int) -> dict[str, str]:
    """The booking e-mail's ``confirm_url`` and ``decline_url``."""
    return {
        "confirm_url": link(api_url, signer, Action.CONFIRM, lead_id),
        "decline_url": link(api_url, signer, Action.DECLINE, lead_id),
    }


def starts_at(booking: Booking) -> dt.datetime:
    """When the appointment starts (aware)."""
    return appointment(booking, {}).start

"""The desk wired to the lead core, for the tests of its lead screens (a lead's page, the
pipeline, the spam review, the export): ``wire(desk_site, emailjs)`` is the ``desk_site``'s
app with ``Desk.lead_tools`` set (a store with the bookings and the desk plugged in, as the
site runs, and its delivery through the fake EmailJS), and leads stored as the intake does.
"""

import dataclasses
from typing import Any

from pytest_httpserver import HTTPServer
from starlette.responses import HTMLResponse

from agency_site.bookings.plugin import BookingsPlugin
from agency_site.desk.app import SCREENS, routes
from agency_site.desk.guard import create_app
from agency_site.desk.lead_tools import LeadTools
from agency_site.desk.purge_plugin import DeskPlugin
from agency_site.forms.kinds import LeadKind
from agency_site.leads.plugins import Hold, Plugins
from agency_site.leads.statuses import SpamReason
from agency_site.leads.store import LeadStore
from tests.desk.conftest import DeskSite
from tests.emailjs_fake import make_client
from tests.lead_store import BOOKING_FIELDS, LEASE, add_lead_id, make_delivery

QUOTE_FIELDS = {
    "name": "Núria Peñalver",
    "email": "nuria@example.com",
    "phone": "+34 600 11 22 33",
    "service": "branding",
    "pack": "",
    "message": "Queremos renovar la imatge: façana, logotip i web.",
}
SOURCE = {
    "page": "/contact",
    "landing": "/services/branding",
    "referrer": "google.com",
    "utm_source": "newsletter",
    "utm_campaign": "otoño",
}


def wire(
    site: DeskSite, emailjs: HTTPServer | None = None, webhook_urls: tuple[str, ...] = ()
) -> tuple[DeskSite, LeadTools]:
    """``site`` with its lead screens wired to a store of its database (bookings and desk
    plugged in) and a delivery through ``emailjs`` (None: not configured)."""
    store = LeadStore(site.engine, Plugins((BookingsPlugin(), DeskPlugin())))
    delivery = make_delivery(store, make_client(emailjs) if emailjs is not None else None)
    tools = LeadTools(delivery, spam_keep_days=7, webhook_urls=webhook_urls)
    desk = dataclasses.replace(site.desk, lead_tools=lambda: tools)
    app = create_app(desk, routes(SCREENS), lambda: HTMLResponse("not found", 404))
    return DeskSite(site.engine, site.clock, desk, app), tools


def add(
    store: LeadStore,
    kind: LeadKind = LeadKind.QUOTE,
    fields: dict[str, Any] | None = None,
    *,
    spam: SpamReason | None = None,
    **options: Any,
) -> int:
    """A lead stored as the intake stores it (waiting for the delivery loop); a booking
    holds its slot (unless taken for spam: held when released)."""
    fields = fields or (BOOKING_FIELDS if kind is LeadKind.BOOKING else QUOTE_FIELDS)
    options.setdefault("source", SOURCE)
    hold = Hold() if kind is LeadKind.BOOKING and spam is None else None
    return add_lead_id(
        store, kind, dict(fields), claim_token=None, lease=LEASE, hold=hold, spam=spam, **options
    )

"""The booking desk of this backend process, from the settings, and its endpoints."""

import datetime as dt
from functools import lru_cache

from starlette.applications import Starlette

from agency_site.bookings import busy_feed
from agency_site.bookings.caps import pending_caps
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.link_secret import link_secrets
from agency_site.bookings.links import LinkSigner
from agency_site.bookings.pages import create_app
from agency_site.bookings.reschedule import MoveRules
from agency_site.content.site import SITE
from agency_site.forms.email import NOTICE, kind_params
from agency_site.leads.runtime import intake
from agency_site.settings import Settings, get_settings
from agency_site.working_calendar import default_calendar

VISITOR, AGENCY = "visitor", "agency"


@lru_cache(maxsize=1)
def desk() -> BookingDesk:
    """The desk on the intake's database and EmailJS account.

    Without a link secret (``link_secret.py``) no link can be made or checked (every link
    page says so); without ``EMAILJS_VISITOR_TEMPLATE_ID`` the visitor is not e-mailed, and the
    agency's pages say so.
    """
    settings = get_settings()
    the_intake = intake()
    client = the_intake.delivery.client
    templates = {
        VISITOR: settings.emailjs.visitor_template_id,
        AGENCY: settings.emailjs.contact_template_id,
    }

    async def send(template: str, params: dict[str, str]) -> bool:
        template_id = templates.get(template, "")
        if client is None or not template_id:
            return False
        if template == AGENCY:  # Through the agency template, in its notices' section.
            params = {"to_email": SITE.email} | params | kind_params(NOTICE)
        return (await client.send(template_id, params)).ok

    secrets = link_secrets(settings)
    return BookingDesk(
        engine=the_intake.store.engine,
        signer=LinkSigner(secrets) if secrets else None,
        send=send,
        calendar=default_calendar(),
        api_url=settings.reflex.api_url,
        site_url=settings.site_url,
        agency_link_days=settings.booking.link_days,
        daily_limit=settings.booking.daily_limit,
        busy=busy_feed.shared().busy,
        busy_shown_days=settings.booking.busy_shown_days,
        moves=move_rules(settings),
        caps=pending_caps(settings),
    )


def move_rules(settings: Settings) -> MoveRules:
    """When the visitors may move their bookings (``BOOKING_CHANGE_NOTICE_HOURS``,
    ``BOOKING_MAX_RESCHEDULES``, ``BOOKING_RECONFIRM_MOVES``)."""
    booking = settings.booking
    return MoveRules(
        notice=dt.timedelta(hours=booking.change_notice_hours),
        max_moves=booking.max_reschedules,
        reconfirm=booking.reconfirm_moves,
    )


def booking_api() -> Starlette:
    """``/_site/bookings/...``: the links' pages, the calendar file, the free slots."""
    return create_app(desk)

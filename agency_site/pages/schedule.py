"""The consultation booking page."""

import reflex as rx

from agency_site.components.forms import booking_form
from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.schedule import HERO


def page() -> rx.Component:
    """The consultation booking page."""
    return layout(hero(HERO), booking_form())

"""The Careers page."""

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.careers import HERO


def page() -> rx.Component:
    """The Careers page."""
    return layout(hero(HERO))

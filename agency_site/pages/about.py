"""The About page."""

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.about import HERO


def page() -> rx.Component:
    """The About page."""
    return layout(hero(HERO))

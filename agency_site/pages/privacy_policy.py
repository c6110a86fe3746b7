"""The privacy policy."""

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.legal import PRIVACY_HERO


def page() -> rx.Component:
    """The privacy policy."""
    return layout(hero(PRIVACY_HERO))

"""The cookie policy."""

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.legal import COOKIES_HERO


def page() -> rx.Component:
    """The cookie policy."""
    return layout(hero(COOKIES_HERO))

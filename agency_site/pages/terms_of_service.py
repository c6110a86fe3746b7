"""The terms and conditions."""

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.legal import TERMS_HERO


def page() -> rx.Component:
    """The terms and conditions."""
    return layout(hero(TERMS_HERO))

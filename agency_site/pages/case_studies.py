"""The case study list."""

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.case_studies import HERO


def page() -> rx.Component:
    """The case study list."""
    return layout(hero(HERO))

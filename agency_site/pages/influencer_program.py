"""The influencer programme landing."""

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.influencer import HERO


def page() -> rx.Component:
    """The influencer programme landing."""
    return layout(hero(HERO))

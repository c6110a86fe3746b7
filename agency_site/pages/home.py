"""The Home page."""

import reflex as rx

from agency_site.components.forms import hero_capture_form
from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.home import HERO


def page() -> rx.Component:
    """The Home page."""
    return layout(hero(HERO), hero_capture_form())

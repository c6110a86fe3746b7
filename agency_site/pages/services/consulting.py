"""The consulting service page."""

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.service_pages import HEROES


def page() -> rx.Component:
    """The consulting service page."""
    return layout(hero(HEROES["consulting"]))

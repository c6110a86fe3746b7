"""The terms and conditions."""

import reflex as rx

from agency_site.components.legal import legal_page
from agency_site.content.legal import TERMS


def page() -> rx.Component:
    """The terms and conditions."""
    return legal_page(TERMS)

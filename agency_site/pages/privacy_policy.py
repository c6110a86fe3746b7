"""The privacy policy."""

import reflex as rx

from agency_site.components.legal import legal_page
from agency_site.content.legal import PRIVACY


def page() -> rx.Component:
    """The privacy policy."""
    return legal_page(PRIVACY)

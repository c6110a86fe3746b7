"""The cookie policy."""

import reflex as rx

from agency_site.components.legal import legal_page
from agency_site.content.legal import COOKIES


def page() -> rx.Component:
    """The cookie policy."""
    return legal_page(COOKIES)

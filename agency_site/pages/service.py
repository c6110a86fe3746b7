"""A service page: its hero with buttons, highlight and claims, its sections in the order of
its file (``content/es/services/<id>.yaml``) and its closing band."""

import reflex as rx

from agency_site.components.actions import action_row
from agency_site.components.layout import layout
from agency_site.components.page_sections import page_sections
from agency_site.components.reveal import reveal_observer
from agency_site.components.sections import cta_band, hero, stat_grid
from agency_site.content.service_pages import ServicePage


def _highlight(text: str) -> rx.Component:
    """A short highlighted fact under the hero's buttons."""
    return rx.el.p(
        rx.icon("badge-check", size=20, aria_hidden="true", class_name="text-indigo-700"),
        text,
        class_name="mt-8 inline-flex items-center gap-2 rounded-full bg-indigo-100 px-4 py-2 "
        "text-sm font-semibold text-indigo-900",
    )


def _hero(content: ServicePage) -> rx.Component:
    """Hero with the page's buttons, highlight and claims."""
    return hero(
        content.hero,
        action_row(content.actions, class_name="mt-10"),
        _highlight(content.highlighted_fact) if content.highlight else rx.fragment(),
        stat_grid(content.stats, "boxed") if content.stats else rx.fragment(),
    )


def page(content: ServicePage) -> rx.Component:
    """A complete service page: hero, sections and closing call to action."""
    return layout(
        reveal_observer(),
        _hero(content),
        *page_sections(content.sections, reveal=True),
        cta_band("contacto", content.cta, centered=False, reveal=True),
    )

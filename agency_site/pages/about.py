"""The About page."""

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.media import image
from agency_site.components.sections import (
    card,
    check_list,
    cta_band,
    feature_grid,
    hero,
    icon_badge,
    section,
    stat_grid,
    step_number,
)
from agency_site.content import about
from agency_site.content.about import AboutPage
from agency_site.content.base import ServiceBlock


def _approach_step(number: int, block: ServiceBlock) -> rx.Component:
    """One phase of the method: its number, icon, title, description and key points."""
    return card(
        rx.el.div(
            icon_badge(block.icon),
            step_number(number),
            class_name="flex items-center justify-between",
        ),
        block.title,
        block.description,
        check_list(block.features, "mt-4 space-y-2 text-sm"),
    )


def page(content: AboutPage) -> rx.Component:
    """The About page."""
    return layout(
        hero(
            about.HERO,
            aside=image(about.HERO_IMAGE, eager=True, class_name="aspect-[3/2] w-full rounded-3xl"),
        ),
        section("cifras", about.STATS_HEADING, stat_grid(about.STATS), centered=True),
        section("valores", about.VALUES_HEADING, feature_grid(about.VALUES, 4), tone="muted"),
        section(
            "metodo",
            about.APPROACH_HEADING,
            rx.el.ol(
                *[
                    _approach_step(number, block)
                    for number, block in enumerate(about.APPROACH, start=1)
                ],
                class_name="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4",
            ),
        ),
        cta_band("mision", about.MISSION),
    )

"""Generic page sections: the hero every page opens with."""

import reflex as rx

from agency_site.components import styles
from agency_site.content.base import Hero


def hero(content: Hero, *children: rx.Component) -> rx.Component:
    """Page hero: eyebrow, the page's single h1, its introduction and optional actions."""
    return rx.el.section(
        rx.el.div(
            rx.el.p(content.eyebrow, class_name=styles.EYEBROW)
            if content.eyebrow
            else rx.fragment(),
            rx.el.h1(content.heading, class_name=styles.H1 + " mt-3"),
            rx.el.p(content.intro, class_name=styles.LEAD + " mt-6 max-w-3xl"),
            *children,
            class_name=styles.CONTAINER,
        ),
        class_name="bg-gradient-to-b from-indigo-50 to-white pt-32 pb-16 sm:pt-40 sm:pb-20",
    )

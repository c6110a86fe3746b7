"""The not-found page: every undeclared path (``/portfolio``, ``/blog``, unknown ids...)."""

import reflex as rx

from agency_site import paths
from agency_site.components import styles
from agency_site.components.actions import action_link
from agency_site.components.layout import layout
from agency_site.content.base import Action
from agency_site.content.not_found import NOT_FOUND


def page() -> rx.Component:
    """'Página no encontrada' with a way back home."""
    return layout(
        rx.el.section(
            rx.el.div(
                rx.el.p("404", class_name=styles.EYEBROW),
                rx.el.h1(NOT_FOUND.heading, class_name=styles.H1 + " mt-3"),
                rx.el.p(NOT_FOUND.intro, class_name=styles.LEAD + " mt-6"),
                action_link(
                    Action(label=NOT_FOUND.home_label, href=paths.HOME), class_name="mt-10"
                ),
                class_name=styles.CONTAINER + " flex flex-col items-start",
            ),
            class_name="bg-gradient-to-b from-indigo-50 to-white pt-40 pb-24",
        )
    )

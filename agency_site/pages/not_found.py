"""The not-found page: every undeclared path (``/portfolio``, ``/blog``, unknown ids...),
in the language of the path asked for (``/ca/...``: Catalan)."""

from collections.abc import Callable
from typing import Any

import reflex as rx

from agency_site import locale, paths
from agency_site.components import styles
from agency_site.components.actions import action_link
from agency_site.components.layout import layout
from agency_site.content.base import Action
from agency_site.content.not_found import NOT_FOUND
from agency_site.content.site import SITE
from agency_site.reflex_ext.page_language import is_language


def _page() -> rx.Component:
    """'Página no encontrada' with a way back home, in the language in use."""
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


def by_language(make: Callable[[], Any]) -> Any:
    """``make()`` in each language, shown by the language of the path asked for."""
    chosen = None
    for language in reversed(locale.LOCALES):
        with locale.active(language):
            made = make()
        # The default language last: the answer for every path not of another language.
        chosen = made if chosen is None else rx.cond(is_language(language), made, chosen)
    return chosen


def page() -> rx.Component:
    """The not-found page in the path's language."""
    return by_language(_page)


def title() -> rx.Var:
    """Its document title in the path's language."""
    return by_language(lambda: SITE.page_title(NOT_FOUND.heading))


def description() -> rx.Var:
    """Its description in the path's language."""
    return by_language(lambda: NOT_FOUND.description)

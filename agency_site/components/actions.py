"""Buttons that are links: one per ``Action``, styled for light or dark backgrounds."""

from collections.abc import Sequence
from typing import Literal

import reflex as rx

from agency_site.components import styles
from agency_site.content.layout import LAYOUT
from agency_site.content.sections import Action
from agency_site.locale import localized_path

Variant = Literal["primary", "secondary", "on_dark", "outline_on_dark"]

BUTTON_ON_DARK = (
    "inline-flex items-center justify-center gap-2 rounded-full bg-white px-6 py-3 "
    "font-semibold text-indigo-800 shadow-sm transition hover:bg-indigo-50 " + styles.FOCUS_RING
)
BUTTON_OUTLINE_ON_DARK = (
    "inline-flex items-center justify-center gap-2 rounded-full border border-white/80 px-6 "
    "py-3 font-semibold text-white transition hover:bg-white/10 " + styles.FOCUS_RING
)
_VARIANTS: dict[str, str] = {
    "primary": styles.BUTTON_PRIMARY,
    "secondary": styles.BUTTON_SECONDARY,
    "on_dark": BUTTON_ON_DARK,
    "outline_on_dark": BUTTON_OUTLINE_ON_DARK,
}


def new_tab_note() -> str:
    """What screen readers hear after a link that opens a new tab."""
    return f" ({LAYOUT.new_tab_note})"


def link(href: str, *children: rx.Component | str, class_name: str = "") -> rx.Component:
    """An ``<a>``; links to other sites open in a new tab and say so to screen readers; a
    link to a page leads to it in the language in use."""
    external = href.startswith("https://")
    return rx.el.a(
        *children,
        rx.el.span(new_tab_note(), class_name="sr-only") if external else rx.fragment(),
        href=localized_path(href),
        target="_blank" if external else None,
        rel="noopener noreferrer" if external else None,
        class_name=class_name,
    )


def action_link(action: Action, variant: Variant = "primary", class_name: str = "") -> rx.Component:
    """A link styled as a button, with its icon before the label."""
    return link(
        action.href,
        rx.icon(action.icon, size=18, aria_hidden="true") if action.icon else rx.fragment(),
        action.label,
        class_name=f"{_VARIANTS[variant]} {class_name}".strip(),
    )


def action_row(
    actions: Sequence[Action], variant: Variant = "primary", class_name: str = ""
) -> rx.Component:
    """Buttons side by side: the first in ``variant``, the rest as its secondary style."""
    secondary: Variant = (
        "outline_on_dark" if variant in ("on_dark", "outline_on_dark") else "secondary"
    )
    return rx.el.div(
        *[
            action_link(action, variant if index == 0 else secondary)
            for index, action in enumerate(actions)
        ],
        class_name=f"flex flex-wrap gap-3 {class_name}".strip(),
    )

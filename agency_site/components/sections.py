"""The sections every page is built from: hero, titled section, stats, cards, check lists, CTA band.

Every page's sections (``page_sections.py``) are drawn with these same pieces.
"""

from collections.abc import Sequence
from typing import Literal

import reflex as rx

from agency_site.components import styles
from agency_site.components.actions import action_row
from agency_site.components.reveal import REVEAL
from agency_site.content.base import Benefit, Hero, Stat
from agency_site.content.sections import CallToAction, SectionHeading

Tone = Literal["white", "muted", "dark"]
StatStyle = Literal["plain", "dark", "boxed"]

CARD_FRAME = "rounded-2xl border border-slate-200 bg-white shadow-sm"
CARD = CARD_FRAME + " p-6"
ICON_BADGE = "inline-flex h-12 w-12 shrink-0 items-center justify-center rounded-xl"
_TONES: dict[str, str] = {
    "white": "bg-white",
    "muted": "bg-slate-50",
    "dark": "bg-slate-900 text-white",
}
_EYEBROW_DARK = "text-sm font-semibold uppercase tracking-wider text-indigo-300"
_H2_DARK = "text-3xl font-bold tracking-tight text-white sm:text-4xl"
_LEAD_DARK = "text-lg leading-8 text-slate-300"
_STAT_COLUMNS: dict[int, str] = {3: "grid-cols-3", 4: "grid-cols-2 lg:grid-cols-4"}
# Per style: the list, each figure, its value and its label.
_STAT_CLASSES: dict[str, tuple[str, str, str, str]] = {
    "plain": (
        "mt-10 grid gap-6 sm:gap-8 ",
        "text-center",
        "text-3xl font-extrabold tracking-tight sm:text-4xl text-indigo-700",
        "mt-2 text-sm font-medium sm:text-base text-slate-700",
    ),
    "dark": (
        "mt-10 grid gap-6 sm:gap-8 ",
        "text-center",
        "text-3xl font-extrabold tracking-tight sm:text-4xl text-white",
        "mt-2 text-sm font-medium sm:text-base text-indigo-100",
    ),
    # Claims under a hero: each figure in its own small card, two then four abreast.
    "boxed": (
        "mt-12 grid gap-4 ",
        "min-w-0 break-words rounded-2xl border border-indigo-100 bg-white/80 p-5 shadow-sm",
        "text-3xl font-extrabold text-indigo-700",
        "mt-1 text-sm text-slate-700",
    ),
}
# Card grid columns by number of cards, so two or four cards never leave an orphan.
_GRID_COLUMNS: dict[int, str] = {
    2: "sm:grid-cols-2",
    3: "sm:grid-cols-2 lg:grid-cols-3",
    4: "sm:grid-cols-2 lg:grid-cols-4",
}
_CARD_TITLE = "text-lg font-semibold text-slate-900"


def hero(content: Hero, *children: rx.Component, aside: rx.Component | None = None) -> rx.Component:
    """Page hero: eyebrow, the page's single h1, its introduction, optional actions and aside."""
    text = rx.el.div(
        rx.el.p(content.eyebrow, class_name=styles.EYEBROW) if content.eyebrow else rx.fragment(),
        rx.el.h1(content.heading, class_name=styles.H1 + " mt-3"),
        rx.el.p(content.intro, class_name=styles.LEAD + " mt-6 max-w-3xl"),
        *children,
    )
    return rx.el.section(
        rx.el.div(
            rx.el.div(text, aside, class_name="grid items-center gap-12 lg:grid-cols-2")
            if aside is not None
            else text,
            class_name=styles.CONTAINER,
        ),
        class_name="bg-gradient-to-b from-indigo-50 to-white pt-32 pb-16 sm:pt-40 sm:pb-20",
    )


def section_heading(
    heading: SectionHeading, heading_id: str, *, centered: bool = False, dark: bool = False
) -> rx.Component:
    """The eyebrow, h2 and introduction that open a section."""
    return rx.el.div(
        rx.el.p(heading.eyebrow, class_name=styles.EYEBROW if not dark else _EYEBROW_DARK)
        if heading.eyebrow
        else rx.fragment(),
        rx.el.h2(
            heading.title,
            id=heading_id,
            class_name=(styles.H2 if not dark else _H2_DARK) + " mt-2",
        ),
        rx.el.p(heading.intro, class_name=(styles.LEAD if not dark else _LEAD_DARK) + " mt-4")
        if heading.intro
        else rx.fragment(),
        class_name="max-w-3xl" + (" mx-auto text-center" if centered else ""),
    )


def section(
    section_id: str,
    heading: SectionHeading | None,
    *children: rx.Component,
    tone: Tone = "white",
    centered: bool = False,
    reveal: bool = False,
) -> rx.Component:
    """A page section: its heading (labelling the region) and content, in a container;
    with ``reveal``, it fades in when scrolled into view."""
    heading_id = f"{section_id}-title"
    return rx.el.section(
        rx.el.div(
            section_heading(heading, heading_id, centered=centered, dark=tone == "dark")
            if heading
            else rx.fragment(),
            *children,
            class_name=styles.CONTAINER,
        ),
        id=section_id,
        aria_labelledby=heading_id if heading else None,
        class_name=f"{styles.SECTION} {_TONES[tone]} scroll-mt-16",
        **(REVEAL if reveal else {}),
    )


def stat_grid(stats: Sequence[Stat], style: StatStyle = "plain") -> rx.Component:
    """Headline figures side by side: the value large, its label below."""
    grid, item, value, label = _STAT_CLASSES[style]
    columns = _STAT_COLUMNS[4] if style == "boxed" else _STAT_COLUMNS[len(stats)]
    return rx.el.ul(
        *[
            rx.el.li(
                rx.el.p(stat.value, class_name=value),
                rx.el.p(stat.label, class_name=label),
                class_name=item,
            )
            for stat in stats
        ],
        class_name=grid + columns,
    )


def icon_badge(icon: str, class_name: str = "bg-indigo-100 text-indigo-700") -> rx.Component:
    """A lucide icon in a rounded square (decorative)."""
    return rx.el.span(
        rx.icon(icon, size=24, aria_hidden="true"), class_name=f"{ICON_BADGE} {class_name}"
    )


def card(
    top: rx.Component, title: str, description: str, *rest: rx.Component, class_name: str = ""
) -> rx.Component:
    """A card: its top row (an icon...), title, description and whatever follows."""
    return rx.el.li(
        top,
        rx.el.h3(title, class_name="mt-4 " + _CARD_TITLE),
        rx.el.p(description, class_name="mt-2 text-slate-600"),
        *rest,
        class_name=f"{CARD} {class_name}".strip(),
    )


def card_grid(cards: Sequence[rx.Component], columns: int | None = None) -> rx.Component:
    """Cards (``card``) in a responsive grid of ``columns``, by default as many as suit them."""
    count = columns or len(cards)
    return rx.el.ul(
        *cards, class_name=f"mt-10 grid gap-6 {_GRID_COLUMNS.get(count, _GRID_COLUMNS[3])}"
    )


def feature_grid(items: Sequence[Benefit], columns: int | None = None) -> rx.Component:
    """Cards with an icon, a title and a description."""
    return card_grid(
        [card(icon_badge(item.icon), item.title, item.description) for item in items], columns
    )


def step_number(number: int) -> rx.Component:
    """The large number of a step in an ordered list (the list already tells screen readers)."""
    return rx.el.span(
        f"{number:02d}",
        aria_hidden="true",
        class_name="text-3xl font-extrabold tracking-tight text-indigo-700",
    )


def check_list(
    items: Sequence[str], class_name: str = "mt-4 space-y-3", *, dark: bool = False
) -> rx.Component:
    """A list with a check mark before each item."""
    return rx.el.ul(
        *[
            rx.el.li(
                rx.icon(
                    "circle-check",
                    size=20,
                    aria_hidden="true",
                    class_name="mt-0.5 shrink-0 "
                    + ("text-indigo-300" if dark else "text-indigo-600"),
                ),
                rx.el.span(item),
                class_name="flex gap-3 " + ("text-slate-200" if dark else "text-slate-700"),
            )
            for item in items
        ],
        class_name=class_name,
    )


def cta_band(
    section_id: str, cta: CallToAction, *, centered: bool = True, reveal: bool = False
) -> rx.Component:
    """A closing call to action on an indigo band with its buttons, centred or flush left."""
    heading_id = f"{section_id}-title"
    return rx.el.section(
        rx.el.div(
            rx.el.div(
                rx.el.h2(cta.title, id=heading_id, class_name=_H2_DARK),
                rx.el.p(
                    cta.text,
                    class_name="mt-4 text-lg leading-8 text-indigo-100"
                    + ("" if centered else " max-w-2xl"),
                ),
                action_row(cta.actions, "on_dark", "mt-8 justify-center" if centered else "mt-8"),
                class_name="mx-auto max-w-3xl text-center" if centered else None,
            ),
            class_name=styles.CONTAINER,
        ),
        id=section_id,
        aria_labelledby=heading_id,
        class_name="bg-gradient-to-br from-indigo-700 to-violet-800 py-16 sm:py-20",
        **(REVEAL if reveal else {}),
    )

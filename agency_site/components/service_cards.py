"""Cards and buttons of the service pages: blocks, benefits, packs and training programmes."""

import reflex as rx

from agency_site.components import styles
from agency_site.components.sections import check_list
from agency_site.content.base import Benefit, Link, Pack, ServiceBlock
from agency_site.content.service_sections import Programme

CARD = "flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm"
H3 = "text-lg font-semibold text-slate-900"
BODY = "leading-7 text-slate-700"
ICON_BADGE = (
    "inline-flex h-12 w-12 shrink-0 items-center justify-center rounded-xl bg-indigo-50 "
    "text-indigo-700"
)
BUTTON_ON_DARK = (
    "inline-flex items-center justify-center gap-2 rounded-full bg-white px-6 py-3 "
    "font-semibold text-indigo-800 shadow-sm transition hover:bg-indigo-50 " + styles.FOCUS_RING
)
BUTTON_OUTLINE_ON_DARK = (
    "inline-flex items-center justify-center gap-2 rounded-full border border-white/70 px-6 "
    "py-3 font-semibold text-white transition hover:bg-white/10 " + styles.FOCUS_RING
)
# Grid columns by number of cards, so two or four cards never leave an orphan.
GRID_COLUMNS = {2: "md:grid-cols-2", 4: "md:grid-cols-2 xl:grid-cols-4"}
GRID_DEFAULT = "md:grid-cols-2 lg:grid-cols-3"


def card_grid(cards: list[rx.Component]) -> rx.Component:
    """Cards in a responsive grid whose columns suit their number."""
    return rx.el.div(
        *cards, class_name="mt-12 grid gap-6 " + GRID_COLUMNS.get(len(cards), GRID_DEFAULT)
    )


def button(link: Link, primary: bool, on_dark: bool = False, extra: str = "") -> rx.Component:
    """A link styled as a button."""
    if on_dark:
        class_name = BUTTON_ON_DARK if primary else BUTTON_OUTLINE_ON_DARK
    else:
        class_name = styles.BUTTON_PRIMARY if primary else styles.BUTTON_SECONDARY
    return rx.el.a(link.label, href=link.href, class_name=f"{class_name} {extra}".strip())


def buttons(links: tuple[Link, ...], on_dark: bool = False) -> rx.Component:
    """A row of buttons: the first one primary, the rest secondary."""
    return rx.el.div(
        *[button(link, index == 0, on_dark) for index, link in enumerate(links)],
        class_name="flex flex-wrap gap-4",
    )


def icon_badge(name: str) -> rx.Component:
    """A decorative icon in a soft square."""
    return rx.el.span(rx.icon(name, size=24, aria_hidden="true"), class_name=ICON_BADGE)


def card(top: rx.Component, title: str, description: str, *rest: rx.Component) -> rx.Component:
    """A card: its top row (icon...), title, description and whatever follows."""
    return rx.el.article(
        top,
        rx.el.h3(title, class_name=H3 + " mt-5"),
        rx.el.p(description, class_name=BODY + " mt-2"),
        *rest,
        class_name=CARD,
    )


def block_card(block: ServiceBlock) -> rx.Component:
    """A service block: icon, title, description and features."""
    return card(
        icon_badge(block.icon) if block.icon else rx.fragment(),
        block.title,
        block.description,
        check_list(block.features, "mt-5 space-y-3 text-sm") if block.features else rx.fragment(),
    )


def benefit_card(benefit: Benefit) -> rx.Component:
    """A benefit: icon, title and description."""
    return card(icon_badge(benefit.icon), benefit.title, benefit.description)


def pack_card(pack: Pack, highlight_label: str) -> rx.Component:
    """A priced pack with its features and button."""
    badge = (
        rx.el.p(
            highlight_label,
            class_name="absolute -top-3 left-6 rounded-full bg-indigo-700 px-3 py-1 text-xs "
            "font-semibold text-white",
        )
        if pack.highlighted and highlight_label
        else rx.fragment()
    )
    return rx.el.article(
        badge,
        rx.el.h3(pack.title, class_name=H3),
        rx.el.p(pack.price, class_name="mt-3 text-4xl font-extrabold text-slate-900"),
        check_list(pack.features, "mt-6 mb-8 space-y-3 text-sm"),
        button(pack.cta, pack.highlighted, extra="mt-auto w-full"),
        class_name=CARD
        + " relative"
        + (" ring-2 ring-indigo-700 lg:-translate-y-2" if pack.highlighted else ""),
    )


def programme_card(programme: Programme) -> rx.Component:
    """A training programme: icon, duration, title, description, topics and button."""
    return card(
        rx.el.div(
            icon_badge(programme.icon),
            rx.el.p(
                rx.icon("clock", size=16, aria_hidden="true"),
                programme.duration,
                class_name="inline-flex items-center gap-1.5 rounded-full bg-slate-100 px-3 "
                "py-1 text-sm font-semibold text-slate-800",
            ),
            class_name="flex items-center justify-between gap-4",
        ),
        programme.title,
        programme.description,
        check_list(programme.topics, "mt-5 mb-8 space-y-3 text-sm"),
        button(programme.cta, primary=False, extra="mt-auto w-full"),
    )

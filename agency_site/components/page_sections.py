"""The kinds of section a page is made of (``content/sections.py``), each drawn with the
site's pieces (``sections.py``)."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import reflex as rx

from agency_site.components.actions import action_link
from agency_site.components.media import image
from agency_site.components.sections import (
    CARD,
    card,
    card_grid,
    check_list,
    cta_band,
    feature_grid,
    icon_badge,
    section,
    stat_grid,
    step_number,
)
from agency_site.content.base import ServiceBlock
from agency_site.content.sections import (
    BandSection,
    BenefitsSection,
    BlocksSection,
    ChecklistsSection,
    FeaturesSection,
    GallerySection,
    NumberedSection,
    PacksSection,
    Programme,
    ProgrammesSection,
    Section,
    StatsBandSection,
    StatsSection,
    StepsSection,
)
from agency_site.content.services import Pack, price_label

PHOTO = "w-full rounded-2xl shadow-lg"
_H3 = "text-lg font-semibold text-slate-900"
_BODY = "leading-7 text-slate-700"


def _block_card(block: ServiceBlock) -> rx.Component:
    """A service block: icon, title, description and features."""
    return card(
        icon_badge(block.icon) if block.icon else rx.fragment(),
        block.title,
        block.description,
        check_list(block.features, "mt-5 space-y-3 text-sm") if block.features else rx.fragment(),
    )


def _pack_card(pack: Pack, highlight_label: str) -> rx.Component:
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
    return rx.el.li(
        badge,
        rx.el.h3(pack.title, class_name=_H3),
        rx.el.p(price_label(pack), class_name="mt-3 text-4xl font-extrabold text-slate-900"),
        check_list(pack.features, "mt-6 mb-8 space-y-3 text-sm"),
        action_link(pack.cta, "primary" if pack.highlighted else "secondary", "mt-auto w-full"),
        class_name=CARD
        + " relative flex flex-col"
        + (" ring-2 ring-indigo-700 lg:-translate-y-2" if pack.highlighted else ""),
    )


def _programme_card(programme: Programme) -> rx.Component:
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
        action_link(programme.cta, "secondary", "mt-auto w-full"),
        class_name="flex flex-col",  # The button at the bottom of every card of a row.
    )


def _photo(section: StepsSection | FeaturesSection) -> rx.Component:
    """The section's photo beside its text."""
    return image(
        section.image, "(min-width: 1024px) 36rem, 100vw", class_name=PHOTO + " aspect-[4/3]"
    )


def _blocks(section: BlocksSection) -> rx.Component:
    """A grid of service blocks."""
    return card_grid([_block_card(block) for block in section.blocks])


def _steps(section: StepsSection) -> rx.Component:
    """Numbered steps next to a photo."""
    return rx.el.div(
        rx.el.ol(
            *[
                rx.el.li(
                    rx.el.span(
                        str(number),
                        aria_hidden="true",
                        class_name="flex h-10 w-10 shrink-0 items-center justify-center "
                        "rounded-full bg-indigo-700 font-bold text-white",
                    ),
                    rx.el.div(
                        rx.el.h3(step.title, class_name=_H3),
                        rx.el.p(step.description, class_name=_BODY + " mt-1"),
                    ),
                    class_name="flex gap-4",
                )
                for number, step in enumerate(section.steps, start=1)
            ],
            class_name="space-y-8",
        ),
        _photo(section),
        class_name="mt-12 grid items-center gap-12 lg:grid-cols-2",
    )


def _benefits(section: BenefitsSection) -> rx.Component:
    """A grid of benefits."""
    return feature_grid(section.benefits)


def _features(section: FeaturesSection) -> rx.Component:
    """A two-column checklist, next to a photo when there is one."""
    checklist = check_list(
        section.features, "space-y-3 sm:grid sm:grid-cols-2 sm:gap-x-8 sm:space-y-0"
    )
    if section.image is None:
        return rx.el.div(checklist, class_name="mt-12")
    return rx.el.div(
        checklist, _photo(section), class_name="mt-12 grid items-center gap-12 lg:grid-cols-2"
    )


def _packs(section: PacksSection) -> rx.Component:
    """Priced packs and the help line under them."""
    help_line = (
        rx.el.div(
            rx.el.p(section.help_text, class_name="font-medium text-slate-800"),
            action_link(section.help_link, "secondary"),
            class_name="mt-12 flex flex-col items-center gap-4 text-center sm:flex-row "
            "sm:justify-center",
        )
        if section.help_link
        else rx.fragment()
    )
    return rx.el.div(
        rx.el.ul(
            *[_pack_card(pack, section.highlight_label) for pack in section.packs],
            class_name="mt-12 grid gap-8 lg:grid-cols-3",
        ),
        help_line,
    )


def _programmes(section: ProgrammesSection) -> rx.Component:
    """A grid of training programmes."""
    return card_grid([_programme_card(programme) for programme in section.programmes])


def _gallery(section: GallerySection) -> rx.Component:
    """A row of photos and the link to see more."""
    return rx.el.div(
        rx.el.div(
            *[
                image(
                    photo,
                    "(min-width: 640px) 33vw, 100vw",
                    class_name="aspect-square w-full rounded-2xl",
                )
                for photo in section.images
            ],
            class_name="mt-12 grid gap-6 sm:grid-cols-3",
        ),
        rx.el.div(action_link(section.cta), class_name="mt-10 flex justify-center")
        if section.cta
        else rx.fragment(),
    )


def _stats(section: StatsSection) -> rx.Component:
    """Headline figures side by side."""
    return stat_grid(section.stats)


def _numbered(section: NumberedSection) -> rx.Component:
    """Numbered cards in order: the number (beside the icon, if any), title, description, points."""
    return rx.el.ol(
        *[
            card(
                rx.el.div(
                    icon_badge(block.icon),
                    step_number(number),
                    class_name="flex items-center justify-between",
                )
                if block.icon
                else step_number(number),
                block.title,
                block.description,
                check_list(block.features, "mt-4 space-y-2 text-sm")
                if block.features
                else rx.fragment(),
            )
            for number, block in enumerate(section.numbered, start=1)
        ],
        class_name="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4",
    )


def _checklists(section: ChecklistsSection) -> rx.Component:
    """Titled cards of points side by side."""
    return rx.el.div(
        *[
            rx.el.div(
                rx.el.h3(checklist.title, class_name="text-xl font-semibold text-slate-900"),
                check_list(checklist.points),
                class_name=CARD + " sm:p-8",
            )
            for checklist in section.checklists
        ],
        class_name="mt-10 grid gap-6 md:grid-cols-2",
    )


def _stats_band(section: StatsBandSection, _section_id: str, _tone: str) -> rx.Component:
    """Figures on a dark band, with the note saying what they are."""
    return rx.el.section(
        rx.el.div(
            stat_grid(section.stats, "dark"),
            rx.el.p(section.note, class_name="mt-6 text-center text-sm text-indigo-100"),
            class_name="mx-auto max-w-4xl px-4 sm:px-6",
        ),
        aria_label=section.note,
        class_name="bg-indigo-800 pt-6 pb-12",
    )


def _band(section: BandSection, section_id: str, _tone: str) -> rx.Component:
    """A centred call to action on an indigo band."""
    return cta_band(section_id, section)


# How each kind of section is drawn: its body under its heading, in a section of the page...
BODIES: dict[type, Callable[[Any], rx.Component]] = {
    BlocksSection: _blocks,
    StepsSection: _steps,
    BenefitsSection: _benefits,
    FeaturesSection: _features,
    PacksSection: _packs,
    ProgrammesSection: _programmes,
    GallerySection: _gallery,
    StatsSection: _stats,
    NumberedSection: _numbered,
    ChecklistsSection: _checklists,
}
# ... or whole, given its anchor and background (bands, and page-specific kinds).
WHOLE: dict[type, Callable[[Any, str, str], rx.Component]] = {
    StatsBandSection: _stats_band,
    BandSection: _band,
}


def page_sections(
    sections: Sequence[Section],
    *,
    reveal: bool = False,
    bodies: Mapping[type, Callable[[Any], rx.Component]] | None = None,
    whole: Mapping[type, Callable[[Any, str, str], rx.Component]] | None = None,
) -> list[rx.Component]:
    """A page's sections in order. Those drawn under a heading are numbered (their default
    anchor, ``seccion-<n>``) and alternate their backgrounds unless they name theirs; with
    ``reveal``, they fade in when scrolled into view. ``bodies`` and ``whole``: how the
    page's own kinds are drawn."""
    drawers = {**WHOLE, **(whole or {})}
    under_heading = {**BODIES, **(bodies or {})}
    shown, count = [], 0
    for item in sections:
        section_id = item.id or f"seccion-{count + 1}"
        tone = item.tone or ("muted" if count % 2 else "white")
        if type(item) in drawers:
            shown.append(drawers[type(item)](item, section_id, tone))
            continue
        count += 1
        shown.append(
            section(
                section_id,
                item,
                under_heading[type(item)](item),
                tone=tone,
                centered=isinstance(item, StatsSection),
                reveal=reveal,
            )
        )
    return shown

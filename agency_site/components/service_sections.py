"""The sections a service page is made of (``content/service_sections.py``), each drawn with
the site's pieces (``sections.py``); the page itself is ``pages/service.py``."""

import reflex as rx

from agency_site.components.actions import action_link
from agency_site.components.media import image
from agency_site.components.sections import (
    CARD,
    card,
    card_grid,
    check_list,
    icon_badge,
    section,
)
from agency_site.content.base import ServiceBlock
from agency_site.content.service_sections import (
    BenefitsSection,
    BlocksSection,
    FeaturesSection,
    GallerySection,
    PacksSection,
    PageSection,
    Programme,
    ProgrammesSection,
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
    return card_grid([card(icon_badge(b.icon), b.title, b.description) for b in section.benefits])


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


_BODIES = {
    BlocksSection: _blocks,
    StepsSection: _steps,
    BenefitsSection: _benefits,
    FeaturesSection: _features,
    PacksSection: _packs,
    ProgrammesSection: _programmes,
    GallerySection: _gallery,
}


def page_section(page_section: PageSection, index: int) -> rx.Component:
    """A page section that fades in when scrolled into view; backgrounds alternate."""
    return section(
        f"seccion-{index + 1}",
        page_section,
        _BODIES[type(page_section)](page_section),
        tone="muted" if index % 2 else "white",
        reveal=True,
    )

"""The nine service pages: one set of sections, fed each page's data from ``content``."""

from collections.abc import Callable

import reflex as rx

from agency_site.components import styles
from agency_site.components.layout import layout
from agency_site.components.media import image
from agency_site.components.reveal import REVEAL, reveal_observer
from agency_site.components.sections import check_list, hero
from agency_site.components.service_cards import (
    BODY,
    H3,
    benefit_card,
    block_card,
    button,
    buttons,
    card_grid,
    pack_card,
    programme_card,
)
from agency_site.content.base import Stat
from agency_site.content.service_pages import SERVICE_PAGES
from agency_site.content.service_sections import (
    BenefitsSection,
    BlocksSection,
    CtaBand,
    FeaturesSection,
    GallerySection,
    PacksSection,
    PageSection,
    ProgrammesSection,
    Section,
    ServicePage,
    StepsSection,
)

PHOTO = "w-full rounded-2xl shadow-lg"


def _stats(stats: tuple[Stat, ...]) -> rx.Component:
    """The claims strip under the hero's buttons."""
    return rx.el.div(
        *[
            rx.el.div(
                rx.el.p(stat.value, class_name="text-3xl font-extrabold text-indigo-700"),
                rx.el.p(stat.label, class_name="mt-1 text-sm text-slate-700"),
                class_name="min-w-0 break-words rounded-2xl border border-indigo-100 bg-white/80 "
                "p-5 shadow-sm",
            )
            for stat in stats
        ],
        class_name="mt-12 grid grid-cols-2 gap-4 lg:grid-cols-4",
    )


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
        rx.el.div(buttons(content.actions), class_name="mt-10"),
        _highlight(content.highlight) if content.highlight else rx.fragment(),
        _stats(content.stats) if content.stats else rx.fragment(),
    )


def _blocks(section: BlocksSection) -> rx.Component:
    """A grid of service blocks."""
    return card_grid([block_card(block) for block in section.blocks])


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
                        rx.el.h3(step.title, class_name=H3),
                        rx.el.p(step.description, class_name=BODY + " mt-1"),
                    ),
                    class_name="flex gap-4",
                )
                for number, step in enumerate(section.steps, start=1)
            ],
            class_name="space-y-8",
        ),
        image(
            section.image,
            "(min-width: 1024px) 36rem, 100vw",
            class_name=PHOTO + " aspect-[4/3]",
        ),
        class_name="mt-12 grid items-center gap-12 lg:grid-cols-2",
    )


def _benefits(section: BenefitsSection) -> rx.Component:
    """A grid of benefits."""
    return card_grid([benefit_card(benefit) for benefit in section.benefits])


def _features(section: FeaturesSection) -> rx.Component:
    """A two-column checklist, next to a photo when there is one."""
    checklist = check_list(
        section.features, "space-y-3 sm:grid sm:grid-cols-2 sm:gap-x-8 sm:space-y-0"
    )
    if section.image is None:
        return rx.el.div(checklist, class_name="mt-12")
    return rx.el.div(
        checklist,
        image(
            section.image,
            "(min-width: 1024px) 36rem, 100vw",
            class_name=PHOTO + " aspect-[4/3]",
        ),
        class_name="mt-12 grid items-center gap-12 lg:grid-cols-2",
    )


def _packs(section: PacksSection) -> rx.Component:
    """Priced packs and the help line under them."""
    help_line = (
        rx.el.div(
            rx.el.p(section.help_text, class_name="font-medium text-slate-800"),
            button(section.help_link, primary=False),
            class_name="mt-12 flex flex-col items-center gap-4 text-center sm:flex-row "
            "sm:justify-center",
        )
        if section.help_link
        else rx.fragment()
    )
    return rx.el.div(
        rx.el.div(
            *[pack_card(pack, section.highlight_label) for pack in section.packs],
            class_name="mt-12 grid gap-8 lg:grid-cols-3",
        ),
        help_line,
    )


def _programmes(section: ProgrammesSection) -> rx.Component:
    """A grid of training programmes."""
    return card_grid([programme_card(programme) for programme in section.programmes])


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
        rx.el.div(button(section.cta, primary=True), class_name="mt-10 flex justify-center")
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


def _header(section: Section) -> rx.Component:
    """Eyebrow, heading and introduction of a section."""
    return rx.el.div(
        rx.el.p(section.eyebrow, class_name=styles.EYEBROW) if section.eyebrow else rx.fragment(),
        rx.el.h2(section.heading, class_name=styles.H2 + " mt-2"),
        rx.el.p(section.intro, class_name=styles.LEAD + " mt-4")
        if section.intro
        else rx.fragment(),
        class_name="max-w-3xl",
    )


def _section(section: PageSection, index: int) -> rx.Component:
    """A page section that fades in when scrolled into view; backgrounds alternate."""
    return rx.el.section(
        rx.el.div(_header(section), _BODIES[type(section)](section), class_name=styles.CONTAINER),
        class_name=styles.SECTION + (" bg-slate-50" if index % 2 else " bg-white"),
        **REVEAL,
    )


def _cta_band(cta: CtaBand) -> rx.Component:
    """The closing call to action."""
    return rx.el.section(
        rx.el.div(
            rx.el.h2(cta.heading, class_name="text-3xl font-bold tracking-tight sm:text-4xl"),
            rx.el.p(cta.text, class_name="mt-4 max-w-2xl text-lg leading-8 text-indigo-100"),
            rx.el.div(buttons(cta.actions, on_dark=True), class_name="mt-8"),
            class_name=styles.CONTAINER + " text-white",
        ),
        class_name="bg-gradient-to-br from-indigo-700 to-violet-800 py-16 sm:py-20",
        **REVEAL,
    )


def service_page(content: ServicePage) -> rx.Component:
    """A complete service page: hero, sections and closing call to action."""
    return layout(
        reveal_observer(),
        _hero(content),
        *[_section(section, index) for index, section in enumerate(content.sections)],
        _cta_band(content.cta),
    )


def page_for(service_id: str) -> Callable[[], rx.Component]:
    """The page function of one service (``KeyError`` for an unknown id)."""
    content = SERVICE_PAGES[service_id]

    def page() -> rx.Component:
        return service_page(content)

    page.__name__ = f"service_{service_id.replace('-', '_')}"
    return page

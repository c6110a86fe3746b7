"""The case study list."""

import reflex as rx

from agency_site import paths
from agency_site.components import styles
from agency_site.components.case_study import client_facts, metric_summary, tag_list
from agency_site.components.layout import layout
from agency_site.components.media import image
from agency_site.components.sections import CARD_FRAME, cta_band, hero
from agency_site.content import case_studies
from agency_site.content.case_studies import CASE_STUDIES, CaseStudiesPage, CaseStudy
from agency_site.locale import localized_path

_BLOCK_TITLE = "text-sm font-semibold uppercase tracking-wider text-indigo-700"


def _case_card(case: CaseStudy, first: bool) -> rx.Component:
    """A case: photo, tags, client, challenge, solution, three results and the link to it.
    The first card's photo is on a phone's first screen: fetched at once, not lazily."""
    return rx.el.li(
        rx.el.article(
            image(
                case.image,
                "(min-width: 1024px) 40vw, 100vw",
                eager=first,
                class_name="h-56 w-full lg:col-span-2 lg:h-full",
            ),
            rx.el.div(
                tag_list(case.tags),
                rx.el.h2(case.title, class_name="mt-4 text-2xl font-bold text-slate-900"),
                client_facts(case, "mt-2"),
                rx.el.div(
                    rx.el.div(
                        rx.el.h3(case_studies.PAGE.labels.challenge, class_name=_BLOCK_TITLE),
                        rx.el.p(case.challenge, class_name="mt-2 text-slate-700"),
                    ),
                    rx.el.div(
                        rx.el.h3(case_studies.PAGE.labels.solution, class_name=_BLOCK_TITLE),
                        rx.el.p(case.solution, class_name="mt-2 text-slate-700"),
                    ),
                    class_name="mt-6 grid gap-6 md:grid-cols-2",
                ),
                rx.el.h3(case_studies.PAGE.labels.results, class_name=_BLOCK_TITLE + " mt-6"),
                rx.el.div(metric_summary(case.results), class_name="mt-3"),
                rx.el.a(
                    case_studies.PAGE.labels.read_more,
                    rx.el.span(f": {case.title}", class_name="sr-only"),
                    rx.icon("arrow-right", size=18, aria_hidden="true"),
                    href=localized_path(paths.case_study(case.id)),
                    class_name=styles.BUTTON_PRIMARY + " mt-8",
                ),
                class_name="p-6 sm:p-8 lg:col-span-3",
            ),
            id=f"caso-{case.id}",
            class_name=CARD_FRAME + " grid overflow-hidden lg:grid-cols-5",
        ),
    )


def page(content: CaseStudiesPage) -> rx.Component:
    """The case study list."""
    return layout(
        hero(content.hero),
        rx.el.section(
            rx.el.ul(
                *[_case_card(case, first=index == 0) for index, case in enumerate(CASE_STUDIES)],
                class_name=styles.CONTAINER + " space-y-10",
            ),
            aria_label=content.hero.eyebrow,
            class_name="pb-16 sm:pb-20",
        ),
        cta_band("consulta", content.list_cta),
    )

"""A case study detail page (one static route per case id)."""

import reflex as rx

from agency_site import paths
from agency_site.components import styles
from agency_site.components.cards import quote_card
from agency_site.components.case_study import client_facts, metric_cards, tag_list
from agency_site.components.layout import layout
from agency_site.components.media import image
from agency_site.components.sections import check_list, cta_band, hero, section
from agency_site.content import case_studies
from agency_site.content.base import Hero
from agency_site.content.case_studies import CaseStudy
from agency_site.content.sections import SectionHeading
from agency_site.locale import localized_path

_QUOTE_CARD = "rounded-2xl border border-indigo-100 bg-indigo-50 p-6 sm:p-8"
_BACK_LINK = (
    "inline-flex items-center gap-2 text-sm font-semibold text-indigo-700 hover:text-indigo-900 "
    + styles.FOCUS_RING
)


def _story(case: CaseStudy) -> rx.Component:
    """The challenge, and the solution with what was done point by point."""
    return rx.el.div(
        rx.el.div(
            rx.el.h2(case_studies.PAGE.labels.challenge, class_name=styles.H2),
            rx.el.p(case.challenge, class_name=styles.LEAD + " mt-4"),
        ),
        rx.el.div(
            rx.el.h2(case_studies.PAGE.labels.solution, class_name=styles.H2),
            rx.el.p(case.solution, class_name=styles.LEAD + " mt-4"),
            rx.el.h3(
                case_studies.PAGE.labels.solution_points, class_name="mt-8 text-lg font-semibold"
            ),
            check_list(case.solution_points),
        ),
        class_name="grid gap-12 lg:grid-cols-2",
    )


def _outcome(case: CaseStudy) -> rx.Component:
    """The key achievements next to what the client says."""
    return rx.el.div(
        rx.el.div(
            rx.el.h2(case_studies.PAGE.labels.achievements, class_name=styles.H2),
            check_list(case.key_achievements, "mt-6 space-y-4 text-lg"),
        ),
        rx.el.div(
            rx.el.h2(case_studies.PAGE.labels.testimonial, class_name="sr-only"),
            quote_card(
                case.testimonial.quote,
                case.testimonial.author,
                case.testimonial.role,
                case.testimonial.image,
                rx.icon("quote", size=32, aria_hidden="true", class_name="text-indigo-300"),
                class_name=_QUOTE_CARD,
            ),
        ),
        class_name="grid items-start gap-12 lg:grid-cols-2",
    )


def page(case: CaseStudy) -> rx.Component:
    """The whole detail page of ``case``."""
    return layout(
        hero(
            Hero(eyebrow=case_studies.PAGE.labels.eyebrow, heading=case.title, intro=case.subtitle),
            client_facts(case, "mt-6"),
            rx.el.div(tag_list(case.tags), class_name="mt-4"),
            rx.el.a(
                rx.icon("arrow-left", size=16, aria_hidden="true"),
                case_studies.PAGE.labels.back,
                href=localized_path(paths.CASE_STUDIES),
                class_name=_BACK_LINK + " mt-8",
            ),
            aside=image(case.image, eager=True, class_name="aspect-[3/2] w-full rounded-3xl"),
        ),
        rx.el.section(
            rx.el.div(_story(case), class_name=styles.CONTAINER),
            aria_label=case_studies.PAGE.labels.overview,
            class_name=styles.SECTION,
        ),
        section(
            "resultados",
            SectionHeading(title=case_studies.PAGE.labels.results),
            metric_cards(case.results),
            tone="muted",
        ),
        rx.el.section(
            rx.el.div(_outcome(case), class_name=styles.CONTAINER),
            aria_label=case_studies.PAGE.labels.achievements,
            class_name=styles.SECTION,
        ),
        cta_band("consulta", case_studies.PAGE.detail_cta),
    )

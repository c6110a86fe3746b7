"""A case study detail page (one static route per case id)."""

from collections.abc import Callable

import reflex as rx

from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.base import Hero
from agency_site.content.case_studies import CaseStudy


def page_for(case: CaseStudy) -> Callable[[], rx.Component]:
    """The page function of one case study."""

    def page() -> rx.Component:
        return layout(hero(Hero(eyebrow="Caso de éxito", heading=case.title, intro=case.subtitle)))

    page.__name__ = f"case_study_{case.id.replace('-', '_')}"
    return page

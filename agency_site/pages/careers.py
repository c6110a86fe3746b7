"""The Careers page: a page of sections, two of its own kinds (the positions, the band
inviting a spontaneous application)."""

import reflex as rx

from agency_site.components.actions import action_link
from agency_site.components.sections import CARD, check_list, cta_band
from agency_site.content.careers import (
    CAREERS,
    ApplicationSection,
    CareersPage,
    JobPosting,
    PositionsSection,
)
from agency_site.pages import sections_page


def _job_facts(job: JobPosting) -> rx.Component:
    """Department, location, working hours and salary of a position."""
    facts = (
        ("building-2", CAREERS.job_labels.department, job.department),
        ("map-pin", CAREERS.job_labels.location, CAREERS.location(job)),
        ("clock", CAREERS.job_labels.type, CAREERS.contract(job)),
        ("wallet", CAREERS.job_labels.salary, job.salary),
    )
    return rx.el.dl(
        *[
            rx.el.div(
                rx.el.dt(
                    rx.icon(icon, size=16, aria_hidden="true", class_name="text-indigo-600"),
                    rx.el.span(label, class_name="sr-only"),
                ),
                rx.el.dd(value),
                class_name="flex items-center gap-2",
            )
            for icon, label, value in facts
        ],
        class_name="mt-3 flex flex-wrap gap-x-6 gap-y-2 text-sm font-medium text-slate-700",
    )


def _job_card(job: JobPosting) -> rx.Component:
    """An open position: facts, description, requirements, benefits and 'Aplicar ahora'."""
    return rx.el.li(
        rx.el.article(
            rx.el.h3(job.title, class_name="text-2xl font-bold text-slate-900"),
            _job_facts(job),
            rx.el.p(job.description, class_name="mt-4 text-slate-700"),
            rx.el.div(
                rx.el.div(
                    rx.el.h4(
                        CAREERS.job_labels.requirements, class_name="font-semibold text-slate-900"
                    ),
                    check_list(job.requirements, "mt-3 space-y-2 text-sm"),
                ),
                rx.el.div(
                    rx.el.h4(
                        CAREERS.job_labels.benefits, class_name="font-semibold text-slate-900"
                    ),
                    check_list(job.benefits, "mt-3 space-y-2 text-sm"),
                ),
                class_name="mt-6 grid gap-6 md:grid-cols-2",
            ),
            action_link(CAREERS.apply(job), "primary", "mt-8"),
            id=f"puesto-{job.id}",
            class_name=CARD + " sm:p-8",
        ),
    )


def _positions(section: PositionsSection) -> rx.Component:
    """The open positions, one card each."""
    return rx.el.ul(*[_job_card(job) for job in section.positions], class_name="mt-10 space-y-8")


def _application(section: ApplicationSection, section_id: str, _tone: str) -> rx.Component:
    """The band inviting a spontaneous application."""
    return cta_band(section_id, section.cta)


def page(content: CareersPage) -> rx.Component:
    """The Careers page: a page of sections, with the positions and the application band."""
    return sections_page.page(
        content,
        bodies={PositionsSection: _positions},
        whole={ApplicationSection: _application},
    )

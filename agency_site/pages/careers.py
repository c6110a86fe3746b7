"""The Careers page."""

import reflex as rx

from agency_site.components.actions import action_link, action_row
from agency_site.components.layout import layout
from agency_site.components.media import image
from agency_site.components.sections import (
    CARD,
    check_list,
    cta_band,
    feature_grid,
    hero,
    section,
)
from agency_site.content.careers import CAREERS, POSITIONS_ANCHOR, CareersPage, JobPosting

JOB_LABELS = CAREERS.job_labels


def _job_facts(job: JobPosting) -> rx.Component:
    """Department, location, working hours and salary of a position."""
    facts = (
        ("building-2", JOB_LABELS.department, job.department),
        ("map-pin", JOB_LABELS.location, job.location),
        ("clock", JOB_LABELS.type, job.type),
        ("wallet", JOB_LABELS.salary, job.salary),
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
                    rx.el.h4(JOB_LABELS.requirements, class_name="font-semibold text-slate-900"),
                    check_list(job.requirements, "mt-3 space-y-2 text-sm"),
                ),
                rx.el.div(
                    rx.el.h4(JOB_LABELS.benefits, class_name="font-semibold text-slate-900"),
                    check_list(job.benefits, "mt-3 space-y-2 text-sm"),
                ),
                class_name="mt-6 grid gap-6 md:grid-cols-2",
            ),
            action_link(job.apply, "primary", "mt-8"),
            id=f"puesto-{job.id}",
            class_name=CARD + " sm:p-8",
        ),
    )


def page(content: CareersPage) -> rx.Component:
    """The Careers page."""
    return layout(
        hero(
            CAREERS.hero,
            action_row((CAREERS.hero_action,), class_name="mt-8"),
            aside=image(
                CAREERS.hero_image, eager=True, class_name="aspect-[3/2] w-full rounded-3xl"
            ),
        ),
        section("beneficios", CAREERS.benefits_heading, feature_grid(CAREERS.benefits, 4)),
        section(
            POSITIONS_ANCHOR,
            CAREERS.positions_heading,
            rx.el.ul(*[_job_card(job) for job in CAREERS.positions], class_name="mt-10 space-y-8"),
            tone="muted",
        ),
        cta_band("cv-espontaneo", CAREERS.spontaneous.cta),
    )

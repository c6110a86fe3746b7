"""Pieces of the case study pages: tags, client facts and result metrics."""

from collections.abc import Sequence

import reflex as rx

from agency_site.components.sections import CARD, icon_badge
from agency_site.content import case_studies
from agency_site.content.case_studies import CaseMetric, CaseStudy


def tag_list(tags: Sequence[str]) -> rx.Component:
    """The case's tags as small pills."""
    return rx.el.ul(
        *[
            rx.el.li(
                tag,
                class_name="rounded-full bg-indigo-50 px-3 py-1 text-xs font-semibold "
                "text-indigo-800 ring-1 ring-indigo-200",
            )
            for tag in tags
        ],
        class_name="flex flex-wrap gap-2",
    )


def client_facts(case: CaseStudy, class_name: str = "") -> rx.Component:
    """Who the client is and their industry."""
    return rx.el.dl(
        *[
            rx.el.div(
                rx.el.dt(label, class_name="text-slate-600"),
                rx.el.dd(value, class_name="font-semibold text-slate-900"),
                class_name="flex gap-1.5",
            )
            for label, value in (
                (case_studies.PAGE.labels.client, case.client),
                (case_studies.PAGE.labels.industry, case.industry),
            )
        ],
        class_name=f"flex flex-wrap gap-x-6 gap-y-1 text-sm {class_name}".strip(),
    )


def metric_summary(results: Sequence[CaseMetric]) -> rx.Component:
    """The three results of a case in a compact row: icon, value and label."""
    return rx.el.ul(
        *[
            rx.el.li(
                rx.icon(metric.icon, size=20, aria_hidden="true", class_name="text-indigo-600"),
                rx.el.p(
                    metric.value,
                    class_name="whitespace-nowrap text-2xl font-extrabold text-slate-900 sm:mt-2",
                ),
                rx.el.p(metric.label, class_name="text-sm text-slate-600"),
                class_name="flex items-center gap-3 rounded-xl bg-slate-50 p-4 sm:block",
            )
            for metric in results
        ],
        class_name="grid gap-3 sm:grid-cols-3",
    )


def metric_cards(results: Sequence[CaseMetric]) -> rx.Component:
    """The results of a case as cards: icon, value, label and how it was reached."""
    return rx.el.ul(
        *[
            rx.el.li(
                icon_badge(metric.icon),
                rx.el.p(
                    metric.value,
                    class_name="mt-4 text-4xl font-extrabold tracking-tight text-indigo-700",
                ),
                rx.el.h3(metric.label, class_name="mt-1 text-lg font-semibold text-slate-900"),
                rx.el.p(metric.description, class_name="mt-2 text-slate-600"),
                class_name=CARD,
            )
            for metric in results
        ],
        class_name="mt-10 grid gap-6 md:grid-cols-3",
    )

"""The consultation booking page: the form, and what to expect next to it."""

import reflex as rx

from agency_site.components import styles
from agency_site.components.contact import contact_links
from agency_site.components.forms import booking_form
from agency_site.components.layout import layout
from agency_site.components.sections import CARD, hero
from agency_site.content import schedule
from agency_site.content.contact import CONTACT_METHODS
from agency_site.content.schedule import SchedulePage

_ASIDE_TITLE = "text-lg font-semibold text-slate-900"


def _facts() -> rx.Component:
    """Duration, format and price of the consultation."""
    return rx.el.dl(
        *[
            rx.el.div(
                rx.el.dt(
                    rx.icon(fact.icon, size=18, aria_hidden="true", class_name="text-indigo-600"),
                    fact.label,
                    class_name="flex items-center gap-2 text-sm font-medium text-slate-600",
                ),
                rx.el.dd(fact.value, class_name="mt-1 pl-7 font-semibold text-slate-900"),
            )
            for fact in schedule.FACTS
        ],
        class_name="space-y-4",
    )


def _agenda() -> rx.Component:
    """What happens during the consultation."""
    return rx.el.div(
        rx.el.h2(schedule.AGENDA_HEADING.title, class_name=_ASIDE_TITLE),
        rx.el.ol(
            *[
                rx.el.li(
                    rx.icon(
                        item.icon,
                        size=20,
                        aria_hidden="true",
                        class_name="mt-0.5 shrink-0 text-indigo-600",
                    ),
                    rx.el.div(
                        rx.el.h3(item.title, class_name="font-semibold text-slate-900"),
                        rx.el.p(item.description, class_name="mt-1 text-sm text-slate-600"),
                    ),
                    class_name="flex gap-3",
                )
                for item in schedule.AGENDA
            ],
            class_name="mt-4 space-y-4",
        ),
    )


def _alternatives() -> rx.Component:
    """Other ways to reach the agency."""
    heading = schedule.ALTERNATIVES_HEADING
    return rx.el.div(
        rx.el.h2(heading.title, class_name=_ASIDE_TITLE),
        rx.el.p(heading.intro, class_name="mt-1 text-sm text-slate-600"),
        contact_links(CONTACT_METHODS),
    )


def page(content: SchedulePage) -> rx.Component:
    """The consultation booking page."""
    return layout(
        hero(schedule.HERO),
        rx.el.section(
            rx.el.div(
                rx.el.div(
                    rx.el.h2(
                        schedule.FORM_HEADING.title,
                        id="reserva-title",
                        class_name="text-2xl font-bold text-slate-900",
                    ),
                    rx.el.p(schedule.FORM_HEADING.intro, class_name="mt-2 text-slate-600"),
                    rx.el.div(booking_form(), class_name="mt-8"),
                    class_name=CARD + " sm:p-8 lg:col-span-3",
                ),
                rx.el.aside(
                    rx.el.div(_facts(), class_name=CARD),
                    rx.el.div(_agenda(), class_name=CARD),
                    rx.el.div(_alternatives(), class_name=CARD),
                    aria_label=schedule.ASIDE_LABEL,
                    class_name="space-y-6 lg:col-span-2",
                ),
                class_name=styles.CONTAINER + " grid items-start gap-8 lg:grid-cols-5",
            ),
            aria_labelledby="reserva-title",
            class_name="pb-16 sm:pb-20",
        ),
    )

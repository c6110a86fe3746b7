"""The consultation booking page: a page of sections, one of its own kind: the booking form,
and what to expect next to it."""

import reflex as rx

from agency_site.components import styles
from agency_site.components.contact import contact_links
from agency_site.components.form_layouts import booking_form
from agency_site.components.sections import CARD
from agency_site.content.contact import PAGE as CONTACT_PAGE
from agency_site.content.schedule import BookingFormSection, SchedulePage
from agency_site.pages import sections_page

_ASIDE_TITLE = "text-lg font-semibold text-slate-900"


def _facts(booking: BookingFormSection) -> rx.Component:
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
            for fact in booking.facts
        ],
        class_name="space-y-4",
    )


def _agenda(booking: BookingFormSection) -> rx.Component:
    """What happens during the consultation."""
    return rx.el.div(
        rx.el.h2(booking.agenda_heading.title, class_name=_ASIDE_TITLE),
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
                for item in booking.agenda
            ],
            class_name="mt-4 space-y-4",
        ),
    )


def _alternatives(booking: BookingFormSection) -> rx.Component:
    """Other ways to reach the agency."""
    heading = booking.alternatives_heading
    return rx.el.div(
        rx.el.h2(heading.title, class_name=_ASIDE_TITLE),
        rx.el.p(heading.intro, class_name="mt-1 text-sm text-slate-600"),
        contact_links(CONTACT_PAGE.contact_methods),
    )


def _booking(booking: BookingFormSection, section_id: str, _tone: str) -> rx.Component:
    """The booking form in its card, with what to expect beside it."""
    heading_id = f"{section_id}-title"
    return rx.el.section(
        rx.el.div(
            rx.el.div(
                rx.el.h2(
                    booking.title, id=heading_id, class_name="text-2xl font-bold text-slate-900"
                ),
                rx.el.p(booking.intro, class_name="mt-2 text-slate-600"),
                rx.el.div(booking_form(), class_name="mt-8"),
                class_name=CARD + " sm:p-8 lg:col-span-3",
            ),
            rx.el.aside(
                rx.el.div(_facts(booking), class_name=CARD),
                rx.el.div(_agenda(booking), class_name=CARD),
                rx.el.div(_alternatives(booking), class_name=CARD),
                aria_label=booking.aside_label,
                class_name="space-y-6 lg:col-span-2",
            ),
            class_name=styles.CONTAINER + " grid items-start gap-8 lg:grid-cols-5",
        ),
        aria_labelledby=heading_id,
        class_name="pb-16 sm:pb-20",
    )


def page(content: SchedulePage) -> rx.Component:
    """The consultation booking page: a page of sections, one of them the booking form."""
    return sections_page.page(content, whole={BookingFormSection: _booking})

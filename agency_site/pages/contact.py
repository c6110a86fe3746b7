"""The Contact page."""

import reflex as rx

from agency_site.components import styles
from agency_site.components.actions import action_link
from agency_site.components.contact import contact_cards, office_card, response_badge
from agency_site.components.form_layouts import quote_form
from agency_site.components.layout import layout
from agency_site.components.sections import CARD, CARD_FRAME, hero, section
from agency_site.content import contact

_SUMMARY = (
    "flex cursor-pointer list-none items-center justify-between gap-4 p-6 text-left text-lg "
    "font-semibold text-slate-900 [&::-webkit-details-marker]:hidden " + styles.FOCUS_RING
)


def _faq() -> rx.Component:
    """Frequent questions as native disclosure widgets (no JavaScript needed)."""
    return rx.el.div(
        *[
            rx.el.details(
                rx.el.summary(
                    rx.el.span(item.question),
                    rx.icon(
                        "chevron-down",
                        size=20,
                        aria_hidden="true",
                        class_name="shrink-0 text-indigo-600 transition group-open:rotate-180",
                    ),
                    class_name=_SUMMARY + " rounded-2xl",
                ),
                rx.el.p(item.answer, class_name="px-6 pb-6 leading-7 text-slate-700"),
                class_name="group " + CARD_FRAME,
            )
            for item in contact.PAGE.faq
        ],
        class_name="mx-auto mt-10 max-w-3xl space-y-4",
    )


def _schedule_prompt() -> rx.Component:
    """A nudge to book a call instead."""
    return rx.el.div(
        rx.el.h3(
            contact.PAGE.schedule_prompt.title, class_name="text-lg font-semibold text-slate-900"
        ),
        rx.el.p(contact.PAGE.schedule_prompt.intro, class_name="mt-2 text-slate-600"),
        action_link(contact.PAGE.schedule_action, "primary", "mt-6"),
        class_name=CARD + " bg-indigo-50",
    )


def page() -> rx.Component:
    """The Contact page."""
    return layout(
        hero(contact.PAGE.hero, response_badge(contact.PAGE.response_promise)),
        section(
            "presupuesto",
            contact.PAGE.quote_heading,
            rx.el.div(quote_form(), class_name="mt-10"),
            tone="muted",
        ),
        section(
            "canales",
            contact.PAGE.methods_heading,
            contact_cards(contact.PAGE.contact_methods),
            rx.el.div(
                office_card(contact.PAGE.office),
                _schedule_prompt(),
                class_name="mt-6 grid gap-6 lg:grid-cols-2",
            ),
        ),
        section("preguntas", contact.PAGE.faq_heading, _faq(), tone="muted", centered=True),
    )

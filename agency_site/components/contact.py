"""The agency's contact channels as cards, and the office address with opening hours."""

from collections.abc import Sequence

import reflex as rx

from agency_site.components import styles
from agency_site.components.actions import action_link, link
from agency_site.components.sections import CARD, icon_badge
from agency_site.content.contact import ContactMethod, Office


def contact_card(method: ContactMethod) -> rx.Component:
    """A contact channel: icon, name, the address or number, a sentence and its button."""
    return rx.el.li(
        icon_badge(method.icon),
        rx.el.h3(method.title, class_name="mt-4 text-lg font-semibold text-slate-900"),
        rx.el.p(method.value, class_name="mt-1 break-words font-medium text-indigo-700"),
        rx.el.p(method.description, class_name="mt-2 flex-1 text-slate-600"),
        action_link(method.action, "secondary", "mt-6 self-start"),
        class_name=CARD + " flex flex-col",
    )


def contact_cards(methods: Sequence[ContactMethod], class_name: str = "mt-10") -> rx.Component:
    """The contact channels side by side."""
    return rx.el.ul(
        *[contact_card(method) for method in methods],
        class_name=f"grid gap-6 md:grid-cols-3 {class_name}",
    )


def office_card(office: Office) -> rx.Component:
    """The office address and the team's opening hours."""
    return rx.el.div(
        rx.el.h3(office.title, class_name="text-lg font-semibold text-slate-900"),
        rx.el.dl(
            _detail(
                "map-pin",
                office.address_label,
                rx.el.address(office.address, class_name="not-italic"),
            ),
            _detail("clock", office.hours_label, office.hours),
            class_name="mt-4 grid gap-4 sm:grid-cols-2",
        ),
        class_name=CARD,
    )


def _detail(icon: str, label: str, value: str | rx.Component) -> rx.Component:
    """One labelled line of the office card."""
    return rx.el.div(
        rx.el.dt(
            rx.icon(icon, size=18, aria_hidden="true", class_name="shrink-0 text-indigo-600"),
            label,
            class_name="flex items-center gap-2 text-sm font-medium text-slate-600",
        ),
        rx.el.dd(value, class_name="mt-1 pl-7 text-slate-800"),
    )


def response_badge(text: str) -> rx.Component:
    """The response-time promise as a highlighted pill."""
    return rx.el.p(
        rx.icon("clock", size=18, aria_hidden="true"),
        text,
        class_name="mt-8 inline-flex items-center gap-2 rounded-full bg-emerald-50 px-4 py-2 "
        "text-sm font-semibold text-emerald-800 ring-1 ring-emerald-200",
    )


def contact_links(methods: Sequence[ContactMethod]) -> rx.Component:
    """The contact channels as a compact list of links (icon, channel, address or number)."""
    return rx.el.ul(
        *[
            rx.el.li(
                link(
                    method.action.href,
                    rx.icon(method.icon, size=20, aria_hidden="true", class_name="text-indigo-600"),
                    rx.el.span(
                        rx.el.span(method.title, class_name="block text-sm text-slate-600"),
                        rx.el.span(method.value, class_name="block font-semibold text-slate-900"),
                    ),
                    class_name="flex items-center gap-3 rounded-lg p-2 hover:bg-indigo-50 "
                    + styles.FOCUS_RING,
                )
            )
            for method in methods
        ],
        class_name="mt-4 space-y-1",
    )

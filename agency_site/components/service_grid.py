"""Home's grid of the services: each card expands to list what it includes, one at a time."""

import reflex as rx

from agency_site import paths
from agency_site.components import styles
from agency_site.components.sections import CARD, ICON_BADGE, check_list
from agency_site.content.home import ServiceCardCopy
from agency_site.content.service_pages import Service
from agency_site.locale import localized_path
from agency_site.state import ui

_TOGGLE = (
    "mt-6 inline-flex items-center gap-2 self-start rounded-full text-sm font-semibold text-indigo-700 "
    "hover:text-indigo-900 " + styles.FOCUS_RING
)


def toggle_id(service_id: str) -> str:
    """Id of the button that opens a service card."""
    return f"service-{service_id}-toggle"


def panel_id(service_id: str) -> str:
    """Id of the list of included services a card opens."""
    return f"service-{service_id}-features"


def service_card(service: Service, copy: ServiceCardCopy) -> rx.Component:
    """A service: icon, name, summary and a button that shows its features and the CTA."""
    is_open = ui.expanded_service.value == service.id
    return rx.el.li(
        rx.el.span(
            rx.icon(service.icon, size=24, aria_hidden="true"),
            class_name=f"{ICON_BADGE} bg-gradient-to-br {service.gradient} text-white",
        ),
        rx.el.h3(
            service.title, class_name="mt-4 text-lg font-semibold text-balance text-slate-900"
        ),
        rx.el.p(service.description, class_name="mt-2 flex-1 text-slate-600"),
        rx.el.button(
            copy.toggle_label,
            rx.el.span(f" ({service.title})", class_name="sr-only"),
            rx.icon(
                "chevron-down",
                size=18,
                aria_hidden="true",
                class_name=rx.cond(is_open, "rotate-180 transition", "transition"),
            ),
            id=toggle_id(service.id),
            type="button",
            aria_expanded=rx.cond(is_open, "true", "false"),
            aria_controls=panel_id(service.id),
            on_click=ui.expanded_service.set_value(rx.cond(is_open, "", service.id)),
            class_name=_TOGGLE,
        ),
        rx.el.div(
            rx.el.p(copy.features_title, class_name="text-sm font-semibold text-slate-900"),
            check_list(service.features, "mt-3 space-y-2 text-sm"),
            rx.el.a(
                copy.cta_label,
                rx.icon("arrow-right", size=18, aria_hidden="true"),
                href=localized_path(paths.service(service.id)),
                class_name=styles.BUTTON_PRIMARY + " mt-6 w-full text-sm",
            ),
            id=panel_id(service.id),
            class_name=rx.cond(is_open, "mt-4 border-t border-slate-200 pt-4", "hidden"),
        ),
        data_open=rx.cond(is_open, "true", "false"),
        class_name=rx.cond(
            is_open,
            f"{CARD} flex flex-col ring-2 ring-indigo-600",
            f"{CARD} flex flex-col transition hover:shadow-md",
        ),
    )


def service_grid(services: tuple[Service, ...], copy: ServiceCardCopy) -> rx.Component:
    """The service cards in a responsive grid."""
    return rx.el.ul(
        *[service_card(service, copy) for service in services],
        class_name="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-3",
    )

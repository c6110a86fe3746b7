"""The fixed navigation bar: English labels, services dropdown and the mobile menu."""

import reflex as rx

from agency_site import paths
from agency_site.components import styles
from agency_site.components.language_switch import other_languages
from agency_site.content.layout import LAYOUT
from agency_site.content.pages import CONTACT_BUTTON, NAVBAR, SERVICES_MENU
from agency_site.content.site import SITE
from agency_site.locale import localized_path
from agency_site.state import ui

# Top-level links of SPEC §2 (Services is the dropdown, Contact the button): layout.yaml's.

SERVICES_MENU_ID = "services-menu"
MOBILE_MENU_ID = "mobile-menu"
MOBILE_SERVICES_MENU_ID = "mobile-services-menu"


def nav_links() -> tuple[tuple[str, str], ...]:
    """(label, href) of the navigation bar's pages, in the language in use."""
    return tuple((link.label, link.href) for link in NAVBAR)


def _link(label: str, href: str, class_name: str) -> rx.Component:
    """A navigation link that also closes any open menu."""
    return rx.el.a(label, href=href, class_name=class_name, on_click=ui.close_menus())


def _contact_button(class_name: str) -> rx.Component:
    """The Contact button at the end of a menu."""
    return rx.el.li(_link(CONTACT_BUTTON.label, CONTACT_BUTTON.href, class_name))


def _chevron(is_open: rx.Var) -> rx.Component:
    """Small arrow that turns when its menu is open."""
    return rx.icon(
        "chevron-down",
        size=16,
        aria_hidden="true",
        class_name=rx.cond(is_open, "rotate-180 transition", "transition"),
    )


def _toggle(label: str, state, controls: str, toggle_id: str, class_name: str) -> rx.Component:
    """A button that opens/closes a menu and reports it with aria-expanded."""
    return rx.el.button(
        label,
        _chevron(state.value),
        id=toggle_id,
        type="button",
        aria_expanded=rx.cond(state.value, "true", "false"),
        aria_controls=controls,
        on_click=state.set_value(~state.value),
        class_name=class_name,
    )


def _services_list(list_id: str, is_open: rx.Var, item_class: str, list_class: str) -> rx.Component:
    """The nine service links, shown while ``is_open``."""
    return rx.el.ul(
        *[rx.el.li(_link(link.label, link.href, item_class)) for link in SERVICES_MENU],
        id=list_id,
        class_name=rx.cond(is_open, list_class, "hidden"),
    )


def _desktop_nav() -> rx.Component:
    """Links, dropdown and contact button for medium and wider screens."""
    home, *rest = nav_links()
    return rx.el.ul(
        rx.el.li(_link(home[0], home[1], styles.NAV_LINK)),
        rx.el.li(
            _toggle(
                LAYOUT.navbar.services,
                ui.services_open,
                SERVICES_MENU_ID,
                ui.SERVICES_TOGGLE_ID,
                styles.NAV_LINK + " inline-flex items-center gap-1",
            ),
            _services_list(
                SERVICES_MENU_ID,
                ui.services_open.value,
                "block rounded-md px-4 py-2 text-sm text-slate-800 hover:bg-indigo-50 "
                "hover:text-indigo-700 " + styles.FOCUS_RING,
                "absolute left-0 top-full mt-2 w-72 rounded-xl border border-slate-200 "
                "bg-white p-2 shadow-xl",
            ),
            id=ui.SERVICES_NAV_ID,
            class_name="relative",
        ),
        *[rx.el.li(_link(label, href, styles.NAV_LINK)) for label, href in rest],
        *[rx.el.li(link) for link in other_languages(styles.NAV_LINK)],
        _contact_button(styles.BUTTON_PRIMARY + " ml-2 !py-2 text-sm"),
        class_name="hidden items-center gap-1 md:flex",
    )


def _while_open(value: str) -> rx.Var:
    """An attribute value present only while the mobile menu is open."""
    return rx.cond(ui.mobile_menu_open.value, value, rx.Var("undefined"))


def _mobile_nav() -> rx.Component:
    """Menu toggle and the full-screen list for small screens."""
    return rx.el.div(
        _mobile_toggle(),
        _mobile_menu(
            "block rounded-lg px-4 py-3 text-lg font-medium text-slate-900 hover:bg-indigo-50 "
            + styles.FOCUS_RING
        ),
        id=ui.MOBILE_NAV_ID,
        # While open, the toggle (now 'Cerrar menú') and the list form a modal dialog
        # that keeps the focus (state/ui.py); closed, it is a plain menu button.
        custom_attrs={
            "role": _while_open("dialog"),
            "aria-modal": _while_open("true"),
            "aria-label": _while_open(LAYOUT.navbar.mobile_menu),
        },
        class_name="md:hidden",
    )


def _mobile_toggle() -> rx.Component:
    """The button that opens the mobile menu (a burger) and closes it (a cross)."""
    return rx.el.button(
        rx.cond(
            ui.mobile_menu_open.value,
            rx.icon("x", size=28, aria_hidden="true"),
            rx.icon("menu", size=28, aria_hidden="true"),
        ),
        rx.el.span(
            rx.cond(ui.mobile_menu_open.value, LAYOUT.navbar.close_menu, LAYOUT.navbar.open_menu),
            class_name="sr-only",
        ),
        id=ui.MOBILE_MENU_TOGGLE_ID,
        type="button",
        aria_expanded=rx.cond(ui.mobile_menu_open.value, "true", "false"),
        aria_controls=MOBILE_MENU_ID,
        on_click=ui.mobile_menu_open.set_value(~ui.mobile_menu_open.value),
        class_name="relative z-[60] rounded-md p-2 text-slate-900 " + styles.FOCUS_RING,
    )


def _mobile_menu(item: str) -> rx.Component:
    """The mobile menu's full-screen list, shown while open (``item``: a link's classes)."""
    return rx.el.div(
        rx.el.ul(
            rx.el.li(_link(*nav_links()[0], item)),
            rx.el.li(
                _toggle(
                    LAYOUT.navbar.services,
                    ui.mobile_services_open,
                    MOBILE_SERVICES_MENU_ID,
                    ui.MOBILE_SERVICES_TOGGLE_ID,
                    item + " flex w-full items-center justify-between text-left",
                ),
                _services_list(
                    MOBILE_SERVICES_MENU_ID,
                    ui.mobile_services_open.value,
                    "block rounded-lg px-4 py-2 text-base text-slate-800 hover:bg-indigo-50 "
                    + styles.FOCUS_RING,
                    "ml-4 border-l border-slate-200 pl-2",
                ),
            ),
            *[rx.el.li(_link(label, href, item)) for label, href in nav_links()[1:]],
            *[rx.el.li(link) for link in other_languages(item)],
            _contact_button(styles.BUTTON_PRIMARY + " mt-4 w-full"),
            class_name="space-y-1",
        ),
        id=MOBILE_MENU_ID,
        class_name=rx.cond(
            ui.mobile_menu_open.value,
            "fixed inset-0 z-50 h-dvh w-screen overflow-y-auto bg-white px-6 pt-24 pb-10",
            "hidden",
        ),
    )


def navbar() -> rx.Component:
    """Fixed header: transparent at the top, white with a shadow once scrolled > 10 px."""
    return rx.el.header(
        rx.el.nav(
            rx.el.a(
                SITE.name,
                href=localized_path(paths.HOME),
                on_click=ui.close_menus(),
                class_name="relative z-[60] text-xl font-extrabold tracking-tight text-indigo-800 "
                + styles.FOCUS_RING,
            ),
            _desktop_nav(),
            _mobile_nav(),
            ui.menu_effects,
            aria_label=LAYOUT.navbar.label,
            class_name=styles.CONTAINER + " flex h-16 items-center justify-between",
        ),
        id="site-header",
        data_scrolled=rx.cond(ui.nav_scrolled, "true", "false"),
        class_name=rx.cond(
            ui.nav_scrolled,
            "fixed inset-x-0 top-0 z-50 bg-white shadow-md transition-colors duration-200",
            "fixed inset-x-0 top-0 z-50 bg-transparent transition-colors duration-200",
        ),
    )

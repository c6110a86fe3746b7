"""Pure UI state that lives in the browser: menus, dropdown and the navbar's scroll style.

Written in Python with ``ClientStateVar`` and small hooks, it sends no websocket
frames: opening a menu or scrolling never talks to the backend.
"""

import reflex as rx

from agency_site.reflex_ext.client_state import ClientStateVar, browser_event, hook_var, refs_keys
from agency_site.reflex_ext.js import JsName, load_js

# The navbar scroll threshold of SPEC §9: above it the bar turns white with a shadow.
NAV_SCROLL_THRESHOLD_PX = 10

services_open = ClientStateVar.create("services_open", False)
mobile_menu_open = ClientStateVar.create("mobile_menu_open", False)
mobile_services_open = ClientStateVar.create("mobile_services_open", False)

SERVICES_TOGGLE_ID = "services-toggle"
MOBILE_MENU_TOGGLE_ID = "mobile-menu-toggle"
MOBILE_SERVICES_TOGGLE_ID = "mobile-services-toggle"
# The dropdown's toggle and list: focus or a click outside it closes the dropdown.
SERVICES_NAV_ID = "services-nav"
# The mobile menu's toggle and full-screen list: a dialog while open, holding the focus.
MOBILE_NAV_ID = "mobile-nav"

# The menus closed on every route change and on Escape, with the element that gets
# the focus back when Escape closes them (the toggle that opened them), outermost
# last: closing the mobile menu and its submenu returns focus to the menu's toggle.
MENUS: tuple[tuple[ClientStateVar, str], ...] = (
    (mobile_services_open, MOBILE_SERVICES_TOGGLE_ID),
    (services_open, SERVICES_TOGGLE_ID),
    (mobile_menu_open, MOBILE_MENU_TOGGLE_ID),
)


def _menu_refs() -> list[list[str]]:
    """[value key, setter key, toggle id] of every menu, for the browser code."""
    return [[*refs_keys(var), toggle_id] for var, toggle_id in MENUS]


def close_menus() -> rx.Var:
    """Event chain that closes every menu (used by links inside the menus)."""
    return browser_event(load_js("close_menus.js", MENUS=_menu_refs()))


# Set once the first page has hydrated: every page mounted after it came from a
# client-side navigation.
_NAVIGATED_FLAG = "__agencySitePageShown"

_SERVICES_OPEN, _SET_SERVICES_OPEN = refs_keys(services_open)
_MOBILE_OPEN, _ = refs_keys(mobile_menu_open)
_FOCUSABLE = (
    "a[href], button:not([disabled]), input, select, textarea, [tabindex]:not([tabindex='-1'])"
)
_REACT = {"react": ["useState", "useEffect"]}

# True once the page has scrolled more than the threshold; computed in the browser.
nav_scrolled: rx.Var = hook_var(
    "navScrolled",
    [load_js("nav_scrolled.js", THRESHOLD_PX=NAV_SCROLL_THRESHOLD_PX)],
    _REACT,
).to(bool)

# Closes the menus on route changes and Escape, traps Tab in the mobile menu, closes the
# dropdown on focus or a click outside it, marks <html data-hydrated> (js/menu_effects.js).
menu_effects: rx.Var = hook_var(
    "null",
    [
        load_js(
            "menu_effects.js",
            MENUS=_menu_refs(),
            NAVIGATED_FLAG=JsName(_NAVIGATED_FLAG),
            MOBILE_NAV_ID=MOBILE_NAV_ID,
            MOBILE_OPEN=_MOBILE_OPEN,
            FOCUSABLE=_FOCUSABLE,
            SERVICES_NAV_ID=SERVICES_NAV_ID,
            SERVICES_OPEN=_SERVICES_OPEN,
            SET_SERVICES_OPEN=_SET_SERVICES_OPEN,
        )
    ],
    {**_REACT, "react-router": ["useLocation"]},
    refs=True,
)

# The Home service card whose included services are shown ("" while every card is closed):
# one value for all cards, so opening one closes the others.
expanded_service = ClientStateVar.create("expanded_service", "")

# Whether this page's main area fades in: only after a client-side navigation (SPEC
# §9's 0.3 s transition between pages). The first page a visitor opens is prerendered
# and shows at once, so its text is also its largest contentful paint. Read once per
# mount, so re-renders (a menu opening) never replay the fade.
page_fades: rx.Var = hook_var(
    "pageFades", [load_js("page_fades.js", NAVIGATED_FLAG=JsName(_NAVIGATED_FLAG))], _REACT
).to(bool)

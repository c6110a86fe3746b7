"""Pure UI state that lives in the browser: menus, dropdown and the navbar's scroll style.

Written in Python with ``ClientStateVar`` and small hooks, it sends no websocket
frames: opening a menu or scrolling never talks to the backend.
"""

import json

import reflex as rx
from reflex.experimental.client_state import ClientStateVar
from reflex.vars import VarData
from reflex_base.utils.imports import ImportVar

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


def _refs(var: ClientStateVar) -> tuple[str, str]:
    """Keys of ``refs`` holding the value and the setter of a client state var."""
    return f"_client_state_{var._getter_name}", f"_client_state_{var._setter_name}"


def _menu_refs() -> str:
    """JS array of [value key, setter key, toggle id] for every menu."""
    return json.dumps([[*_refs(var), toggle_id] for var, toggle_id in MENUS])


def close_menus() -> rx.Var:
    """Event chain that closes every menu (used by links inside the menus)."""
    return rx.Var(
        f"(() => {{ for (const [, setter] of {_menu_refs()}) refs[setter]?.(false); }})",
        _var_data=VarData(imports={"$/utils/state": [ImportVar(tag="refs")]}),
    ).to(rx.vars.FunctionVar, rx.EventChain)


# Set once the first page has hydrated: every page mounted after it came from a
# client-side navigation.
_NAVIGATED_FLAG = "__agencySitePageShown"

_SERVICES_OPEN, _SET_SERVICES_OPEN = _refs(services_open)
_MOBILE_OPEN, _ = _refs(mobile_menu_open)
_FOCUSABLE = (
    "a[href], button:not([disabled]), input, select, textarea, [tabindex]:not([tabindex='-1'])"
)

# Closes the menus when the route changes and on Escape (focus returns to the
# toggle of the menu that was open); keeps Tab inside the open mobile menu;
# closes the dropdown when focus or a click lands outside it; marks
# <html data-hydrated> once React runs, and from then on pages fade in (page_fades).
_MENU_EFFECTS = f"""
const menuLocation = useLocation();
useEffect(() => {{
  document.documentElement.dataset.hydrated = "true";
  window.{_NAVIGATED_FLAG} = true;
}}, []);
useEffect(() => {{
  for (const [, setter] of {_menu_refs()}) refs[setter]?.(false);
}}, [menuLocation.pathname]);
useEffect(() => {{
  const trapFocus = (event) => {{
    const dialog = document.getElementById("{MOBILE_NAV_ID}");
    if (!refs["{_MOBILE_OPEN}"] || !dialog) return;
    const items = [...dialog.querySelectorAll("{_FOCUSABLE}")].filter(
      (el) => el.getClientRects().length > 0
    );
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    const inside = dialog.contains(document.activeElement);
    if (event.shiftKey && (!inside || document.activeElement === first)) {{
      event.preventDefault();
      last.focus();
    }} else if (!event.shiftKey && (!inside || document.activeElement === last)) {{
      event.preventDefault();
      first.focus();
    }}
  }};
  const onKey = (event) => {{
    if (event.key === "Tab") return trapFocus(event);
    if (event.key !== "Escape") return;
    let focusId = null;
    for (const [value, setter, toggleId] of {_menu_refs()}) {{
      if (refs[value]) {{
        refs[setter]?.(false);
        focusId = toggleId;
      }}
    }}
    if (focusId) document.getElementById(focusId)?.focus();
  }};
  const closeDropdownOutside = (event) => {{
    const dropdown = document.getElementById("{SERVICES_NAV_ID}");
    if (refs["{_SERVICES_OPEN}"] && dropdown && !dropdown.contains(event.target)) {{
      refs["{_SET_SERVICES_OPEN}"]?.(false);
    }}
  }};
  window.addEventListener("keydown", onKey);
  document.addEventListener("focusin", closeDropdownOutside);
  document.addEventListener("pointerdown", closeDropdownOutside);
  return () => {{
    window.removeEventListener("keydown", onKey);
    document.removeEventListener("focusin", closeDropdownOutside);
    document.removeEventListener("pointerdown", closeDropdownOutside);
  }};
}}, []);
"""

# True once the page has scrolled more than the threshold; computed in the browser.
_NAV_SCROLLED_HOOK = f"""
const [navScrolled, setNavScrolled] = useState(false);
useEffect(() => {{
  const onScroll = () => setNavScrolled(window.scrollY > {NAV_SCROLL_THRESHOLD_PX});
  onScroll();
  window.addEventListener("scroll", onScroll, {{ passive: true }});
  return () => window.removeEventListener("scroll", onScroll);
}}, []);
"""

_REACT_IMPORTS = {"react": [ImportVar(tag="useState"), ImportVar(tag="useEffect")]}

nav_scrolled: rx.Var = rx.Var(
    "navScrolled",
    _var_data=VarData(hooks={_NAV_SCROLLED_HOOK: None}, imports=_REACT_IMPORTS),
).to(bool)

menu_effects: rx.Var = rx.Var(
    "null",
    _var_data=VarData(
        hooks={_MENU_EFFECTS: None},
        imports={
            **_REACT_IMPORTS,
            "react-router": [ImportVar(tag="useLocation")],
            "$/utils/state": [ImportVar(tag="refs")],
        },
    ),
)

# The Home service card whose included services are shown ("" while every card is closed):
# one value for all cards, so opening one closes the others.
expanded_service = ClientStateVar.create("expanded_service", "")

# Whether this page's main area fades in: only after a client-side navigation (SPEC
# §9's 0.3 s transition between pages). The first page a visitor opens is prerendered
# and shows at once, so its text is also its largest contentful paint. Read once per
# mount, so re-renders (a menu opening) never replay the fade.
page_fades: rx.Var = rx.Var(
    "pageFades",
    _var_data=VarData(
        hooks={
            "const [pageFades] = useState(() => typeof window !== 'undefined' "
            f"&& window.{_NAVIGATED_FLAG} === true);": None
        },
        imports=_REACT_IMPORTS,
    ),
).to(bool)

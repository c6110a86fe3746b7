// React hook of the navbar (agency_site/state/ui.py, menu_effects): closes the menus when the
// route changes and on Escape (focus returns to the toggle of the menu that was open); keeps
// Tab inside the open mobile menu; closes the dropdown when focus or a click lands outside
// it; marks <html data-hydrated> once React runs, and from then on pages fade in (page_fades.js).
// $MENUS: [value key, setter key, toggle id] of every menu, innermost first.

const menuLocation = useLocation();
useEffect(() => {
  document.documentElement.dataset.hydrated = "true";
  window.$NAVIGATED_FLAG = true;
}, []);
useEffect(() => {
  for (const [, setter] of $MENUS) refs[setter]?.(false);
}, [menuLocation.pathname]);
useEffect(() => {
  const trapFocus = (event) => {
    const dialog = document.getElementById($MOBILE_NAV_ID);
    if (!refs[$MOBILE_OPEN] || !dialog) return;
    const items = [...dialog.querySelectorAll($FOCUSABLE)].filter(
      (el) => el.getClientRects().length > 0
    );
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    const inside = dialog.contains(document.activeElement);
    if (event.shiftKey && (!inside || document.activeElement === first)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (!inside || document.activeElement === last)) {
      event.preventDefault();
      first.focus();
    }
  };
  const onKey = (event) => {
    if (event.key === "Tab") return trapFocus(event);
    if (event.key !== "Escape") return;
    let focusId = null;
    for (const [value, setter, toggleId] of $MENUS) {
      if (refs[value]) {
        refs[setter]?.(false);
        focusId = toggleId;
      }
    }
    if (focusId) document.getElementById(focusId)?.focus();
  };
  const closeDropdownOutside = (event) => {
    const dropdown = document.getElementById($SERVICES_NAV_ID);
    if (refs[$SERVICES_OPEN] && dropdown && !dropdown.contains(event.target)) {
      refs[$SET_SERVICES_OPEN]?.(false);
    }
  };
  window.addEventListener("keydown", onKey);
  document.addEventListener("focusin", closeDropdownOutside);
  document.addEventListener("pointerdown", closeDropdownOutside);
  return () => {
    window.removeEventListener("keydown", onKey);
    document.removeEventListener("focusin", closeDropdownOutside);
    document.removeEventListener("pointerdown", closeDropdownOutside);
  };
}, []);

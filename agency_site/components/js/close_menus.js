// Event handler of the links inside the menus (agency_site/state/ui.py, close_menus): closes
// every menu. $MENUS: [value key, setter key, toggle id] of every menu.
(() => { for (const [, setter] of $MENUS) refs[setter]?.(false); })

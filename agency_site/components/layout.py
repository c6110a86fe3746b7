"""The page layout every route shares: skip link, header, animated main area, footer.

Each part (the header, each of the page's sections, the footer) is a React ``<Suspense>``
boundary (``HydrationBoundary``): nothing in it suspends, but React hydrates each boundary on
its own, so a tap while the page hydrates (a visitor quick to a form) makes React hydrate at
once only the page's frame and the part tapped, not the whole page (``make bench-inp``'s "tap
on load", docs/benchmark.md). The build prerenders every boundary inline, in document order
(``reflex_ext/entry_server.py``): readers without JavaScript see the whole page."""

import reflex as rx

from agency_site.components.footer import footer
from agency_site.components.navbar import navbar
from agency_site.content.layout import LAYOUT
from agency_site.forms.declarations import SOURCE_FIELD, UTM_KEYS
from agency_site.reflex_ext.client_state import hook_var
from agency_site.reflex_ext.internals import PlainAnchor as A
from agency_site.reflex_ext.js import load_js
from agency_site.state import ui

MAIN_ID = "main"
# Where the visit came from (entry page, utm_*, referring host), kept in the page's memory
# (nothing stored in the browser) and written into a lead form's hidden field on submit:
# js/lead_source.js, forms/declarations.py (SOURCE_FIELD), leads/source.py.
_LEAD_SOURCE = hook_var(
    '"on"',
    [
        load_js(
            "lead_source.js",
            GLOBAL="agencySiteVisit",
            UTM_KEYS=list(UTM_KEYS),
            FIELD=SOURCE_FIELD,
        )
    ],
    {"react": ["useEffect"]},
).to(str)


class HydrationBoundary(rx.Component):
    """React's ``<Suspense>`` around a part of the page, without a fallback (nothing in it
    suspends): a unit React hydrates on its own (see the module docstring)."""

    library = "react"
    tag = "Suspense"


def _part(component: rx.Component) -> rx.Component:
    return HydrationBoundary.create(component)


def layout(*children: rx.Component) -> rx.Component:
    """Wrap a page's sections in the shared header, main area (0.3 s fade) and footer, each
    part a hydration boundary of its own."""
    return rx.el.div(
        # A plain <a>, not rx.el.a (a React Router link that would resolve "#main"
        # against the route and navigate): the browser moves focus to <main>.
        A.create(
            LAYOUT.skip_link,
            href=f"#{MAIN_ID}",
            class_name="sr-only focus:not-sr-only focus:fixed focus:left-4 focus:top-4 "
            "focus:z-[70] focus:rounded-md focus:bg-white focus:px-4 focus:py-2 "
            "focus:text-indigo-800 focus:shadow-lg",
        ),
        _part(navbar()),
        rx.el.main(
            *map(_part, children),
            id=MAIN_ID,
            tab_index=-1,
            class_name=rx.cond(
                ui.page_fades, "page-main page-fade outline-none", "page-main outline-none"
            ),
        ),
        _part(footer()),
        class_name="flex min-h-screen flex-col bg-white text-slate-900 antialiased",
        custom_attrs={"data-lead-source": _LEAD_SOURCE},
    )

"""The shared footer: blurb, social links, link lists, contact data, copyright, back-to-top."""

import reflex as rx

from agency_site.components import styles
from agency_site.components.language_switch import footer_switch
from agency_site.content.base import Link
from agency_site.content.layout import LAYOUT
from agency_site.content.loader import fill
from agency_site.content.pages import FOOTER_COMPANY, FOOTER_LEGAL, SERVICES_MENU
from agency_site.content.site import SITE
from agency_site.locale import localized_path
from agency_site.reflex_ext.js import load_js

_LINK = "text-sm text-slate-300 hover:text-white " + styles.FOCUS_RING
# The year is computed in the visitor's browser, so a build from last year still says this one.
_CURRENT_YEAR = rx.Var(load_js("current_year.js")).to(int)


def _link_list(heading: str, links: tuple[Link, ...]) -> rx.Component:
    """A titled column of footer links."""
    return rx.el.div(
        rx.el.h2(heading, class_name="text-sm font-semibold uppercase tracking-wider text-white"),
        rx.el.ul(
            *[
                rx.el.li(rx.el.a(link.label, href=localized_path(link.href), class_name=_LINK))
                for link in links
            ],
            class_name="mt-4 space-y-2",
        ),
    )


def _contact_column() -> rx.Component:
    """Address, e-mail and phone of the agency."""
    return rx.el.div(
        rx.el.h2(
            LAYOUT.footer.contact,
            class_name="text-sm font-semibold uppercase tracking-wider text-white",
        ),
        rx.el.address(
            rx.el.p(SITE.address.one_line, class_name="text-sm text-slate-300"),
            rx.el.p(rx.el.a(SITE.email, href=SITE.mailto, class_name=_LINK)),
            rx.el.p(rx.el.a(SITE.phone, href=SITE.tel, class_name=_LINK)),
            class_name="mt-4 space-y-2 not-italic",
        ),
    )


def _social_links() -> rx.Component:
    """The agency's social network profiles (layout.yaml), each opening in a new tab."""
    return rx.el.ul(
        *[
            rx.el.li(
                rx.el.a(
                    s.network,
                    href=s.href,
                    aria_label=fill(
                        LAYOUT.footer.social_label, {"network": s.network}, "social_label"
                    ),
                    rel="noopener",
                    target="_blank",
                    class_name="block rounded-full border border-slate-700 px-3 py-1 text-xs "
                    "text-slate-300 hover:text-white " + styles.FOCUS_RING,
                )
            )
            for s in LAYOUT.footer.social
        ],
        class_name="mt-4 flex flex-wrap gap-2",
    )


def footer() -> rx.Component:
    """Site footer shared by every page."""
    return rx.el.footer(
        rx.el.div(
            rx.el.div(
                rx.el.div(
                    rx.el.p(SITE.name, class_name="text-xl font-extrabold text-white"),
                    rx.el.p(SITE.blurb, class_name="mt-4 text-sm leading-6 text-slate-300"),
                    _social_links(),
                    footer_switch(_LINK, "text-sm font-semibold text-white"),
                    class_name="lg:col-span-2",
                ),
                _link_list(LAYOUT.footer.services, SERVICES_MENU),
                _link_list(LAYOUT.footer.company, FOOTER_COMPANY),
                rx.el.div(
                    _link_list(LAYOUT.footer.legal, FOOTER_LEGAL),
                    _contact_column(),
                    class_name="space-y-8",
                ),
                class_name="grid gap-10 sm:grid-cols-2 lg:grid-cols-5",
            ),
            rx.el.div(
                rx.el.p(
                    "© ",
                    rx.el.span(
                        _CURRENT_YEAR,
                        id="footer-year",
                        # A build of last year hydrates with this year's number.
                        custom_attrs={"suppressHydrationWarning": True},
                    ),
                    f" {LAYOUT.footer.rights}",
                    class_name="text-sm text-slate-400",
                ),
                rx.el.button(
                    rx.icon("arrow-up", size=20, aria_hidden="true"),
                    rx.el.span(LAYOUT.footer.back_to_top, class_name="sr-only"),
                    id="scroll-to-top",
                    type="button",
                    # run_script compiles to a JS function (call_script would be eval-ed: CSP).
                    on_click=rx.run_script(load_js("scroll_to_top.js")),
                    class_name="rounded-full bg-indigo-600 p-3 text-white hover:bg-indigo-500 "
                    + styles.FOCUS_RING,
                ),
                class_name="mt-12 flex items-center justify-between border-t border-slate-800 pt-8",
            ),
            class_name=styles.CONTAINER + " py-16",
        ),
        class_name="bg-slate-950",
    )

"""The Home page."""

import reflex as rx

from agency_site.components import styles
from agency_site.components.actions import action_link, action_row
from agency_site.components.cards import testimonial_card
from agency_site.components.contact import contact_cards, office_card
from agency_site.components.form_layouts import hero_form
from agency_site.components.layout import layout
from agency_site.components.media import image
from agency_site.components.sections import (
    check_list,
    cta_band,
    hero,
    icon_badge,
    section,
    section_heading,
    stat_grid,
)
from agency_site.components.service_grid import service_grid
from agency_site.content import home, influencer, testimonials
from agency_site.content.contact import PAGE as CONTACT_PAGE
from agency_site.content.home import HomePage
from agency_site.content.sections import StatsBandSection
from agency_site.content.service_pages import SERVICES


def _influencer_teaser() -> rx.Component:
    """The hero's card pointing to the influencer programme."""
    teaser = home.PAGE.influencer_teaser
    return rx.el.aside(
        icon_badge(teaser.icon, "bg-white/15 text-white"),
        rx.el.p(teaser.eyebrow, class_name="mt-6 text-sm font-semibold text-indigo-100"),
        rx.el.h2(teaser.title, class_name="mt-2 text-2xl font-bold text-white"),
        rx.el.p(teaser.text, class_name="mt-3 leading-7 text-indigo-50"),
        action_link(teaser.action, "on_dark", "mt-6"),
        aria_label=teaser.eyebrow,
        class_name="rounded-3xl bg-gradient-to-br from-indigo-700 to-fuchsia-700 p-8 shadow-xl",
    )


def _influencer_spotlight() -> rx.Component:
    """The influencer programme section with its buttons to contact and schedule."""
    spot = home.PAGE.influencer_spotlight
    heading_id = "influencer-title"
    return rx.el.section(
        rx.el.div(
            rx.el.div(
                section_heading(spot.heading, heading_id, dark=True),
                check_list(spot.points, "mt-6 space-y-3", dark=True),
                action_row(spot.actions, "on_dark", "mt-8"),
            ),
            rx.el.div(
                image(spot.image, class_name="aspect-[4/3] w-full rounded-3xl"),
                stat_grid(influencer.PAGE.section(StatsBandSection).stats, "dark"),
            ),
            class_name=styles.CONTAINER + " grid items-center gap-12 lg:grid-cols-2",
        ),
        id="influencer",
        aria_labelledby=heading_id,
        class_name=f"{styles.SECTION} bg-slate-900",
    )


def _brands() -> rx.Component:
    """Names of some brands the agency works with."""
    return rx.el.div(
        rx.el.p(
            home.PAGE.brands_title, class_name="text-center text-sm font-semibold text-slate-600"
        ),
        rx.el.ul(
            *[
                rx.el.li(name, class_name="text-lg font-bold tracking-tight text-slate-600")
                for name in home.PAGE.brands
            ],
            class_name="mt-6 flex flex-wrap items-center justify-center gap-x-10 gap-y-4",
        ),
        class_name="mt-16 border-t border-slate-200 pt-10",
    )


def page(content: HomePage) -> rx.Component:
    """The Home page."""
    return layout(
        hero(
            content.hero,
            rx.el.p(content.hero_form_intro, class_name="mt-8 font-medium text-slate-800"),
            rx.el.div(hero_form(), class_name="mt-3 max-w-xl"),
            aside=_influencer_teaser(),
        ),
        section(
            "servicios",
            content.services_heading,
            service_grid(SERVICES, content.service_card),
            centered=True,
        ),
        _influencer_spotlight(),
        section(
            "testimonios",
            content.testimonials_heading,
            rx.el.ul(
                *[rx.el.li(testimonial_card(t)) for t in testimonials.COPY.testimonials],
                class_name="mt-10 grid gap-6 md:grid-cols-3",
            ),
            _brands(),
            tone="muted",
            centered=True,
        ),
        cta_band("contacto-rapido", content.contact_cta),
        section(
            "contacto",
            content.contact_info_heading,
            rx.el.div(office_card(CONTACT_PAGE.office), class_name="mt-10"),
            contact_cards(CONTACT_PAGE.contact_methods, "mt-6"),
        ),
    )

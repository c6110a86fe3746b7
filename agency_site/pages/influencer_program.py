"""The influencer programme landing."""

import reflex as rx

from agency_site.components.actions import action_row
from agency_site.components.layout import layout
from agency_site.components.media import image
from agency_site.components.sections import (
    CARD,
    card,
    check_list,
    cta_band,
    feature_grid,
    hero,
    section,
    stat_grid,
    step_number,
)
from agency_site.content import influencer
from agency_site.content.influencer import InfluencerPage


def _steps() -> rx.Component:
    """How the programme works, step by step."""
    return rx.el.ol(
        *[
            card(step_number(number), step.title, step.description)
            for number, step in enumerate(influencer.STEPS, start=1)
        ],
        class_name="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4",
    )


def _deal() -> rx.Component:
    """What the creator brings and what the agency brings."""
    return rx.el.div(
        *[
            rx.el.div(
                rx.el.h3(deal.title, class_name="text-xl font-semibold text-slate-900"),
                check_list(deal.points),
                class_name=CARD + " sm:p-8",
            )
            for deal in influencer.DEALS
        ],
        class_name="mt-10 grid gap-6 md:grid-cols-2",
    )


def page(content: InfluencerPage) -> rx.Component:
    """The influencer programme landing."""
    return layout(
        hero(
            influencer.HERO,
            action_row(influencer.HERO_ACTIONS, class_name="mt-8"),
            aside=image(
                influencer.HERO_IMAGE, eager=True, class_name="aspect-[4/3] w-full rounded-3xl"
            ),
        ),
        rx.el.section(
            rx.el.div(
                stat_grid(influencer.STATS, "dark"),
                rx.el.p(
                    influencer.STATS_NOTE, class_name="mt-6 text-center text-sm text-indigo-100"
                ),
                class_name="mx-auto max-w-4xl px-4 sm:px-6",
            ),
            aria_label=influencer.STATS_NOTE,
            class_name="bg-indigo-800 pt-6 pb-12",
        ),
        section("como-funciona", influencer.HOW_HEADING, _steps()),
        section("acuerdo", influencer.DEAL_HEADING, _deal(), tone="muted"),
        section("que-hacemos", influencer.SERVICES_HEADING, feature_grid(influencer.SERVICES)),
        section(
            "para-quien",
            influencer.AUDIENCE_HEADING,
            feature_grid(influencer.AUDIENCES, 4),
            tone="muted",
        ),
        cta_band("empezar", influencer.CTA),
    )

"""A page of sections (About, the influencer programme...): its hero with its buttons and
photo, then its sections in the order of its file."""

from collections.abc import Callable, Mapping
from math import gcd
from typing import Any

import reflex as rx

from agency_site.components.actions import action_row
from agency_site.components.layout import layout
from agency_site.components.media import image
from agency_site.components.page_sections import page_sections
from agency_site.components.sections import hero
from agency_site.content.sections import SectionsPage


def _hero(content: SectionsPage) -> rx.Component:
    """The hero: heading, its buttons, and its photo beside it in the photo's proportions."""
    photo = content.hero_image
    aside = None
    if photo is not None:
        common = gcd(photo.width, photo.height)
        aspect = f"aspect-[{photo.width // common}/{photo.height // common}]"
        aside = image(photo, eager=True, class_name=f"{aspect} w-full rounded-3xl")
    actions = [action_row(content.hero_actions, class_name="mt-8")] if content.hero_actions else []
    return hero(content.hero, *actions, aside=aside)


def page(
    content: SectionsPage,
    bodies: Mapping[type, Callable[[Any], rx.Component]] | None = None,
    whole: Mapping[type, Callable[[Any, str, str], rx.Component]] | None = None,
) -> rx.Component:
    """The page: its hero, then its sections (``bodies``, ``whole``: its own kinds' drawing)."""
    return layout(_hero(content), *page_sections(content.sections, bodies=bodies, whole=whole))

"""Cards for people's words: client testimonials with their star rating."""

import reflex as rx

from agency_site.components.media import image
from agency_site.components.sections import CARD
from agency_site.content.base import Image
from agency_site.content.testimonials import COPY, MAX_RATING, Testimonial

AVATAR_SIZES = "64px"
_AVATAR = "h-16 w-16 shrink-0 overflow-hidden rounded-full"


def star_rating(rating: int, label: str) -> rx.Component:
    """Filled and empty stars (decorative) followed by the rating as text."""
    return rx.el.div(
        rx.el.span(
            *[
                rx.icon(
                    "star",
                    size=18,
                    aria_hidden="true",
                    class_name="fill-amber-400 text-amber-400"
                    if position <= rating
                    else "fill-slate-200 text-slate-300",
                )
                for position in range(1, MAX_RATING + 1)
            ],
            class_name="flex gap-0.5",
        ),
        rx.el.span(label, class_name="text-sm font-medium text-slate-600"),
        class_name="flex items-center gap-2",
    )


def quote_card(
    quote: str, name: str, detail: str, photo: Image, *above: rx.Component, class_name: str = CARD
) -> rx.Component:
    """A quote with the photo, name and role of the person who said it."""
    return rx.el.figure(
        *above,
        rx.el.blockquote(rx.el.p(f"«{quote}»"), class_name="mt-4 flex-1 leading-7 text-slate-700"),
        rx.el.figcaption(
            image(photo, AVATAR_SIZES, class_name=_AVATAR),
            rx.el.div(
                rx.el.p(name, class_name="font-semibold text-slate-900"),
                rx.el.p(detail, class_name="text-sm text-slate-600"),
            ),
            class_name="mt-6 flex items-center gap-4",
        ),
        class_name=class_name + " flex h-full flex-col",
    )


def testimonial_card(testimonial: Testimonial) -> rx.Component:
    """A client's quote with their rating, photo, name, role and company."""
    return quote_card(
        testimonial.quote,
        testimonial.name,
        f"{testimonial.role}, {testimonial.company}",
        testimonial.image,
        star_rating(testimonial.rating, COPY.rating_text(testimonial)),
    )

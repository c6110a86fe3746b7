"""The two lead forms: the Home e-mail capture and the consultation booking.

Pages place them with ``hero_capture_form()`` and ``booking_form()``; their state,
validation and delivery live in ``agency_site/state/forms.py`` and ``agency_site/leads``.
"""

import reflex as rx

from agency_site.components import styles


def hero_capture_form() -> rx.Component:
    """E-mail capture of the Home hero (type=email, required)."""
    return rx.el.form(
        rx.el.label("Tu correo electrónico", html_for="hero-email", class_name="sr-only"),
        rx.el.input(
            id="hero-email",
            name="email",
            type="email",
            required=True,
            autocomplete="email",
            placeholder="tu@email.com",
            class_name="min-w-0 flex-1 rounded-full border border-slate-300 px-5 py-3",
        ),
        rx.el.button("Quiero más información", type="submit", class_name=styles.BUTTON_PRIMARY),
        id="hero-capture-form",
        class_name="flex flex-col gap-3 sm:flex-row",
    )


def booking_form() -> rx.Component:
    """Consultation booking form of /schedule."""
    return rx.el.form(
        rx.el.button("Agendar consulta", type="submit", class_name=styles.BUTTON_PRIMARY),
        id="booking-form",
        class_name="space-y-6",
    )

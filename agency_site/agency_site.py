"""The Reflex app: every page of ``routes.py``, in Spanish, with the shared stylesheet."""

import reflex as rx

from agency_site import routes

app = rx.App(
    html_lang="es",
    stylesheets=["/site.css"],
    toaster=None,
)
routes.register(app)

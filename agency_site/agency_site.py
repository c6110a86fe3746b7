"""The Reflex app: every page of ``routes.py``, in Spanish, with the shared stylesheet."""

import reflex as rx

from agency_site import routes
from agency_site.leads.runtime import lifespan as leads_lifespan

app = rx.App(
    html_lang="es",
    stylesheets=["/site.css"],
    toaster=None,
)
routes.register(app)
# Migrates the leads table, then retries undelivered leads, in every backend worker.
app.register_lifespan_task(leads_lifespan)

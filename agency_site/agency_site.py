"""The Reflex app: every page of ``routes.py``, in Spanish, with the shared stylesheet."""

import reflex as rx

from agency_site import routes
from agency_site.leads.runtime import lifespan as leads_lifespan
from agency_site.leads.runtime import site_api
from agency_site.seo.head import site_head
from agency_site.server import SiteMiddleware

app = rx.App(
    html_lang="es",
    stylesheets=["/site.css"],
    head_components=site_head(),
    toaster=None,
    # Our endpoints (/_site/...) first; the middleware wraps them too (headers).
    api_transformer=[site_api(), SiteMiddleware],
)
# No connection pulser or 'Cannot connect to server' overlay: the pages are static
# and stay readable and navigable while the backend is away; the forms say so
# themselves (their [data-offline-note]).
app.app_wraps.pop((5, "Overlay"))
routes.register(app)
# Migrates the leads table, then retries undelivered leads, in every backend worker.
app.register_lifespan_task(leads_lifespan)

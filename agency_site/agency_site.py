"""The Reflex app: every page of ``routes.py``, in Spanish and Catalan, with the shared
stylesheet; and the backend's own endpoints, the one place that knows every feature: the
forms (``site_api.py``), the leads' health, the bookings' pages, the owner's report, the
readers' error reports, the owner's desk."""

import reflex as rx
from starlette.applications import Starlette

from agency_site import event_guard, routes
from agency_site.bookings.runtime import booking_api
from agency_site.client_errors import client_errors_api
from agency_site.desk.runtime import desk_api
from agency_site.leads.runtime import form_tokens, health_api, intake
from agency_site.leads.runtime import lifespan as leads_lifespan
from agency_site.reflex_ext.backend_origin import accept_own_origin, backend_base
from agency_site.reflex_ext.connection_overlay import drop_connection_overlay
from agency_site.reflex_ext.internals import get_config
from agency_site.reflex_ext.page_language import document_lang
from agency_site.report.started import forms_started
from agency_site.report.web import report_api
from agency_site.seo.head import site_head
from agency_site.server import SiteMiddleware
from agency_site.settings import get_settings
from agency_site.site_api import create_app as forms_api
from agency_site.state.form_states import FORM_STATES


def site_api() -> Starlette:
    """The ``/_site/`` endpoints of this backend, from the settings: the forms (their pages
    without JavaScript, the HTTP fallback, the tokens, counted as forms started by the
    report), the leads' health, the bookings' pages, the owner's report page."""
    settings, config = get_settings(), get_config()
    started = forms_started(settings, lambda: intake().store.engine)
    forms = forms_api(
        intake,
        api_url=backend_base(),
        site_url=settings.site_url,
        allowed_origins=settings.allowed_origins,
        trusted_hops=config.trusted_proxy_hops,
        max_body_bytes=settings.reflex.socket_max_http_buffer_size,
        get_tokens=form_tokens,
        on_token=started.seen,
    )
    return Starlette(
        routes=[*forms.routes, *health_api().routes, *booking_api().routes, *report_api().routes]
    )


app = rx.App(
    # <html lang> follows the page's path: "ca" under /ca, else "es".
    # (App.html_lang takes only a string: the expression goes in as the element's attribute.)
    html_custom_attrs={"lang": document_lang()},
    stylesheets=["/site.css"],
    head_components=site_head(),
    toaster=None,
    # Our /_site/ endpoints (forms without JavaScript, leads health, readers' error
    # reports), the owner's desk in front of them (its own paths only: agency_site/desk/),
    # then the middleware around everything (headers).
    api_transformer=[site_api(), client_errors_api(), desk_api(), SiteMiddleware],
)
# No connection pulser or 'Cannot connect to server' overlay: the pages are static
# and stay readable and navigable while the backend is away; the forms say so
# themselves (their [data-offline-note]).
drop_connection_overlay(app)
routes.register(app)
# Crafted websocket events are refused, in one short log line, before Reflex reads them.
event_guard.install(app, [state.submit for state in FORM_STATES.values()])
# The websocket takes the site's origins and the host it was reached at (any of one
# server's names: localhost, 127.0.0.1, 0.0.0.0...).
accept_own_origin(app, get_settings().allowed_origins)
# Migrates the leads table, then retries undelivered leads, in every backend worker.
app.register_lifespan_task(leads_lifespan)

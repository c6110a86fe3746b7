"""The desk of this backend process, from the settings: mounted in front of the backend by
``agency_site.py`` (``api_transformer``), on the intake's database."""

from collections.abc import Callable
from functools import cache

from starlette.types import ASGIApp

from agency_site.desk.app import SCREENS, routes
from agency_site.desk.config import desk_config
from agency_site.desk.figures_view import leads_health_details
from agency_site.desk.guard import Desk, DeskMount, create_app
from agency_site.desk.lead_tools import LeadTools
from agency_site.desk.privacy_findings import PrivacyTools
from agency_site.desk.sign_in import PUBLIC, SignInLimiter


def desk_api() -> Callable[[ASGIApp], ASGIApp]:
    """The transform that puts the desk in front of the backend's other routes."""
    from agency_site.bookings.runtime import desk as booking_desk
    from agency_site.leads.ratelimit import storage_for
    from agency_site.leads.runtime import intake
    from agency_site.reflex_ext.internals import get_config
    from agency_site.report.web import not_found_page
    from agency_site.settings import get_settings

    settings, config = get_settings(), get_config()
    redis_url = settings.reflex.redis_url

    @cache
    def limiter() -> SignInLimiter:
        storage = storage_for(redis_url.get_secret_value() if redis_url else None)
        return SignInLimiter(
            storage, settings.desk.sign_in_attempts, settings.desk.sign_in_window_seconds
        )

    @cache
    def lead_tools() -> LeadTools:
        leads = settings.leads
        return LeadTools(intake().delivery, leads.spam_keep_days, leads.webhook_url_list)

    desk = Desk(
        config=desk_config(settings, config.api_url),
        engine=lambda: intake().store.engine,
        limiter=limiter,
        site_url=settings.site_url,
        trusted_hops=config.trusted_proxy_hops,
        public=PUBLIC,
        lead_tools=lead_tools,
        booking_desk=booking_desk,
        privacy_tools=cache(privacy_tools),
        leads_health=leads_health_details,
    )
    app = create_app(desk, routes(SCREENS), lambda: not_found_page(settings.site_url))
    return lambda backend: DeskMount(app, backend)


def privacy_tools() -> PrivacyTools:
    """The intake's store, spool and erasure log, and the webhook channel (if any)."""
    from agency_site.leads.runtime import intake, webhooks
    from agency_site.settings import get_settings

    the_intake, channel = intake(), webhooks()
    return PrivacyTools(
        store=the_intake.store,
        spool=the_intake.spool,
        erasure_log=get_settings().leads.erasure_log_path,
        webhooks=channel if channel.enabled else None,
    )

"""The leads machinery of this backend process, built once from the settings.

``lifespan`` runs in every backend worker: it migrates the database, reports the
delivery configuration and keeps the retry loop and the monitor (alerts, canary,
daily purge: ``monitor.py``) running while the app serves.
"""

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator
from functools import lru_cache

import sqlalchemy as sa
from starlette.applications import Starlette

from agency_site.content.site import SITE
from agency_site.emailjs import EmailJSClient, ssl_context
from agency_site.leads import migrations
from agency_site.leads.delivery import Delivery, RetryPolicy
from agency_site.leads.health import leads_api
from agency_site.leads.intake import LeadIntake
from agency_site.leads.kinds import LeadKind, LeadStatus
from agency_site.leads.monitor import Monitor
from agency_site.leads.ratelimit import RateLimiter, storage_for
from agency_site.leads.store import LeadStore
from agency_site.settings import Settings, get_settings

logger = logging.getLogger(__name__)


def configure_logging() -> None:
    """Print the site's own log records (INFO and up) on the backend's console."""
    site_logger = logging.getLogger("agency_site")
    if site_logger.handlers:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    site_logger.addHandler(handler)
    site_logger.setLevel(logging.INFO)
    site_logger.propagate = False


def database_engine() -> sa.Engine:
    """The engine of the database in ``rxconfig.py`` (``REFLEX_DB_URL``)."""
    from agency_site.reflex_ext.internals import get_engine

    return get_engine()


def build_delivery(settings: Settings, store: LeadStore) -> Delivery:
    """The delivery of leads with these settings (not configured without EmailJS ids)."""
    emailjs = settings.emailjs
    client = (
        EmailJSClient(
            api_base=emailjs.api_base,
            service_id=emailjs.service_id,
            public_key=emailjs.public_key,
            private_key=emailjs.private_key.get_secret_value(),
            timeout_s=settings.emailjs.timeout_seconds,
        )
        if emailjs.configured
        else None
    )
    return Delivery(
        store=store,
        client=client,
        templates={
            LeadKind.CONTACT: emailjs.contact_template_id,
            LeadKind.BOOKING: emailjs.booking_template_id,
        },
        to_email=SITE.email,
        config=emailjs.fingerprint,
        policy=RetryPolicy(
            base=dt.timedelta(seconds=settings.leads.retry_base_seconds),
            cap=dt.timedelta(seconds=settings.leads.retry_max_seconds),
            poll=dt.timedelta(seconds=settings.leads.retry_poll_seconds),
            lease=dt.timedelta(seconds=max(120.0, 4 * settings.emailjs.timeout_seconds)),
            unconfirmed=dt.timedelta(seconds=settings.leads.retry_unconfirmed_seconds),
        ),
    )


def build_monitor(settings: Settings, delivery: Delivery) -> Monitor:
    """Alerts, canary and retention of these settings."""
    return Monitor(
        delivery=delivery,
        webhook_url=settings.leads.alert_webhook_url.get_secret_value(),
        canary_every=dt.timedelta(seconds=settings.leads.canary_interval_seconds),
        retention_months=settings.leads.retention_months,
        site_url=settings.site_url,
    )


@lru_cache(maxsize=1)
def monitor() -> Monitor:
    """The monitor of this process, on the intake's store and delivery."""
    return build_monitor(get_settings(), intake().delivery)


def health_api() -> Starlette:
    """``/_site/leads/health`` of this process (mounted by ``agency_site.site_api``)."""
    return leads_api(
        store=lambda: intake().store,
        configured=lambda: intake().delivery.configured,
        max_age=lambda: dt.timedelta(seconds=get_settings().leads.health_max_queued_age_seconds),
    )


@lru_cache(maxsize=1)
def intake() -> LeadIntake:
    """The intake of this process, on the configured database and EmailJS account."""
    settings = get_settings()
    store = LeadStore(database_engine())
    redis_url = settings.reflex.redis_url
    return LeadIntake(
        store=store,
        delivery=build_delivery(settings, store),
        limiter=RateLimiter(
            storage_for(redis_url.get_secret_value() if redis_url else None),
            per_ip=settings.leads.rate_limit_per_ip,
            window_s=settings.leads.rate_limit_window_seconds,
        ),
        deadline_s=settings.leads.submit_deadline_seconds,
    )


def prepare(delivery: Delivery) -> None:
    """Start-up checks: migrate, say whether delivery works, release leads held by old settings."""
    migrations.upgrade(delivery.store.engine)
    if not delivery.configured:
        logger.warning(
            "E-mail delivery is NOT configured (EMAILJS_SERVICE_ID, EMAILJS_PUBLIC_KEY, "
            "EMAILJS_CONTACT_TEMPLATE_ID, EMAILJS_BOOKING_TEMPLATE_ID): form submissions are "
            "stored in the leads table and sent once the settings are in place and the site "
            "is restarted. See them with `python -m agency_site.leads list`."
        )
        return
    delivery.release_held()
    if held := delivery.store.count(LeadStatus.HELD):
        logger.error(
            "%s lead(s) are held because EmailJS refused the current settings; fix the "
            "EmailJS account or the EMAILJS_* settings: one held lead is retried every "
            "LEADS_CANARY_INTERVAL_SECONDS and all are sent once it gets through "
            "(`python -m agency_site.leads list`, GET /_site/leads/health).",
            held,
        )


@contextlib.asynccontextmanager
async def lifespan() -> AsyncIterator[None]:
    """Lifespan task of the app: prepare the leads table, then run the retry and monitor loops."""
    configure_logging()
    delivery = intake().delivery
    await asyncio.to_thread(prepare, delivery)
    # Load the CA bundle off the event loop, once: every EmailJS connection reuses it.
    await asyncio.to_thread(ssl_context)
    # Alerts, canary and the daily purge run even without delivery (purge and health).
    loops = [
        asyncio.create_task(monitor().run_forever(delivery.policy.poll), name="leads-monitor-loop")
    ]
    if delivery.configured:
        loops.append(asyncio.create_task(delivery.run_forever(), name="leads-retry-loop"))
    try:
        yield
    finally:
        for loop in loops:
            loop.cancel()
        for loop in loops:
            with contextlib.suppress(asyncio.CancelledError):
                await loop
        if delivery.client is not None:
            await delivery.client.aclose()

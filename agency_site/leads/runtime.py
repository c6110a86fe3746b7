"""The leads machinery of this backend process, built once from the settings.

``lifespan`` runs in every backend worker. It first names each EmailJS setting not set
(``report_emailjs``). The backend serves at once, even while the database is down:
submissions then go to the spool (``spool.py``). In the background it migrates the
database as soon as it answers (retrying with backoff, under the migration lock of
``migrations.py``), releases the leads held under older EmailJS settings, and then keeps the retry loop and the monitor (alerts, canary, daily purge:
``monitor.py``) running, with the rounds features add (``add_round``: the report's
forms-started counts, flushed once a minute, and once more when the worker stops). The
drain loop moves spooled leads into the database once it is migrated, and watches the
spool's age for the owner's alert all along.

First of all it checks it can write in each folder it writes (``write_folders``: the
spool, the erasure log's, a SQLite database's): a folder it cannot write is an ERROR
naming the setting to fix, and ``/_site/leads/health`` reports it while it lasts.
"""

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from starlette.applications import Starlette

from agency_site.content.site import SITE
from agency_site.emailjs import EmailJSClient, ssl_context
from agency_site.forms.template_ids import fingerprint, form_templates, shared_templates
from agency_site.leads import database, migrations, plugins
from agency_site.leads.delivery import Delivery, RetryPolicy
from agency_site.leads.health import LeadsHealth, leads_api, unwritable
from agency_site.leads.intake import LeadIntake
from agency_site.leads.loop import Round, forever
from agency_site.leads.monitor import Monitor
from agency_site.leads.ratelimit import RateLimiter, network_key, storage_for
from agency_site.leads.spam.address_check import AddressScreen, mx_lookup
from agency_site.leads.spam.challenge import challenges_of
from agency_site.leads.spam.form_token import FormTokens, tokens_of
from agency_site.leads.spam.screen import SpamScreen
from agency_site.leads.spool import Spool
from agency_site.leads.spool_drain import SpoolDrain, drain_forever
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks.channel import WebhookChannel, WebhookPolicy
from agency_site.paths import DESK_SPAM, LEADS_HEALTH
from agency_site.settings import EmailJSSettings, Settings, get_settings

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


# How often the drain loop looks at the spool, and the longest wait between tries to
# reach a database that is down at start-up.
SPOOL_POLL_S = 2.0
PREPARE_RETRY_MAX_S = 30.0
# The longest a worker that stops waits for the features' last rounds (``Round.last``).
LAST_ROUND_S = 5.0

# The rounds features add to every worker's loops, by name (``add_round``).
_ROUNDS: dict[str, Round] = {}


def add_round(round: Round) -> None:
    """Run ``round`` in this process's workers beside the leads' loops, once the database
    is prepared (the module that builds the ``/_site/`` endpoints adds the report's
    forms-started flush); a round of the same name replaces the earlier one."""
    _ROUNDS[round.name] = round


async def last_rounds(rounds: tuple[Round, ...], timeout_s: float = LAST_ROUND_S) -> None:
    """Each round's ``last``, best effort: each within ``timeout_s``, an error logged."""
    for round in rounds:
        if round.last is None:
            continue
        try:
            async with asyncio.timeout(timeout_s):
                await round.last()
        except Exception as error:
            logger.warning("%s: its last round failed (%s).", round.name, type(error).__name__)


def database_engine() -> sa.Engine:
    """The leads' engine on ``REFLEX_DB_URL``, every connect and statement bounded in time."""
    settings = get_settings()
    return database.create_engine(
        settings.reflex.db_url.get_secret_value(),
        connect_timeout_s=settings.leads.db_connect_timeout_seconds,
        statement_timeout_s=settings.leads.db_statement_timeout_seconds,
    )


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
        templates=form_templates(emailjs),
        to_email=SITE.email,
        config=fingerprint(emailjs),
        policy=RetryPolicy(
            base=dt.timedelta(seconds=settings.leads.retry_base_seconds),
            cap=dt.timedelta(seconds=settings.leads.retry_max_seconds),
            poll=dt.timedelta(seconds=settings.leads.retry_poll_seconds),
            lease=dt.timedelta(seconds=max(120.0, 4 * settings.emailjs.timeout_seconds)),
            unconfirmed=dt.timedelta(seconds=settings.leads.retry_unconfirmed_seconds),
        ),
    )


def desk_spam_url(settings: Settings) -> str:
    """The desk's spam page, absolute: on the backend's public URL (``REFLEX_API_URL``,
    the backend's port on localhost when unset), as the report's link is."""
    return settings.reflex.api_url.rstrip("/") + DESK_SPAM


def build_monitor(
    settings: Settings,
    delivery: Delivery,
    spool: Spool | None = None,
    channel: WebhookChannel | None = None,
) -> Monitor:
    """Alerts, canary, retention and the spam digest of these settings."""
    return Monitor(
        delivery=delivery,
        webhook_url=settings.leads.alert_webhook_url.get_secret_value(),
        canary_every=dt.timedelta(seconds=settings.leads.canary_interval_seconds),
        retention_months=settings.leads.retention_months,
        site_url=settings.site_url,
        queued_alert_after=dt.timedelta(seconds=settings.leads.alert_queued_age_seconds),
        spool=spool,
        spool_alert_after=dt.timedelta(seconds=settings.leads.spool_alert_seconds),
        spam_keep_days=settings.leads.spam_keep_days,
        desk_url=desk_spam_url(settings),
        agency_template=settings.emailjs.template_id(settings.emailjs.AGENCY_TEMPLATE),
        webhooks=channel,
    )


def build_webhooks(settings: Settings, store: LeadStore, alert=None) -> WebhookChannel:
    """The webhook channel of these settings (none without ``LEADS_WEBHOOK_URLS``)."""
    options = {"alert": alert} if alert is not None else {}
    return WebhookChannel(
        engine=store.engine,
        urls=settings.leads.webhook_url_list,
        secrets=settings.leads.webhook_secrets,
        plugins=store.plugins,
        policy=WebhookPolicy(timeout_s=settings.leads.webhook_timeout_seconds),
        **options,
    )


async def _alert(text: str) -> bool:
    return await monitor().alert(text)


@lru_cache(maxsize=1)
def webhooks() -> WebhookChannel:
    """The webhook channel of this process, on the intake's store; alerts as the monitor."""
    return build_webhooks(get_settings(), intake().store, _alert)


@lru_cache(maxsize=1)
def monitor() -> Monitor:
    """The monitor of this process, on the intake's store, delivery, spool and webhooks."""
    return build_monitor(get_settings(), intake().delivery, intake().spool, webhooks())


def write_folders(settings: Settings) -> dict[str, Path]:
    """Every folder this backend writes, by the setting that places it."""
    folders = {
        "LEADS_SPOOL_DIR": settings.leads.spool_path,
        "LEADS_ERASURE_LOG": settings.leads.erasure_log_path.parent,
    }
    url = sa.make_url(settings.reflex.db_url.get_secret_value())
    name = url.database or ""
    if url.get_backend_name() == "sqlite" and name not in ("", ":memory:") and ":" not in name:
        # Relative to the working folder, as SQLite opens it.
        folders["REFLEX_DB_URL"] = Path(name).resolve().parent
    return folders


def check_write_folders(settings: Settings) -> dict[str, OSError]:
    """Probe each folder this backend writes; an ERROR for each it cannot write."""
    folders = write_folders(settings)
    problems = unwritable(folders)
    for setting, error in problems.items():
        logger.error(
            "The site cannot write in %s (%s: %s): leads may be refused. Set %s to a folder "
            "its user may write (under the generated units: inside DEPLOY_DATA_DIR, %s).",
            folders[setting],
            type(error).__name__,
            error.strerror or error,
            setting,
            settings.deploy.data_dir,
        )
    return problems


def report_emailjs(emailjs: EmailJSSettings) -> None:
    """Start-up lines naming each EmailJS setting not set: a WARNING for one leads wait
    for, and one for each form's template id that falls back to the agency template
    (whose template must then show that kind's fields too)."""
    if emailjs.missing:
        logger.warning(
            "E-mail delivery is NOT configured: set %s. Form submissions are stored in the "
            "leads table and sent once they are set and the site restarted (`python -m "
            "agency_site.leads list`; GET %s says `unconfigured` while one waits).",
            ", ".join(emailjs.missing),
            LEADS_HEALTH,
        )
    for unset, shared in shared_templates(emailjs).items():
        logger.warning(
            "%s is not set: those e-mails go through %s, whose template must show their "
            "fields too (the agency template of docs/leads.md, `python -m "
            "agency_site.emailjs_templates`); set %s for a template of their own.",
            unset,
            shared,
            unset,
        )


@lru_cache(maxsize=1)
def leads_health() -> LeadsHealth:
    """The leads' health of this process: checked at most every ``CHECK_EVERY_S`` seconds."""
    return LeadsHealth(
        store=lambda: intake().store,
        configured=lambda: intake().delivery.configured,
        max_age=lambda: dt.timedelta(seconds=get_settings().leads.health_max_queued_age_seconds),
        write_folders=lambda: write_folders(get_settings()),
        emailjs=lambda: get_settings().emailjs,
        webhooks=lambda: webhooks().summary() if webhooks().enabled else None,
    )


def health_api() -> Starlette:
    """``/_site/leads/health`` of this process (mounted by ``agency_site.site_api``): the
    status to anyone, the details with ``LEADS_HEALTH_TOKEN``."""
    return leads_api(
        leads_health(), token=lambda: get_settings().leads.health_token.get_secret_value()
    )


def health_details(now: dt.datetime | None = None) -> dict[str, Any]:
    """The details of the leads' health for the owner's desk (``agency_site/desk/`` calls
    it to show them): the status and what ``health.health_report`` says (leads waiting,
    held, rejected, the last delivery, folders and settings to fix, the webhooks, the
    plugins' notes: the owner's calendars failing), with ``checked_at``. From this worker's
    last check when it is fresh (``CHECK_EVERY_S``), else a new one at ``now``. Blocking:
    call it in a thread (``await asyncio.to_thread(health_details)``)."""
    return leads_health().details(now)


@lru_cache(maxsize=1)
def intake() -> LeadIntake:
    """The intake of this process, on the configured database and EmailJS account."""
    settings = get_settings()
    # The features plugged in (``LEADS_PLUGINS``): their hooks run in the store, the
    # delivery, the monitor and the operator command, all of which reach them here.
    store = LeadStore(database_engine(), plugins.load(settings))
    redis_url = settings.reflex.redis_url
    delivery = build_delivery(settings, store)
    return LeadIntake(
        store=store,
        delivery=delivery,
        limiter=RateLimiter(
            storage_for(redis_url.get_secret_value() if redis_url else None),
            per_ip=settings.leads.rate_limit_per_ip,
            window_s=settings.leads.rate_limit_window_seconds,
        ),
        deadline_s=settings.leads.submit_deadline_seconds,
        spool=Spool(settings.leads.spool_path, erasure_log=settings.leads.erasure_log_path),
        screen=SpamScreen(
            tokens=form_tokens(),
            addresses=AddressScreen(mx_lookup() if settings.leads.check_mx else None),
            challenges=challenges_of(settings),
        ),
        network_key=network_key(settings),
    )


@lru_cache(maxsize=1)
def form_tokens() -> FormTokens | None:
    """The forms' time trap of this process (``spam/form_token.py``): None when it is off."""
    return tokens_of(get_settings())


def prepare(delivery: Delivery, channel: WebhookChannel | None = None) -> None:
    """Start-up checks: migrate, register the webhook endpoints, release leads held by old
    settings, count those still held."""
    migrations.upgrade(delivery.store.engine)
    if channel is not None:
        channel.register()
    if not delivery.configured:
        return  # Said at start-up, naming the settings to set (``report_emailjs``).
    delivery.release_held()
    if held := delivery.store.count(LeadStatus.HELD):
        logger.error(
            "%s lead(s) are held because EmailJS refused the current settings; fix the "
            "EmailJS account or the EMAILJS_* settings: one held lead is retried every "
            "LEADS_CANARY_INTERVAL_SECONDS and all are sent once it gets through "
            "(`python -m agency_site.leads list`, GET %s).",
            held,
            LEADS_HEALTH,
        )


async def prepare_when_reachable(
    delivery: Delivery, retry_max_s: float | None = None, channel: WebhookChannel | None = None
):
    """``prepare`` as soon as the database answers: retried with backoff, never raises.

    The backoff starts at 1 s and doubles up to ``retry_max_s`` (``PREPARE_RETRY_MAX_S``).
    """
    retry_max_s = PREPARE_RETRY_MAX_S if retry_max_s is None else retry_max_s
    wait = min(1.0, retry_max_s)
    while True:
        try:
            await asyncio.to_thread(prepare, delivery, channel)
        except Exception as error:
            logger.error(
                "The database cannot be prepared (%s); the site serves and spools leads, "
                "retrying in %s s.",
                type(error).__name__,
                int(wait),
            )
            await asyncio.sleep(wait)
            wait = min(2 * wait, retry_max_s)
        else:
            return


async def keep_leads_moving(
    the_intake: LeadIntake,
    the_monitor: Monitor,
    channel: WebhookChannel | None = None,
    rounds: tuple[Round, ...] = (),
) -> None:
    """Every loop of the leads, in order: drain watch at once; the others once prepared,
    with the features' ``rounds``. The webhook loop runs beside the e-mail's: neither waits
    for the other."""
    delivery = the_intake.delivery
    ready = asyncio.Event()
    loops = [
        asyncio.create_task(
            drain_forever(SpoolDrain.of(the_intake), the_monitor, ready, SPOOL_POLL_S),
            name="leads-drain-loop",
        )
    ]
    try:
        await prepare_when_reachable(delivery, channel=channel)
        ready.set()
        # Alerts, canary and the daily purge run even without delivery (purge and health).
        loops.append(
            asyncio.create_task(
                the_monitor.run_forever(delivery.policy.poll), name="leads-monitor-loop"
            )
        )
        if delivery.configured:
            loops.append(asyncio.create_task(delivery.run_forever(), name="leads-retry-loop"))
        if channel is not None and channel.can_send:
            loops.append(asyncio.create_task(channel.run_forever(), name="leads-webhook-loop"))
        for round in rounds:
            loops.append(
                asyncio.create_task(forever(round.run, round.every, round.name), name=round.name)
            )
        await asyncio.gather(*loops)
    finally:
        for loop in loops:
            loop.cancel()
        for loop in loops:
            with contextlib.suppress(asyncio.CancelledError):
                await loop


@contextlib.asynccontextmanager
async def lifespan() -> AsyncIterator[None]:
    """Lifespan task of the app: serve at once; prepare the database and run the loops behind."""
    configure_logging()
    report_emailjs(get_settings().emailjs)
    await asyncio.to_thread(check_write_folders, get_settings())
    delivery = intake().delivery
    # Load the CA bundle off the event loop, once: every EmailJS connection reuses it.
    await asyncio.to_thread(ssl_context)
    rounds = tuple(_ROUNDS.values())
    task = asyncio.create_task(
        keep_leads_moving(intake(), monitor(), webhooks(), rounds), name="leads-loops"
    )
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await last_rounds(rounds)
        if delivery.client is not None:
            await delivery.client.aclose()
        await webhooks().aclose()

"""``GET /_site/leads/health``: are leads reaching the agency's inbox? For any uptime monitor.

JSON with the counts of waiting and held leads, the age of the oldest waiting one and
the last delivery. HTTP 503 when a lead is held (EmailJS refuses the configuration) or
the oldest waiting lead is older than ``LEADS_HEALTH_MAX_QUEUED_AGE_SECONDS``, or the
database cannot be read, or a folder the site writes cannot be written (``unwritable``:
the settings that place them, e.g. ``LEADS_SPOOL_DIR``; never the paths), or a lead waits
for an EmailJS setting that is not set (``unconfigured``: ``unset_settings`` names them);
200 otherwise. ``shared_templates`` names the forms' template ids left unset and the
template their e-mails go through instead. The plugins add their ``notes``
(``LeadPlugin.health``: the owner's calendars that fail to be fetched), which leave the
status as it is: the form works without them. It shows no personal data.

Mounted on the backend through ``rx.App(api_transformer=[leads_api(), ...])``.
"""

import asyncio
import datetime as dt
import logging
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agency_site.leads.models import utcnow
from agency_site.leads.store import LeadStore, LeadSummary
from agency_site.leads.webhooks import WebhookSummary
from agency_site.paths import LEADS_HEALTH
from agency_site.settings import EmailJSSettings

logger = logging.getLogger(__name__)

_NO_STORE = {"Cache-Control": "no-store"}


def probe(folder: Path) -> None:
    """Create ``folder`` if need be (0700), then a file in it, written, fsynced and removed.

    Raises OSError when the site cannot write there (read-only, not its own, disk full).
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(prefix=".write-probe-", dir=folder)
    try:
        os.write(descriptor, b"probe")
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
        os.unlink(name)
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def unwritable(folders: Mapping[str, Path]) -> dict[str, OSError]:
    """The folders of ``folders`` (by the setting that places each) ``probe`` fails in."""
    problems = {}
    for setting, folder in folders.items():
        try:
            probe(folder)
        except OSError as error:
            problems[setting] = error
    return problems


def health_report(
    summary: LeadSummary,
    configured: bool,
    max_age: dt.timedelta,
    now: dt.datetime,
    unwritable_settings: Sequence[str] = (),
    emailjs: EmailJSSettings | None = None,
    webhooks: WebhookSummary | None = None,
    notes: Mapping[str, Any] | None = None,
) -> tuple[int, dict[str, Any]]:
    """HTTP status and JSON body for this summary (and the settings of unwritable folders;
    ``emailjs``: the EmailJS settings, to name those unset; ``webhooks``: theirs when the
    site has endpoints, status ``webhooks`` when one cannot send; the plugins' ``notes``)."""
    age = (now - summary.oldest_waiting_at).total_seconds() if summary.oldest_waiting_at else None
    unset = emailjs.missing if emailjs else ()
    if summary.held:
        status = "held"  # EmailJS refuses the configuration: fix it in its dashboard.
    elif unwritable_settings:
        status = "unwritable"  # A lead could not be spooled: fix the folder (its setting).
    elif unset and summary.queued + summary.sending:
        status = "unconfigured"  # Leads wait for these settings: set them, then restart.
    elif age is not None and age > max_age.total_seconds():
        status = "delayed"  # Waiting too long: provider down, or delivery not configured.
    elif webhooks is not None and webhooks.problem:
        status = "webhooks"  # Unsigned (no secret) or an endpoint paused: see its problem.
    else:
        status = "ok"
    body = {
        "status": status,
        "queued": summary.queued + summary.sending,
        "held": summary.held,
        "rejected": summary.rejected,  # Refused by EmailJS for their content: read them.
        "oldest_queued_age_seconds": None if age is None else int(age),
        "max_queued_age_seconds": int(max_age.total_seconds()),
        "last_delivery_at": summary.last_sent_at.isoformat() if summary.last_sent_at else None,
        "delivery_configured": configured,
    }
    if unwritable_settings:
        body["unwritable"] = sorted(unwritable_settings)
    if unset:
        body["unset_settings"] = list(unset)
    if emailjs and emailjs.shared_templates:
        body["shared_templates"] = emailjs.shared_templates
    if webhooks is not None:
        body["webhooks"] = webhooks.as_json()
    if notes:
        body["notes"] = dict(notes)
    return (200 if status == "ok" else 503), body


def leads_api(
    store: Callable[[], LeadStore],
    configured: Callable[[], bool],
    max_age: Callable[[], dt.timedelta],
    write_folders: Callable[[], Mapping[str, Path]] = dict,
    emailjs: Callable[[], EmailJSSettings | None] = lambda: None,
    webhooks: Callable[[], WebhookSummary | None] = lambda: None,
) -> Starlette:
    """The site's own endpoints under ``/_site/leads/``; dependencies are looked up per request.

    ``write_folders``: the folders the site writes, by setting, probed on every request;
    ``emailjs``: the EmailJS settings in use, to name those unset.
    """

    def notes(now: dt.datetime) -> dict[str, Any]:
        """The plugins' notes (none when one fails: the page still answers)."""
        try:
            return store().plugins.health(now)
        except Exception:
            logger.exception("A plugin's health notes could not be read.")
            return {}

    async def health(_request: Request) -> JSONResponse:
        bad = sorted(await asyncio.to_thread(lambda: unwritable(write_folders())))
        try:
            summary = await asyncio.to_thread(store().summary)
            hooks = await asyncio.to_thread(webhooks)
        except Exception:
            logger.exception("The leads health check could not read the database.")
            body = {"status": "error", **({"unwritable": bad} if bad else {})}
            return JSONResponse(body, status_code=503, headers=_NO_STORE)
        now = utcnow()
        code, body = health_report(
            summary,
            configured(),
            max_age(),
            now,
            bad,
            emailjs(),
            hooks,
            notes=await asyncio.to_thread(notes, now),
        )
        return JSONResponse(body, status_code=code, headers=_NO_STORE)

    return Starlette(routes=[Route(LEADS_HEALTH, health, methods=["GET", "HEAD"])])

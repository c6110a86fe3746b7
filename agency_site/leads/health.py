"""``GET /_site/leads/health``: are leads reaching the agency's inbox? For any uptime monitor.

**The public answer is a status**, and the HTTP code a monitor alerts on:
``{"status": "ok"}`` (200), or the problem's word (503): ``held`` when a lead is held
(EmailJS refuses the configuration), ``unwritable`` when a folder the site writes cannot
be written, ``unconfigured`` when a lead waits for an EmailJS setting that is not set,
``delayed`` when the oldest waiting lead is older than
``LEADS_HEALTH_MAX_QUEUED_AGE_SECONDS``, ``webhooks`` when a webhook cannot be sent,
``spam_unshown`` when leads in quarantine were never shown to the owner days after they
came (the spam digest does not get through: they are kept, not purged), a feature's word
(``LeadPlugin.health_problem``: ``calendar_stale`` when an owner's calendar was not fetched
for ``BOOKING_BUSY_STALE_HOURS``), and ``error`` when the database cannot be read.

**The details are the owner's** (``health_report``): the counts of waiting, held and
rejected leads, the age of the oldest waiting one and the last delivery, the settings of
the folders that cannot be written (``unwritable``: never the paths) and of EmailJS left
unset (``unset_settings``, ``shared_templates``), the webhooks' summary, and the plugins'
``notes`` (``LeadPlugin.health``: the owner's calendars that fail, with their host and
problem), which leave the status as it is but for a plugin's ``health_problem``. They are shown
on the owner's desk (``LeadsHealth.details``, through ``runtime.health_details``) and here
to a request carrying ``Authorization: Bearer <LEADS_HEALTH_TOKEN>`` (compared in constant
time; a wrong one is answered 401; with the setting unset, to no request). No personal
data either way.

**A request writes nothing and costs nothing**: the check (a probe file written, fsynced
and removed in each folder, the database's summary, the plugins' notes) runs at most once
per ``CHECK_EVERY_S`` seconds per worker, whatever the rate of requests (``LeadsHealth``:
the last check is kept; the requests that come while one runs wait for that one). A flood
of requests reads the database once per interval and never holds its pool.

Mounted on the backend through ``rx.App(api_transformer=[leads_api(), ...])``.
"""

import asyncio
import datetime as dt
import hashlib
import hmac
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agency_site.forms.template_ids import shared_templates
from agency_site.leads.database import error_line
from agency_site.leads.models import utcnow
from agency_site.leads.store import LeadStore, LeadSummary
from agency_site.leads.webhooks.channel import WebhookSummary
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
    unshown_spam: int = 0,
    problem: str | None = None,
) -> tuple[int, dict[str, Any]]:
    """HTTP status and JSON body for this summary (and the settings of unwritable folders;
    ``emailjs``: the EmailJS settings, to name those unset; ``webhooks``: theirs when the
    site has endpoints, status ``webhooks`` when one cannot send; the plugins' ``notes``;
    ``unshown_spam``: leads in quarantine the owner was never shown, days after they came,
    status ``spam_unshown``; ``problem``: a plugin's, ``Plugins.health_problem``)."""
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
    elif unshown_spam:
        status = "spam_unshown"  # The spam digest is not getting through: open the desk.
    elif problem:
        status = problem  # A feature's (a calendar not fetched for a day): see the notes.
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
    if emailjs and (shared := shared_templates(emailjs)):
        body["shared_templates"] = shared
    if webhooks is not None:
        body["webhooks"] = webhooks.as_json()
    if unshown_spam:
        body["spam_unshown"] = unshown_spam
    if notes:
        body["notes"] = dict(notes)
    return (200 if status == "ok" else 503), body


# How often one worker checks at most (the probes, the database's summary, the notes).
CHECK_EVERY_S = 5.0


@dataclass(frozen=True)
class Checked:
    """One check: its HTTP status, its details (``status`` first) and when it ended
    (``at``: the worker's ``time.monotonic()``; ``when``: the time of day)."""

    code: int
    details: dict[str, Any]
    at: float
    when: dt.datetime

    @property
    def public(self) -> dict[str, str]:
        """What anyone may see: the status word."""
        return {"status": self.details["status"]}


class LeadsHealth:
    """The leads' health of one worker, checked at most once per ``every_s`` seconds;
    its dependencies are looked up at each check.

    ``write_folders``: the folders the site writes, by setting, probed at each check;
    ``emailjs``: the EmailJS settings in use, to name those unset; ``webhooks``: the
    webhooks' summary when the site has endpoints.
    """

    def __init__(
        self,
        store: Callable[[], LeadStore],
        configured: Callable[[], bool],
        max_age: Callable[[], dt.timedelta],
        write_folders: Callable[[], Mapping[str, Path]] = dict,
        emailjs: Callable[[], EmailJSSettings | None] = lambda: None,
        webhooks: Callable[[], WebhookSummary | None] = lambda: None,
        every_s: float = CHECK_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store, self.configured, self.max_age = store, configured, max_age
        self.write_folders, self.emailjs, self.webhooks = write_folders, emailjs, webhooks
        self.every_s, self.clock = every_s, clock
        self._last: Checked | None = None
        self._checking = threading.Lock()  # One check at a time (the page's, the desk's).
        self._running: asyncio.Future[Checked] | None = None  # The page's check under way.

    def _fresh(self) -> Checked | None:
        last = self._last
        if last is not None and self.clock() - last.at < self.every_s:
            return last
        return None

    @staticmethod
    def _notes(store: LeadStore, now: dt.datetime) -> dict[str, Any]:
        """The plugins' notes (none when one fails: the page still answers)."""
        try:
            return store.plugins.health(now)
        except Exception:
            logger.exception("A plugin's health notes could not be read.")
            return {}

    @staticmethod
    def _problem(store: LeadStore, now: dt.datetime) -> str | None:
        """A plugin's problem for the status (none when one fails: the page still answers)."""
        try:
            return store.plugins.health_problem(now)
        except Exception:
            logger.exception("A plugin's health problem could not be read.")
            return None

    def _check(self, now: dt.datetime) -> Checked:
        """A new check; its ``at``: when it ended (the next one is ``every_s`` after it)."""
        bad = sorted(unwritable(self.write_folders()))
        try:
            store = self.store()
            summary = store.summary()
            unshown = store.unlisted_spam_count(now=now)
            hooks = self.webhooks()
        except Exception as error:
            # One bounded line (the driver's first line), no traceback: a worker's first
            # check can come before its start-up migration, and a database down says so
            # at every check.
            logger.error("The leads health check could not read the database: %s.",
                         error_line(error))  # fmt: skip
            body = {"status": "error", **({"unwritable": bad} if bad else {})}
            return Checked(503, body, self.clock(), utcnow())
        code, body = health_report(
            summary,
            self.configured(),
            self.max_age(),
            now,
            bad,
            self.emailjs(),
            hooks,
            notes=self._notes(store, now),
            unshown_spam=unshown,
            problem=self._problem(store, now),
        )
        return Checked(code, body, self.clock(), utcnow())

    def checked(self, now: dt.datetime | None = None) -> Checked:
        """The last check when it is fresh, else a new one (``now``: its moment); blocking
        (a thread's): it may probe the folders and read the database."""
        if (fresh := self._fresh()) is not None:
            return fresh
        with self._checking:
            if (fresh := self._fresh()) is not None:  # Made while this one waited.
                return fresh
            self._last = self._check(now or utcnow())
            return self._last

    async def current(self) -> Checked:
        """``checked`` for the page: a fresh check is answered on the event loop, and the
        requests that come while a check runs await that one (no thread each)."""
        if (fresh := self._fresh()) is not None:
            return fresh
        loop = asyncio.get_running_loop()
        running = self._running
        if running is None or running.done() or running.get_loop() is not loop:
            running = self._running = asyncio.ensure_future(asyncio.to_thread(self.checked))
        return await asyncio.shield(running)

    def details(self, now: dt.datetime | None = None) -> dict[str, Any]:
        """The owner's details of the leads' health (what ``health_report`` says, with
        ``status`` first and ``checked_at``), from the last check when it is fresh.
        Blocking: call it in a thread (``asyncio.to_thread``)."""
        checked = self.checked(now)
        return {**checked.details, "checked_at": checked.when.isoformat()}


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None without one."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip()


def token_matches(sent: str, expected: str) -> bool:
    """Whether ``sent`` is ``expected``, in a time that says nothing of either (their
    digests compared with ``hmac.compare_digest``)."""
    return hmac.compare_digest(
        hashlib.sha256(sent.encode()).digest(), hashlib.sha256(expected.encode()).digest()
    )


def leads_api(checks: LeadsHealth, token: Callable[[], str] = lambda: "") -> Starlette:
    """The site's own endpoints under ``/_site/leads/``: the health page of ``checks``;
    ``token``: the one that shows the details (``LEADS_HEALTH_TOKEN``; "": none does)."""

    async def health(request: Request) -> JSONResponse:
        sent, expected = bearer_token(request.headers), token()
        shown = sent is not None and bool(expected)
        if shown and not token_matches(sent or "", expected):
            return JSONResponse(
                {"status": "unauthorized"},
                status_code=401,
                headers={**_NO_STORE, "WWW-Authenticate": "Bearer"},
            )
        checked = await checks.current()
        body = checked.details if shown else checked.public
        return JSONResponse(body, status_code=checked.code, headers=_NO_STORE)

    return Starlette(routes=[Route(LEADS_HEALTH, health, methods=["GET", "HEAD"])])

"""What happens to a form submission: rate limit, validation, the spam gate, store or spool,
then the first send.

The form states (websocket) and the plain HTML form endpoint (``agency_site.site_api``)
both delegate here, so every rule holds on both paths and can be tested without a
browser. Every attempt counts toward the address's rate limit, invalid ones too.

A valid submission goes through the spam gate (``spam/gate.py``): a suspect one is
quarantined, a solved challenge releases its lead, a clean one comes back here. A valid
lead is stored whatever the database does: the insert is retried with backoff for up to
half the submit deadline (each try bounded by the engine's connect and statement
timeouts, ``runtime.database_engine``); if the database still does not answer, the lead
goes to this host's durable spool (``spool.py``, drained by ``spool_drain.py``) and the
visitor is told it was received. Only an outage counts (``database.failure``): a lead the
database refuses for its content is neither retried nor spooled; the visitor is asked to
correct it. The page's idempotency key makes one submission tried over both paths
(websocket, then the HTTP fallback) a single lead.

What comes with a lead (what a plugin holds for it) is decided once, in the transaction
that writes it, on every path: the insert, the visitor's release from quarantine (a
solved challenge: refused as the insert is, with the form's field errors), the spool's
drain and the owner's release (stored without what cannot be held). Nothing is checked
beforehand that one path could skip (``plugins.Hold``).
"""

import asyncio
import datetime as dt
import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

from agency_site import locale
from agency_site.content.form_words import COPY as FORMS
from agency_site.forms.declarations import BY_KIND, IDEMPOTENCY_FIELD, LANGUAGE_FIELD, SOURCE_FIELD
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result, Submission
from agency_site.leads import source as lead_source
from agency_site.leads.database import (
    DB_THREADS,
    DownMark,
    Failure,
    error_line,
    failure,
    refused_column,
)
from agency_site.leads.delivery import Delivery
from agency_site.leads.lease import new_claim_token
from agency_site.leads.models import Lead, utcnow
from agency_site.leads.plugins import Hold, Refused
from agency_site.leads.problems import loggable
from agency_site.leads.ratelimit import RateLimiter, network_digest
from agency_site.leads.spam.gate import SpamGate
from agency_site.leads.spam.screen import SpamScreen
from agency_site.leads.spool import Spool, SpooledLead, new_key, valid_key
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import DuplicateSubmission, LeadStore
from agency_site.leads.validation import Validation, validate
from agency_site.rules import AGENCY_TIME_ZONE

# Waits between insert tries: doubling from the first up to the last.
_RETRY_FIRST_S, _RETRY_MAX_S = 0.2, 2.0
# Threads of their own for the spool's appends, which never queue behind inserts hanging
# on a dead database (those run in ``database.DB_THREADS``).
_SPOOL_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="leads-spool")
# The form field a refused column holds, when not of the same name.
_FIELD_OF_COLUMN = {"email_norm": "email"}

logger = logging.getLogger(__name__)


def agency_today() -> dt.date:
    """Today's date in the agency's time zone."""
    return dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE)).date()


class ContentRefused(Exception):
    """The database refused a lead for its content (``column``): not an outage."""

    def __init__(self, column: str) -> None:
        super().__init__(f"refused for its content (column {column})")
        self.column = column


class LeadIntake:
    """Takes form submissions in, stores the valid ones and tries to deliver them."""

    def __init__(
        self,
        store: LeadStore,
        delivery: Delivery,
        limiter: RateLimiter,
        deadline_s: float = 30.0,
        spool: Spool | None = None,
        screen: SpamScreen | None = None,
        network_key: str = "",
    ) -> None:
        self.store = store
        self.delivery = delivery
        self.limiter = limiter
        self.deadline_s = deadline_s
        self.spool = spool  # None: a lead the database does not take is not stored.
        # The spam checks (``screen``, None: the honeypot is the only one), the rate limit's
        # pass of a solved challenge and the releases.
        self.gate = SpamGate(store, delivery, limiter, screen, deadline_s, outlet=self)
        # Keys the digests of the visitors' networks (``ratelimit.network_digest``).
        self.network_key = network_key
        self.down = DownMark()  # The database just found down: one try, then the spool.

    @property
    def screen(self) -> SpamScreen | None:
        """The spam checks besides the honeypot (the gate's)."""
        return self.gate.screen

    async def submit(
        self,
        kind: LeadKind,
        form_data: Any,
        client_ip: str,
        idempotency_key: str | None = None,
        *,
        no_script: bool = False,
    ) -> Submission:
        """Handle one submission of the ``kind`` form from the visitor at ``client_ip``.

        Never raises and never takes longer than ``deadline_s``: past the deadline the
        visitor is told the lead was received if it is stored (the retry loop sends it),
        else asked to write to us.

        ``idempotency_key``: made by the page once per submission (16 to 64 characters of
        ``A-Z a-z 0-9 _ -``, e.g. ``crypto.randomUUID()``) and sent on every path it tries;
        the same key again returns the first one's outcome (``sent`` or ``queued``) without
        storing or sending anything. When not given, the ``idempotency_key`` field of
        ``form_data`` is used (a hidden input of the form: so the websocket's form data
        carries it too). Without one (or a malformed one) the server makes one.

        ``no_script``: a person's browser posted the form with no script running (the
        no-JavaScript path), so the form could not fetch its token (``spam/screen.py``).
        """
        if idempotency_key is None and isinstance(form_data, Mapping):
            idempotency_key = form_data.get(IDEMPOTENCY_FIELD)
        # The language of the form's page: its messages, the lead's, the visitor's e-mails.
        language = locale.parse(
            form_data.get(LANGUAGE_FIELD) if isinstance(form_data, Mapping) else None
        )
        stored = asyncio.Event()
        try:
            async with asyncio.timeout(self.deadline_s):
                with locale.active(language):
                    return await self._submit(
                        kind, form_data, client_ip, stored, idempotency_key, language, no_script
                    )
        except TimeoutError:
            if stored.is_set():
                logger.error("A %s submission passed its deadline; the lead is stored.", kind)
                return Submission(Result.QUEUED)
            logger.error("A %s submission passed its deadline before it was stored.", kind)
            return Submission(Result.STORE_FAILED)
        except Exception:
            logger.exception("A %s submission could not be handled.", kind)
            return Submission(Result.QUEUED if stored.is_set() else Result.STORE_FAILED)

    async def _submit(
        self,
        kind: LeadKind,
        form_data: Any,
        client_ip: str,
        stored: asyncio.Event,
        idempotency_key: str | None,
        language: str,
        no_script: bool = False,
    ) -> Submission:
        """``submit`` without its deadline, in the visitor's ``language`` (active); sets
        ``stored`` once the lead is in the database."""
        checked = self._checked(kind, form_data, client_ip)
        key = idempotency_key if valid_key(idempotency_key) else new_key()
        proof = await self.gate.proof(kind, form_data, key, checked.valid)
        if (
            limited := await self.gate.limit(kind, client_ip, key, proof, checked.valid)
        ) is not None:
            return limited
        if not checked.valid:
            return Submission(Result.INVALID, checked.errors)
        # The submission as the spool would keep it (its time set when it is kept).
        line = SpooledLead(
            key,
            kind,
            checked.fields,
            utcnow(),
            source=lead_source.parse(form_data.get(SOURCE_FIELD)),
            language=language,
            network=network_digest(client_ip, self.network_key),
            solves=proof.solves,
        )
        if (
            decided := await self.gate.decide(line, form_data, no_script, proof, stored)
        ) is not None:
            return decided
        return await self._take(line, stored)

    @staticmethod
    def _checked(kind: LeadKind, form_data: Any, client_ip: str) -> Validation:
        """``form_data`` validated (bounded work, never raises); a crafted one logged."""
        checked = validate(kind, form_data, agency_today())
        if checked.refused:
            logger.warning(
                "A crafted %s submission from %s was refused: %s.",
                kind,
                loggable(client_ip),
                checked.refused,
            )
        return checked

    async def _take(self, line: SpooledLead, stored: asyncio.Event) -> Submission:
        """A clean, valid submission: stored (what the plugins hold decided in the
        insert's transaction), else spooled; then sent at once."""
        kind = line.kind
        autoreply_day = agency_today() if BY_KIND[kind].autoreply else None
        token = new_claim_token() if self.delivery.configured else None
        insert = partial(
            self.store.add_lead,
            kind,
            line.fields,
            claim_token=token,
            lease=self.delivery.policy.lease,
            idempotency_key=line.key,
            autoreply_day=autoreply_day,
            hold=Hold(strict=True, network=line.network),
            source=line.source,
            language=line.language,
        )
        try:
            lead = await self._store(kind, insert)
        except Refused as refused:
            return Submission(Result.INVALID, refused.errors)
        except DuplicateSubmission as duplicate:
            logger.info("A %s submission arrived again (lead %s).", kind, duplicate.lead_id)
            sent = duplicate.status == LeadStatus.SENT
            return Submission(Result.SENT if sent else Result.QUEUED)
        except ContentRefused as refused:
            return self.content_refused(kind, refused.column)
        except Exception:
            # A proof for another submission whose lead could not be looked up: the drain
            # releases that lead with this one's fields if it is still in quarantine.
            kept = replace(line, created_at=utcnow(), autoreply_day=autoreply_day)
            return await self.spool_lead(kept, stored)
        stored.set()
        if token is None:
            logger.warning("Lead %s (%s) stored; delivery is not configured.", lead.id, kind)
            return Submission(Result.QUEUED)
        return await self.first_send(lead, token)

    def content_refused(self, kind: LeadKind, column: str) -> Submission:
        """The answer to a lead the database refused for the value of ``column``: the
        notice next to its field (the form's first when none holds it)."""
        names = BY_KIND[kind].names
        name = _FIELD_OF_COLUMN.get(column, column)
        return Submission(
            Result.INVALID, {name if name in names else names[0]: FORMS.notices.not_stored}
        )

    async def first_send(self, lead: Lead, token: str) -> Submission:
        """Send ``lead``, stored (or released) and claimed with ``token``, right away; the
        visitor's answer. Whatever fails, it stays claimed: the retry loop picks it up
        once the claim expires."""
        try:
            sent = await self.delivery.attempt_claimed(lead, token)
        except Exception:
            logger.exception("Lead %s (%s): the first delivery attempt failed.", lead.id, lead.kind)
            return Submission(Result.QUEUED)
        return Submission(Result.SENT if sent.ok else Result.QUEUED)

    async def _store(self, kind: LeadKind, insert: Callable[[], Lead]) -> Lead:
        """Run ``insert``, retrying with backoff for half the deadline; the last error if not.

        While the database is known to be down (a store failed in the last few seconds)
        one try only: the spool takes the lead at once. Only an outage (``failure``) is
        retried: a plugin's ``Refused`` is raised as is, ``ContentRefused`` when the
        database refuses the lead's values, and any other error is raised at once (the
        lead is spooled, the database not marked down).

        The plugins' rules are never skipped, down or not: they are decided in the
        insert's transaction (``Hold``), so the one try decides them as any try does, and
        a lead the spool takes is decided by the drain's transaction
        (``SpoolDrain.store_spooled``), with the network the line carries: what can no
        longer be held then is stored without it, and why, for the agency to answer. So a
        lead is spooled rather than refused: the visitor, told "received", never loses it.
        """
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + (0.0 if self.down.down else self.deadline_s / 2)
        wait = _RETRY_FIRST_S
        while True:
            try:
                # However long a try hangs, the spool still gets its half of the deadline.
                # A try that succeeds after this gave up leaves a row whose key the
                # drain then finds: stored once; its claim expires and the retry loop sends.
                one_try = min(_RETRY_MAX_S, self.deadline_s / 4)
                async with asyncio.timeout_at(max(give_up_at, loop.time() + one_try)):
                    lead = await loop.run_in_executor(DB_THREADS, insert)
            except (DuplicateSubmission, Refused):
                raise  # An answer of the database, not a failure to retry.
            except Exception as error:
                self._unless_an_outage(kind, error)
                if loop.time() + wait > give_up_at:
                    self.down.mark()
                    logger.error(
                        "A %s lead could not be stored in the database (%s).",
                        kind,
                        error_line(error),
                    )
                    raise
                await asyncio.sleep(wait)
                wait = min(2 * wait, _RETRY_MAX_S)
            else:
                self.down.clear()
                return lead

    @staticmethod
    def _unless_an_outage(kind: LeadKind, error: Exception) -> None:
        """Raise for a failed insert that is no outage (within its ``except``): the
        database refused the content (``ContentRefused``), or anything else (as it is)."""
        failed = failure(error)
        if failed is Failure.CONTENT:
            column = refused_column(error)
            logger.error(
                "A %s lead was refused by the database for its content, column %s "
                "(%s); the visitor is asked to correct it.",
                kind,
                loggable(column),
                error_line(error),
            )
            raise ContentRefused(column) from error
        if failed is Failure.OTHER:
            logger.exception("A %s lead could not be stored (not an outage).", kind)
            raise error

    async def spool_lead(self, lead: SpooledLead, stored: asyncio.Event) -> Submission:
        """Keep a lead the database did not take in the local spool; the visitor's answer."""
        kind = lead.kind
        if self.spool is None:
            logger.error("A %s lead could NOT be stored; the visitor was asked to write.", kind)
            return Submission(Result.STORE_FAILED)
        try:
            await asyncio.get_running_loop().run_in_executor(
                _SPOOL_THREADS, self.spool.append, lead
            )
        except Exception:
            logger.exception(
                "A %s lead could NOT be stored nor spooled; the visitor was asked to write.", kind
            )
            return Submission(Result.STORE_FAILED)
        stored.set()
        logger.warning(
            "A %s lead was spooled to %s (database unavailable); it is stored and sent once "
            "the database answers.",
            kind,
            self.spool.path,
        )
        return Submission(Result.QUEUED)

"""What happens to a form submission: rate limit, honeypot, validation, store, then send.

The form states (websocket) and the plain HTML form endpoint (``agency_site.site_api``)
both delegate here, so every rule holds on both paths and can be tested without a
browser. Every attempt counts toward the address's rate limit, invalid ones too.

A valid lead is stored whatever the database does: the insert is retried with backoff
for up to half the submit deadline (each try bounded by the engine's connect and
statement timeouts, ``runtime.database_engine``); if the database still does not
answer, the lead goes to this host's durable spool (``spool.py``) and the visitor is
told it was received. Only an outage counts (``failure``): a lead the database refuses
for its content is neither retried nor spooled; the visitor is asked to correct it. The
page's idempotency key makes one submission tried over both paths (websocket, then the
HTTP fallback) a single lead.

What comes with a lead (a booking's slot and its caps) is decided once, in the
transaction that writes it, on every path: the insert, the visitor's release from
quarantine (a solved challenge: refused as the insert is, with the form's field errors),
the spool's drain and the owner's release (stored without what cannot be held). Nothing
is checked beforehand that one path could skip (``plugins.Hold``).
"""

import asyncio
import contextvars
import datetime as dt
import logging
import re
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from enum import StrEnum
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa

from agency_site import locale
from agency_site.content.form_words import COPY as FORMS
from agency_site.forms.declarations import (
    BY_KIND,
    CHALLENGE_FIELD,
    IDEMPOTENCY_FIELD,
    LANGUAGE_FIELD,
)
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result, Submission
from agency_site.leads import source as lead_source
from agency_site.leads.delivery import Delivery
from agency_site.leads.lease import new_claim_token
from agency_site.leads.models import Lead, utcnow
from agency_site.leads.plugins import Hold, Refused
from agency_site.leads.ratelimit import RateLimiter, network_digest
from agency_site.leads.spam.challenge import Challenges
from agency_site.leads.spam.screen import SpamScreen
from agency_site.leads.spool import Spool, SpooledLead, Unstorable, new_key, valid_key
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import DuplicateSubmission, LeadStore, Release
from agency_site.leads.validation import HONEYPOT_FIELD, validate
from agency_site.rules import AGENCY_TIME_ZONE

# Longest client-supplied text written into one log line.
_LOG_VALUE_MAX = 64
# Waits between insert tries: doubling from the first up to the last.
_RETRY_FIRST_S, _RETRY_MAX_S = 0.2, 2.0
# After a failed store, later submissions try once before spooling, for this long: while
# the database is down, visitors do not each wait out the whole retry budget.
_DOWN_FOR_S = 10.0
# Threads of their own: inserts hanging on a dead database (up to the connect timeout
# each) never queue in front of other work, and the spool's appends never queue
# behind them (a process-wide pool of each, like asyncio's default executor).
_DB_THREADS = ThreadPoolExecutor(max_workers=16, thread_name_prefix="leads-db")
_SPOOL_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="leads-spool")

logger = logging.getLogger(__name__)


def agency_today() -> dt.date:
    """Today's date in the agency's time zone."""
    return dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE)).date()


def loggable(value: object) -> str:
    """A client-supplied value cut short and stripped of control characters, for a log line."""
    text = value if isinstance(value, str) else type(value).__name__
    return "".join(c if c.isprintable() else "?" for c in text[:_LOG_VALUE_MAX])


class Failure(StrEnum):
    """Why the database did not store a lead."""

    OUTAGE = "outage"  # It could not be reached or did not answer in time: retry, spool.
    CONTENT = "content"  # It refused this lead's values: the visitor must change them.
    OTHER = "other"  # Anything else (a bug, a missing table): spooled, never retried.


# SQLSTATE classes: connection, resources, shutdown, system, rollback (deadlock, serialization).
_OUTAGE_STATES = ("08", "40", "53", "57", "58")
# Data exception (too long, bad encoding), integrity (constraints), program limit (index row).
_CONTENT_STATES = ("22", "23", "54")
# The form field a refused column holds, when not of the same name.
_FIELD_OF_COLUMN = {"email_norm": "email"}
# How PostgreSQL quotes the length a value did not fit.
_QUOTED_LENGTH = re.compile(r"character varying\((\d+)\)")


def failure(error: BaseException) -> Failure:
    """Whether ``error`` of an insert is an outage, a refusal of the content, or other."""
    if isinstance(error, sa.exc.DBAPIError):
        state = str(getattr(error.orig, "sqlstate", None) or "")
        if error.connection_invalidated or state[:2] in _OUTAGE_STATES:
            return Failure.OUTAGE
        if state[:2] in _CONTENT_STATES or isinstance(
            error, (sa.exc.DataError, sa.exc.IntegrityError)
        ):
            return Failure.CONTENT
        if isinstance(error, (sa.exc.OperationalError, sa.exc.InterfaceError)):
            return Failure.OUTAGE
        return Failure.OTHER
    if isinstance(error, (TimeoutError, OSError, sa.exc.TimeoutError, sa.exc.DisconnectionError)):
        return Failure.OUTAGE
    return Failure.OTHER


def refused_column(error: BaseException) -> str:
    """The ``leads`` column the database refused, as far as its error tells (or ``?``).

    PostgreSQL names the column of a NOT NULL violation only; a value too long for its
    column is found among the statement's values: longer than the length the error
    quotes (``character varying(320)``), or than its column's in the model.
    """
    column = getattr(getattr(getattr(error, "orig", None), "diag", None), "column_name", None)
    if column:
        return str(column)
    quoted = _QUOTED_LENGTH.search(str(error))
    params = getattr(error, "params", None)
    rows = params if isinstance(params, list | tuple) else [params]
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        for name, value in row.items():
            table_column = Lead.__table__.columns.get(name)
            length = getattr(getattr(table_column, "type", None), "length", None)
            if quoted and length:
                length = min(length, int(quoted.group(1)))
            if isinstance(value, str) and length and len(value) > length:
                return str(name)
    return "?"


def _error_line(error: BaseException) -> str:
    """The first line of an error (the driver's own words), bounded, for a log line."""
    error = getattr(error, "orig", None) or error
    return loggable(str(error).splitlines()[0] if str(error) else repr(error))


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
        self.screen = screen  # None: the honeypot is the only spam check.
        # Keys the digests of the visitors' networks (the booking caps): the site's secret.
        self.network_key = network_key
        self._down_until = 0.0  # time.monotonic() until which the database counts as down.

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
        checked = validate(kind, form_data, agency_today())  # Bounded work, never raises.
        if checked.refused:
            logger.warning(
                "A crafted %s submission from %s was refused: %s.",
                kind,
                loggable(client_ip),
                checked.refused,
            )
        key = idempotency_key if valid_key(idempotency_key) else new_key()
        network = network_digest(client_ip, self.network_key)
        # A proof of work this submission was asked for, solved (spam/challenge.py): it
        # passes the soft spam reasons, and the rate limit up to its ceiling. One solved for
        # an earlier version of it still in quarantine (the visitor changed it after its
        # release was refused: the page sends it under a new key with the old proof) stands
        # for that version: the lead takes the corrected fields (``_correcting``).
        proof = self._proof(form_data)
        correcting = await self._correcting(kind, proof, key) if checked.valid else None
        solved = proof == key or correcting is not None
        if not await self._within_limit(client_ip, solved):
            if solved and (replayed := await self._replayed(key)) is not None:
                return replayed  # The same submission again: its outcome, nothing written.
            logger.warning(
                "A %s submission from %s was refused by the rate limit%s.",
                kind,
                loggable(client_ip),
                " (solved, past the ceiling)" if solved else "",
            )
            if checked.valid and not solved and (challenge := self._challenge(key)):
                return Submission(Result.CHALLENGE, challenge=challenge)
            return Submission(Result.RATE_LIMITED)
        if not checked.valid:
            return Submission(Result.INVALID, checked.errors)

        source = lead_source.parse(form_data.get(lead_source.FIELD))
        reason = (
            SpamReason.HONEYPOT
            if form_data.get(HONEYPOT_FIELD)
            else await self._suspect(kind, checked.fields, form_data, no_script)
        )
        if reason is not None and not (solved and reason.soft):
            if correcting is not None and await self._requarantine(
                correcting, checked.fields, key, language, reason
            ):
                stored.set()  # Its correction, suspect too: the one lead stays quarantined.
                return Submission(Result.SENT if self.delivery.configured else Result.QUEUED)
            line = SpooledLead(key, kind, checked.fields, utcnow(), None, source, language, reason)
            return await self._spam(replace(line, network=network, solves=proof), stored)
        if solved:
            try:
                released = await self._release(
                    kind, key, network, correcting, checked.fields, language
                )
            except Exception as error:
                if failure(error) is Failure.CONTENT:
                    return self._content_refused(kind, refused_column(error))
                # The database did not answer: the drain releases it (``store_spooled``).
                line = SpooledLead(key, kind, checked.fields, utcnow(), None, source, language)
                return await self._spool(replace(line, network=network, solves=proof), stored)
            if released is not None:
                if released.result in (Result.SENT, Result.QUEUED):
                    stored.set()
                return released
        autoreply_day = agency_today() if BY_KIND[kind].autoreply else None
        token = new_claim_token() if self.delivery.configured else None
        # The slot's one decision (caps, busy, taken, day full) is the store's transaction's.
        hold = Hold(strict=True, network=network)
        try:
            lead = await self._store(
                kind, checked.fields, token, key, autoreply_day, hold, source, language
            )
        except Refused as refused:
            return Submission(Result.INVALID, refused.errors)
        except DuplicateSubmission as duplicate:
            logger.info("A %s submission arrived again (lead %s).", kind, duplicate.lead_id)
            sent = duplicate.status == LeadStatus.SENT
            return Submission(Result.SENT if sent else Result.QUEUED)
        except ContentRefused as refused:
            return self._content_refused(kind, refused.column)
        except Exception:
            line = SpooledLead(key, kind, checked.fields, utcnow(), autoreply_day, source, language)
            # A proof for another submission whose lead could not be looked up: the drain
            # releases that lead with this one's fields if it is still in quarantine.
            return await self._spool(replace(line, network=network, solves=proof), stored)
        stored.set()
        lead_id = lead.id

        if token is None:
            logger.warning("Lead %s (%s) stored; delivery is not configured.", lead_id, kind)
            return Submission(Result.QUEUED)
        return await self._first_send(lead, token)

    @staticmethod
    def _content_refused(kind: LeadKind, column: str) -> Submission:
        """The answer to a lead the database refused for the value of ``column``: the
        notice next to its field (the form's first when none holds it)."""
        names = BY_KIND[kind].names
        name = _FIELD_OF_COLUMN.get(column, column)
        return Submission(
            Result.INVALID, {name if name in names else names[0]: FORMS.notices.not_stored}
        )

    async def _first_send(self, lead: Lead, token: str) -> Submission:
        """Send ``lead``, stored (or released) and claimed with ``token``, right away; the
        visitor's answer. Whatever fails, it stays claimed: the retry loop picks it up
        once the claim expires."""
        try:
            sent = await self.delivery.attempt_claimed(lead, token)
        except Exception:
            logger.exception("Lead %s (%s): the first delivery attempt failed.", lead.id, lead.kind)
            return Submission(Result.QUEUED)
        return Submission(Result.SENT if sent.ok else Result.QUEUED)

    async def _store(
        self,
        kind: LeadKind,
        fields: dict[str, Any],
        token: str | None,
        key: str,
        autoreply_day: dt.date | None,
        hold: Hold | None = None,
        source: dict[str, str] | None = None,
        language: str = locale.DEFAULT_LOCALE,
    ) -> Lead:
        """Insert the lead, retrying with backoff for half the deadline; the last error if not.

        While the database is known to be down (a store failed in the last few seconds)
        one try only: the spool takes the lead at once. Only an outage (``failure``) is
        retried: a plugin's ``Refused`` is raised as is, ``ContentRefused`` when the
        database refuses the lead's values, and any other error is raised at once (the
        lead is spooled, the database not marked down).

        The plugins' rules (a booking's caps, its slot) are never skipped, down or not:
        they are decided in the insert's transaction (``hold``), so the one try decides
        them as any try does, and a lead the spool takes is decided by the drain's
        transaction (``store_spooled``), with the network the line carries. Spooling a
        booking cannot let it hold a slot beyond the caps: over a cap, or on a slot taken or
        busy by then, the drain stores it holding no slot (``slot_lost``, and why) for the
        agency to answer. So a booking is spooled rather than refused: the visitor, told
        "received", never loses it, and the caps still hold.
        """
        loop = asyncio.get_running_loop()
        budget = 0.0 if time.monotonic() < self._down_until else self.deadline_s / 2
        give_up_at = loop.time() + budget
        wait = _RETRY_FIRST_S
        insert = partial(
            self.store.add_lead,
            kind,
            fields,
            claim_token=token,
            lease=self.delivery.policy.lease,
            idempotency_key=key,
            autoreply_day=autoreply_day,
            hold=hold,
            source=source,
            language=language,
        )
        while True:
            try:
                # However long a try hangs, the spool still gets its half of the deadline.
                # A try that succeeds after this gave up leaves a row whose key the
                # drain then finds: stored once; its claim expires and the retry loop sends.
                one_try = min(_RETRY_MAX_S, self.deadline_s / 4)
                async with asyncio.timeout_at(max(give_up_at, loop.time() + one_try)):
                    lead = await loop.run_in_executor(_DB_THREADS, insert)
            except (DuplicateSubmission, Refused):
                raise  # An answer of the database, not a failure to retry.
            except Exception as error:
                failed = failure(error)
                if failed is Failure.CONTENT:
                    column = refused_column(error)
                    logger.error(
                        "A %s lead was refused by the database for its content, column %s "
                        "(%s); the visitor is asked to correct it.",
                        kind,
                        loggable(column),
                        _error_line(error),
                    )
                    raise ContentRefused(column) from error
                if failed is Failure.OTHER:
                    logger.exception("A %s lead could not be stored (not an outage).", kind)
                    raise
                if loop.time() + wait > give_up_at:
                    self._down_until = time.monotonic() + _DOWN_FOR_S
                    logger.error(
                        "A %s lead could not be stored in the database (%s).",
                        kind,
                        _error_line(error),
                    )
                    raise
                await asyncio.sleep(wait)
                wait = min(2 * wait, _RETRY_MAX_S)
            else:
                self._down_until = 0.0
                return lead

    async def _spool(self, lead: SpooledLead, stored: asyncio.Event) -> Submission:
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

    async def _spam(self, line: SpooledLead, stored: asyncio.Event) -> Submission:
        """A valid lead suspected for ``line.spam`` (its honeypot filled: a bot, or a
        browser's autofill...): stored as ``SPAM`` (never sent, holding no slot) for the
        owner to release, and answered as a real submission is. A database that does not
        take it: spooled like any lead (``line``)."""
        kind, key, reason = line.kind, line.key, line.spam
        assert reason is not None
        insert = partial(
            self.store.add_lead,
            kind,
            line.fields,
            claim_token=None,
            lease=self.delivery.policy.lease,
            idempotency_key=key,
            source=line.source,
            language=line.language,
            spam=reason,
        )
        try:
            lead = await asyncio.get_running_loop().run_in_executor(_DB_THREADS, insert)
        except DuplicateSubmission as duplicate:
            if duplicate.status != LeadStatus.SPAM:  # Released meanwhile: answered as one.
                sent = duplicate.status == LeadStatus.SENT
                return Submission(Result.SENT if sent else Result.QUEUED)
        except Exception:
            # Answered as any lead spooled in an outage: no challenge, which could release
            # nothing before the drain (the owner's `leads not-spam` can, after it).
            return await self._spool(line, stored)
        else:
            stored.set()
            logger.info("A %s submission stored as spam (%s): %s.", kind, lead.id, reason)
        if reason.soft and (challenge := self._challenge(key)):
            return Submission(Result.CHALLENGE, challenge=challenge)
        return Submission(Result.SENT if self.delivery.configured else Result.QUEUED)

    @property
    def _challenges(self) -> Challenges | None:
        """The proofs of work the spam screen asks for, or None when off."""
        return self.screen.challenges if self.screen is not None else None

    def _challenge(self, key: str) -> str:
        """A proof of work for the submission of ``key`` to solve, or "" when off."""
        challenges = self._challenges
        return challenges.issue(key) if challenges is not None else ""

    def _proof(self, form_data: Mapping) -> str | None:
        """The idempotency key of the submission whose challenge this one carries solved
        (ours, not expired: ``Challenges.solved_for``), or None."""
        challenges = self._challenges
        if challenges is None or not isinstance(form_data, Mapping):
            return None
        payload = form_data.get(CHALLENGE_FIELD)
        return challenges.solved_for(payload) if payload else None

    async def _within_limit(self, client_ip: str, solved: bool) -> bool:
        """Count this submission (every one counts, solved ones too); whether it may go on:
        within the limit, or past it with a solved proof of work while the address is under
        its ceiling of those (``RateLimiter.hit_solved``)."""
        if await self.limiter.hit(client_ip):
            return True
        return solved and await self.limiter.hit_solved(client_ip)

    async def _correcting(self, kind: LeadKind, proof: str | None, key: str) -> int | None:
        """The lead a submission corrects: the one of ``proof``'s key when that is not this
        submission's own, still in quarantine for a soft reason, of the same form.

        The page makes a new key when the visitor changes a field, and keeps the proof
        it solved: after a release refused for its slot (taken, busy, over a cap) the
        visitor picks another hour and sends the submission again under a new key,
        carrying the proof of the old one. That proof then stands for the old lead only,
        which takes the new fields and key when released (``_release``): the visitor's
        submission stays one lead, and one proof never passes for a new submission. A
        proof whose lead left quarantine (released, erased) or was never stored (a rate
        limit's challenge) stands for nothing. While the database does not answer: nothing
        (the submission goes on as an unsolved one).
        """
        if proof is None or proof == key:
            return None
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.deadline_s / 4):
                lead = await loop.run_in_executor(_DB_THREADS, self.store.by_key, proof)
        except Exception as error:
            logger.warning("A %s correction could not be matched (%s).", kind, type(error).__name__)
            return None
        if lead is None or lead.status != LeadStatus.SPAM or lead.kind != kind:
            return None
        reason = SpamReason(lead.spam_reason) if lead.spam_reason else None
        return lead.id if reason is not None and reason.soft else None

    async def _requarantine(
        self, lead_id: int, fields: dict[str, Any], key: str, language: str, reason: SpamReason
    ) -> bool:
        """The correction of quarantined lead ``lead_id`` is suspect for a hard ``reason``:
        the lead takes it and stays in quarantine (one lead); False when it could not."""
        requarantine = partial(self.store.requarantine, lead_id, fields, key, language, reason)
        try:
            changed = await asyncio.get_running_loop().run_in_executor(_DB_THREADS, requarantine)
        except Exception:
            logger.exception("Quarantined lead %s could not take its correction.", lead_id)
            return False
        if changed:
            logger.info(
                "Lead %s, in quarantine, was corrected and stays there: %s.", lead_id, reason
            )
        return changed

    def _told(self, lead: Lead) -> Submission:
        """What a submission already stored as ``lead`` is told again: its outcome (in
        quarantine: as a real one, which a bot learns nothing from)."""
        if lead.status == LeadStatus.SPAM:
            return Submission(Result.SENT if self.delivery.configured else Result.QUEUED)
        return Submission(Result.SENT if lead.status == LeadStatus.SENT else Result.QUEUED)

    async def _replayed(self, key: str) -> Submission | None:
        """The outcome of the submission of ``key`` when it was stored and released already
        (the same solved submission sent again: answered, nothing written); else None."""
        loop = asyncio.get_running_loop()
        try:
            lead = await loop.run_in_executor(_DB_THREADS, self.store.by_key, key)
        except Exception:
            return None
        if lead is None or lead.status == LeadStatus.SPAM:
            return None
        return self._told(lead)

    async def _release(
        self,
        kind: LeadKind,
        key: str,
        network: str | None,
        correcting: int | None,
        fields: dict[str, Any],
        language: str,
    ) -> Submission | None:
        """A solved submission whose lead is stored already (in quarantine for a soft
        reason): released into delivery and sent now, once whatever the replays; its
        answer, or None when none is stored (it was rate-limited: stored as a clean one).
        ``correcting``: the quarantined lead this submission corrects (``_correcting``),
        released with its fields and key. A lead quarantined for a hard reason stays there,
        answered as real.

        The release holds what comes with the lead as the intake would (``Hold``: the
        booking's caps counted with this request's ``network``, a slot free and not busy,
        the day not full), in the release's transaction; refused, the lead stays in
        quarantine and the visitor gets the form's field errors (another hour offered), to
        send it again changed.
        """
        loop = asyncio.get_running_loop()
        correction: dict[str, Any] = {}
        if correcting is not None:
            lead_id = correcting
            correction = {"fields": fields, "idempotency_key": key, "language": language}
        else:
            lead = await loop.run_in_executor(_DB_THREADS, self.store.by_key, key)
            if lead is None or lead.id is None:
                return None
            reason = SpamReason(lead.spam_reason) if lead.spam_reason else None
            if lead.status != LeadStatus.SPAM or reason is None or not reason.soft:
                return self._told(lead)
            lead_id = lead.id
        token = new_claim_token() if self.delivery.configured else None
        release = partial(
            self.store.release_spam,
            lead_id,
            token,
            self.delivery.policy.lease,
            hold=Hold(strict=True, network=network),
            **correction,
        )
        try:
            # In the visitor's language (``locale.active``): a refusal is theirs to read.
            outcome: Release = await loop.run_in_executor(
                _DB_THREADS, contextvars.copy_context().run, release
            )
        except Refused as refused:
            logger.info("Lead %s (%s): solved, its release refused for its slot.", lead_id, kind)
            return Submission(Result.INVALID, refused.errors)
        except DuplicateSubmission as duplicate:
            return Submission(Result.SENT if duplicate.status == LeadStatus.SENT else Result.QUEUED)
        if not outcome:  # Released meanwhile by another request, or the owner.
            lead = await loop.run_in_executor(_DB_THREADS, self.store.by_key, key)
            return None if lead is None else self._told(lead)
        logger.info(
            "Lead %s (%s): its challenge solved, released from spam%s.",
            lead_id,
            kind,
            " with the visitor's correction" if correcting is not None else "",
        )
        if token is None:
            return Submission(Result.QUEUED)
        claimed = await loop.run_in_executor(_DB_THREADS, self.store.get, lead_id)
        if claimed is None:
            return Submission(Result.QUEUED)
        return await self._first_send(claimed, token)

    async def _suspect(
        self, kind: LeadKind, fields: dict[str, Any], form_data: Mapping, no_script: bool
    ) -> SpamReason | None:
        """The screen's reason to take this valid lead for spam; None when there is none,
        and when the screen fails or takes a quarter of the deadline (a check that cannot
        tell never keeps a lead from the agency)."""
        if self.screen is None:
            return None
        try:
            async with asyncio.timeout(self.deadline_s / 4):
                return await self.screen.reason(fields, form_data, no_script=no_script)
        except Exception as error:
            logger.warning(
                "A %s submission could not be screened (%s).", kind, type(error).__name__
            )
            return None

    def store_spooled(self, lead: SpooledLead) -> bool:
        """Insert one drained lead, queued for the retry loop; False if it was already stored.

        A lead that carried a solved proof of work (``lead.solves``) releases the lead of
        the submission it solves, if that is still in quarantine for a soft reason, as the
        intake would have (``_release_solved``), instead of being stored again.
        """
        if lead.solves is not None and (released := self._release_solved(lead)) is not None:
            return released
        try:
            self.store.add_lead(
                lead.kind,
                lead.fields,
                claim_token=None,
                lease=self.delivery.policy.lease,
                idempotency_key=lead.key,
                autoreply_day=lead.autoreply_day,
                created_at=lead.created_at,
                # The visitor was told "received": what the plugins cannot hold any longer
                # (a booking's slot taken meanwhile, busy, or over a cap: the caps are
                # counted here, with the network of the request that sent it) is the
                # agency's to sort out, never a lost lead: it is stored anyway (a booking
                # marked ``slot_lost``, and why). Spam holds nothing until it is released.
                hold=None if lead.spam else Hold(strict=False, network=lead.network),
                source=lead.source,
                language=lead.language,
                spam=lead.spam,
            )
        except DuplicateSubmission:
            return False
        return True

    def _release_solved(self, lead: SpooledLead) -> bool | None:
        """The drain of a submission that carried a solved proof for ``lead.solves``: that
        key's lead, in quarantine for a soft reason and of the same form, is released
        (holding what it can, the caps counted with the line's network: the visitor was
        told "received"), corrected with this one's fields and key when they differ, or,
        when this one is suspect for a hard reason, kept in quarantine with them. Whether
        a lead was released now; None when there is no such lead (stored as it says)."""
        assert lead.solves is not None
        found = self.store.by_key(lead.solves)
        reason = SpamReason(found.spam_reason) if found and found.spam_reason else None
        if found is None or found.id is None or found.status != LeadStatus.SPAM:
            return None
        if found.kind != lead.kind or reason is None or not reason.soft:
            return None
        if lead.spam is not None and not lead.spam.soft:
            self.store.requarantine(found.id, lead.fields, lead.key, lead.language, lead.spam)
            return False
        corrected = (
            {}
            if lead.solves == lead.key
            else {"fields": lead.fields, "idempotency_key": lead.key, "language": lead.language}
        )
        hold = Hold(strict=False, network=lead.network)
        try:
            return bool(self.store.release_spam(found.id, hold=hold, **corrected))
        except DuplicateSubmission:
            return False

    def drain_spool(self) -> int:
        """Move every spooled lead into the database (exactly once); how many were new.

        Raises when the database is down (``failure``: the spool stays as it was, drained
        next time); a lead it refuses otherwise is set aside (``spool.QUARANTINE``) and the
        drain goes on.
        """
        if self.spool is None or not self.spool.files():
            return 0
        added = 0

        def store(lead: SpooledLead) -> None:
            nonlocal added
            try:
                added += self.store_spooled(lead)
            except Exception as error:
                failed = failure(error)
                if failed is Failure.OUTAGE:
                    raise
                column = refused_column(error) if failed is Failure.CONTENT else "-"
                raise Unstorable(f"{failed}, column {column}: {_error_line(error)}") from error

        handed = self.spool.drain(store)
        if handed:
            self._down_until = 0.0
            logger.warning(
                "%s spooled lead(s) moved into the database (%s new); delivery goes on.",
                handed,
                added,
            )
        return added

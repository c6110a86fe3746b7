"""Delivering stored leads to the agency's inbox through EmailJS, and retrying the failures.

A failed attempt leaves the lead queued with exponential backoff; a configuration
error holds it until the EmailJS settings change (then it is released at start-up) or
the monitor's canary gets one through (``monitor.py``).
"""

import asyncio
import datetime as dt
import json
import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

from agency_site import locale
from agency_site.content.form_words import COPY
from agency_site.content.template import render
from agency_site.emailjs import EmailJSClient, Outcome, SendResult
from agency_site.forms.declarations import BY_KIND, FormDeclaration
from agency_site.forms.email import date_es, form_params, kind_params, short_name
from agency_site.forms.kinds import LeadKind
from agency_site.leads import source as lead_source
from agency_site.leads.backoff import jittered
from agency_site.leads.lease import new_claim_token
from agency_site.leads.loop import forever
from agency_site.leads.models import Lead
from agency_site.leads.problems import one_line, problem
from agency_site.leads.store import LeadStore

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    """When failed leads are tried again."""

    base: dt.timedelta = dt.timedelta(minutes=1)  # First retry...
    cap: dt.timedelta = dt.timedelta(hours=1)  # ...doubling up to this.
    poll: dt.timedelta = dt.timedelta(seconds=15)  # How often a worker looks for due leads.
    lease: dt.timedelta = dt.timedelta(minutes=2)  # A claim outlives any send's timeout.
    # Least wait after a send without an answer: while EmailJS takes requests but its
    # answers are lost, each quick retry would be one more duplicate in the inbox.
    unconfirmed: dt.timedelta = dt.timedelta(minutes=10)
    pause_s: float = 1.0  # Between sends of a batch: EmailJS allows 1 request per second.
    # Each wait is scaled by a random factor in 1 ± jitter, never below the first retry's
    # (nor, after a send without an answer, below ``unconfirmed``).
    jitter: float = 0.1

    def delay(self, attempts: int, *, unconfirmed: bool = False) -> dt.timedelta:
        """Wait before the next attempt of a lead that has failed ``attempts`` times."""
        try:
            wait = min(self.base * 2 ** max(attempts - 1, 0), self.cap)
        except OverflowError:  # Some forty failures (a day and a half): far beyond the cap.
            wait = self.cap
        least = self.unconfirmed if unconfirmed else min(self.base, wait)
        return jittered(max(wait, least), self.jitter, least)


def template_params(
    kind: LeadKind,
    fields: dict[str, Any],
    to_email: str,
    *,
    resend_of: int | None = None,
    autoreply: bool = False,
) -> dict[str, str]:
    """The EmailJS template variables of a lead (SPEC §7), from its form's declaration.

    Each field fills the variables its declaration lists (``FormField.email``); a CHOICE
    gives its option's label. A form with ``email_message`` sends that text, its
    ``{field}`` names filled in, as ``message``. A form with ``autoreply`` also carries
    ``reply_to`` (the visitor's address, where the template's Auto-Reply sends the
    confirmation) and ``date_es`` (the date in Spanish) for it.
    The auto-reply cannot be turned into a mailer: ``reply_to`` is empty unless
    ``autoreply`` (the lead won its address's one auto-reply of the day, see
    ``LeadStore.add``), and ``reply_name``, the only text of the submitter the documented
    auto-reply shows, is ``short_name``. ``from_name`` keeps the name as typed: it goes
    to the agency only (EmailJS escapes it).
    ``resend_of``: the lead's id when an earlier send of it may have arrived; the
    message then starts with a note saying so (EmailJS has no idempotency key, so a
    duplicate cannot be prevented, only announced).
    """
    form = BY_KIND[kind]
    params = form_params(form, fields, to_email)
    if form.autoreply and not autoreply:
        params["reply_to"] = ""
    if resend_of is not None:
        note = render(COPY.resend_note, lead_id=resend_of)
        params["message"] = f"{note}\n\n{params['message']}".rstrip()
    return params


def autoreply_params(form: FormDeclaration, fields: dict[str, Any]) -> dict[str, str]:
    """The Auto-Reply's subject and message, in the language in use: the visitor's name
    (``short_name``), the date in words and the time, nothing else they typed."""
    words = form.words
    values = {
        "name": short_name(str(fields.get("name", "") or "")),
        "date": date_es(str(fields["date"])) if fields.get("date") else "",
        "time": str(fields.get("time", "") or ""),
    }
    return {
        "reply_subject": words.autoreply_subject,
        "reply_message": render(words.autoreply_message, **values),
    }


class Delivery:
    """Sends leads of the store through EmailJS and records each attempt."""

    def __init__(
        self,
        store: LeadStore,
        client: EmailJSClient | None,
        templates: dict[LeadKind, str],
        to_email: str,
        config: str,
        policy: RetryPolicy,
    ) -> None:
        self.store = store
        self.client = client  # None: delivery not configured, leads wait in the table.
        self.templates = templates
        self.to_email = to_email
        self.config = config  # Fingerprint of the EmailJS settings in use.
        self.policy = policy

    @property
    def configured(self) -> bool:
        """Whether e-mails can be attempted at all."""
        return self.client is not None

    async def attempt(
        self,
        lead_id: int,
        kind: LeadKind | str,
        fields: dict[str, Any],
        attempts: int,
        token: str,
        unconfirmed_sends: int = 0,
        *,
        autoreply: bool = False,
        source: dict[str, str] | None = None,
        language: str = locale.DEFAULT_LOCALE,
    ) -> SendResult:
        """Send a lead claimed with ``token`` and record the outcome in the store.

        ``unconfirmed_sends``: earlier sends of it whose outcome is unknown; if any, this
        e-mail is marked as a possible duplicate. ``autoreply``: the lead's own flag.
        ``source``: where it came from, told to the agency as ``source`` (one line).
        ``language``: the visitor's, told to the agency as ``language`` (its name, e.g.
        "Català"); the auto-reply's words are in it (``reply_subject``, ``reply_message``),
        the rest of the e-mail is the agency's, in Spanish.
        Whatever a stored lead holds, only the store's own errors are raised: a lead whose
        e-mail cannot be made (an unknown kind, a field its template cannot take, text
        without UTF-8) is rejected for the owner, and an error of the client is a send
        without an answer.
        """
        assert self.client is not None, "delivery is not configured"
        try:
            kind = LeadKind(kind)
        except ValueError as error:
            return await self._set_aside(lead_id, kind, token, error)
        extra = await self._plugin_params(kind, lead_id)
        try:
            params = self.params(
                lead_id,
                kind,
                fields,
                resend=bool(unconfirmed_sends),
                autoreply=autoreply,
                source=source,
                language=language,
            )
            params |= extra
            json.dumps(params, ensure_ascii=False).encode("utf-8")
        except Exception as error:  # The same lead would fail the same way every time.
            return await self._set_aside(lead_id, kind, token, error)
        if template := self.templates.get(kind, ""):
            result = await self._send(template, params)
        else:  # Held like a refused configuration: setting the id releases it.
            setting = f"EMAILJS_{BY_KIND[kind].template_setting.upper()}"
            result = SendResult(0, f"{setting} is not set", Outcome.CONFIGURATION)
        recorded = await self._record(lead_id, kind, token, result, attempts)
        if not recorded:
            logger.error("Lead %s: its claim expired before the outcome was recorded.", lead_id)
        return result

    async def _plugin_params(self, kind: LeadKind, lead_id: int) -> dict[str, str]:
        """What the plugins add to the agency's e-mail (``LeadPlugin.email_params``): it
        reads the database, so its errors are the store's own (raised)."""
        plugins = self.store.plugins
        if not plugins.each:
            return {}
        return await asyncio.to_thread(plugins.email_params, self.store.engine, kind, lead_id)

    def params(
        self,
        lead_id: int,
        kind: LeadKind,
        fields: dict[str, Any],
        *,
        resend: bool,
        autoreply: bool,
        source: dict[str, str] | None,
        language: str,
    ) -> dict[str, str]:
        """The template variables of a lead's e-mail (``attempt``'s arguments), its kind's
        flags among them (``kind_params``: one template may serve several kinds), checked to
        encode as the JSON the client sends: an old row may hold text that has no UTF-8
        (a lone surrogate, refused by ``validation`` since)."""
        with locale.active(locale.DEFAULT_LOCALE):
            params = template_params(
                kind,
                fields,
                self.to_email,
                resend_of=lead_id if resend else None,
                autoreply=autoreply,
            )
            params["source"] = lead_source.describe(source)
        params["language"] = locale.AUTONYMS[locale.parse(language)]
        params |= kind_params(kind)
        if BY_KIND[kind].autoreply:
            with locale.active(locale.parse(language)):
                params |= autoreply_params(BY_KIND[kind], fields)
        json.dumps(params, ensure_ascii=False).encode("utf-8")
        return params

    async def _send(self, template: str, params: dict[str, str]) -> SendResult:
        """``client.send``; an error it did not expect is an unknown outcome (the request
        may have gone out): the lead is retried later, its next e-mail marked as a resend."""
        assert self.client is not None
        try:
            return await self.client.send(template, params)
        except Exception as error:
            logger.exception("The EmailJS client failed unexpectedly: %s", problem(error))
            return SendResult(0, f"Unexpected error: {problem(error)}", Outcome.UNCONFIRMED)

    async def _set_aside(
        self, lead_id: int, kind: LeadKind | str, token: str, error: Exception
    ) -> SendResult:
        """Reject (for the owner, never retried) a lead whose e-mail cannot even be made."""
        text = f"The e-mail cannot be made from this lead: {problem(error)}"
        if not await asyncio.to_thread(self.store.mark_rejected, lead_id, token, text):
            logger.error("Lead %s: its claim expired before the outcome was recorded.", lead_id)
        logger.error(
            "Lead %s (%s) is stored but REJECTED: %s. It is not retried; see it with "
            "`python -m agency_site.leads list --status rejected`.",
            lead_id,
            kind,
            text,
        )
        return SendResult(0, text, Outcome.CONTENT)

    async def _record(
        self, lead_id: int, kind: LeadKind, token: str, result: SendResult, attempts: int
    ) -> bool:
        """Record how a send of a lead claimed with ``token`` went; False if the claim expired."""
        error = one_line(f"HTTP {result.status}: {result.text}" if result.status else result.text)
        if result.outcome is Outcome.SENT:
            recorded = await asyncio.to_thread(self.store.mark_sent, lead_id, token, error)
            logger.info("Lead %s (%s) delivered to %s.", lead_id, kind, self.to_email)
        elif result.outcome is Outcome.CONTENT:
            recorded = await asyncio.to_thread(self.store.mark_rejected, lead_id, token, error)
            logger.error(
                "Lead %s (%s) is stored but REJECTED: EmailJS refuses its content (%s). It is "
                "not retried; see it with `python -m agency_site.leads list --status rejected`.",
                lead_id,
                kind,
                error,
            )
        elif result.outcome is Outcome.CONFIGURATION:
            recorded = await asyncio.to_thread(
                self.store.mark_held, lead_id, token, error, self.config
            )
            logger.error(
                "Lead %s (%s) is stored but HELD: EmailJS refused the configuration (%s). "
                "Fix the EmailJS account (or the EMAILJS_* settings); held leads are retried "
                "one at a time every LEADS_CANARY_INTERVAL_SECONDS and all go out then.",
                lead_id,
                kind,
                error,
            )
        else:
            unconfirmed = result.outcome is Outcome.UNCONFIRMED
            delay = self.policy.delay(attempts + 1, unconfirmed=unconfirmed)
            recorded = await asyncio.to_thread(
                partial(self.store.mark_retry, unconfirmed=unconfirmed),
                lead_id,
                token,
                error,
                delay,
            )
            logger.warning(
                "Lead %s (%s) is stored and queued: sending failed (%s); next attempt in %s s.",
                lead_id,
                kind,
                error,
                int(delay.total_seconds()),
            )
        return recorded

    async def attempt_claimed(self, lead: Lead, token: str) -> SendResult:
        """``attempt`` for a stored lead claimed with ``token``."""
        assert lead.id is not None
        return await self.attempt(
            lead.id,
            lead.kind,
            lead.fields,
            lead.attempts,
            token,
            lead.unconfirmed_sends,
            autoreply=lead.autoreply,
            source=lead.source,
            language=lead.language,
        )

    async def retry_due(self, limit: int = 100) -> int:
        """Claim and send, one at a time, up to ``limit`` leads that are due; the number delivered."""
        if not self.configured:
            return 0
        delivered = 0
        for index in range(limit):
            token = new_claim_token()
            # One lead per claim, so the lease only has to outlive a single send.
            claimed = await asyncio.to_thread(self.store.claim_due, token, self.policy.lease, 1)
            if not claimed:
                break
            if index:
                await asyncio.sleep(self.policy.pause_s)
            try:
                result = await self.attempt_claimed(claimed[0], token)
            except Exception as error:  # Not recorded: it is due again once its claim expires.
                logger.error("Lead %s: its attempt failed (%s).", claimed[0].id, problem(error))
                continue
            delivered += result.ok
        return delivered

    def release_held(self) -> int:
        """Queue again the leads held under a configuration that has since changed."""
        released = self.store.release_held(self.config) if self.configured else 0
        if released:
            logger.warning("%s held lead(s) queued again: the EmailJS settings changed.", released)
        return released

    async def run_forever(self) -> None:
        """The retry loop of one backend worker: look for due leads every poll interval."""
        await forever(self.retry_due, self.policy.poll, "The lead retry loop")

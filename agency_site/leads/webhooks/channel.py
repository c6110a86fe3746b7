"""Signed webhooks: each lead (and each change of its booking) POSTed to the agency's
endpoints (``LEADS_WEBHOOK_URLS``), a second channel beside the e-mail, independent of it.

- **Store-first** (``webhooks/queue.py``): the endpoints in use are rows of
  ``lead_webhook_endpoints`` (``register``, at start-up from the settings). ``queue``
  writes one ``lead_webhooks`` row per endpoint in the caller's transaction: the one
  storing the lead (``LeadStore.add_lead``, event ``lead.created``) or the one changing
  its booking (the bookings plugin, ``booking.*``). A lead stored is its webhooks queued;
  a person erased or a lead purged, a ``lead.erased`` queued (``queue_erasure``, in the
  transaction of ``leads erase`` or of the retention purge) for each endpoint reached.
- **Claimed** like a lead's e-mail (``lease.py``): ``UPDATE … WHERE <still claimable>``
  and a rowcount check, so one worker sends each message; a worker dying with a claim
  leaves it due again when the lease ends.
- **Signed** per the Standard Webhooks specification by the ``standardwebhooks`` package:
  ``webhook-id`` (the lead's idempotency key and the event: a receiver deduplicates a
  message sent again), ``webhook-timestamp``, ``webhook-signature`` (``v1,<base64>`` for
  each secret of ``LEADS_WEBHOOK_SECRET``, several during a rotation). Without a secret
  nothing is sent, ever: messages wait, queued, and the health page says why.
- **Retried** on the specification's schedule (``WebhookPolicy.schedule``: at once, 5 s,
  5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h, each with jitter): a 2xx is delivered,
  anything else (a timeout, a 5xx, a redirect...) is tried again. An endpoint answering
  410 Gone, or failing for ``pause_after`` (a day), is **paused**, and the owner alerted
  once (the worker whose UPDATE paused it); ``leads retry`` resumes it.
- **Destinations** (``webhooks/destinations/``): by its URL's scheme, an endpoint is a Standard
  Webhooks receiver (``https://``, signed), a Slack-compatible chat (``slack+https://``),
  the owner's Telegram chat (``telegram://``), an Odoo, HubSpot or Pipedrive CRM, each on
  this same machinery. ``lead.erased`` deletes the records where the destination can
  (Odoo, Pipedrive); what the others keep is listed for the agency (``by_hand``).
- **Independent**: the webhook round has its own loop, HTTP client and short timeout;
  neither channel ever waits for the other. One endpoint's failure ends its own round only.
"""

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import sqlalchemy as sa
from sqlmodel import Session, col, select
from standardwebhooks import Webhook

from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.leads.backoff import jittered
from agency_site.leads.lease import new_claim_token
from agency_site.leads.loop import forever
from agency_site.leads.models import Lead, LeadWebhook, LeadWebhookEndpoint, utcnow
from agency_site.leads.plugins import Plugins
from agency_site.leads.webhooks import payload as webhook_payload
from agency_site.leads.webhooks.destinations import Destination, Outgoing, destination
from agency_site.leads.webhooks.payload import REMOTE_IDS
from agency_site.leads.webhooks.queue import (
    ACTIVE,
    DONE,
    ERROR_MAX,
    PAUSED,
    QUEUED,
    SENT,
    SKIPPED,
    Erasure,
    active_endpoints,
    claim_one,
    delete,
    endpoint_key,
    finish,
    reached,
    register,
    update_endpoint,
)

logger = logging.getLogger(__name__)


def signers(secrets: Iterable[str]) -> tuple[Webhook, ...]:
    """One signer per ``whsec_…`` secret (raises ``ValueError`` naming none of them)."""
    found = []
    for secret in secrets:
        if not secret.startswith("whsec_"):
            raise ValueError("each LEADS_WEBHOOK_SECRET must start with whsec_")
        try:
            found.append(Webhook(secret))
        except Exception as error:
            msg = "a LEADS_WEBHOOK_SECRET is not base64 after whsec_"
            raise ValueError(msg) from error
    return tuple(found)


@dataclass(frozen=True)
class WebhookSummary:
    """What the health page tells of the webhooks."""

    configured: bool
    problem: str | None  # Why nothing is sent: no secret, an endpoint paused.
    waiting: int
    paused_endpoints: int

    def as_json(self) -> dict[str, Any]:
        return {
            "configured": self.configured,
            "problem": self.problem,
            "waiting": self.waiting,
            "paused_endpoints": self.paused_endpoints,
        }


# --- Sending ----------------------------------------------------------------------------


@dataclass(frozen=True)
class WebhookPolicy:
    """When a message is tried again, how long a try may take, how often workers look."""

    # After the 1st, 2nd... failure (Standard Webhooks' schedule), the last one repeated.
    schedule: tuple[dt.timedelta, ...] = (
        dt.timedelta(seconds=5),
        dt.timedelta(minutes=5),
        dt.timedelta(minutes=30),
        dt.timedelta(hours=2),
        dt.timedelta(hours=5),
        dt.timedelta(hours=10),
    )
    jitter: float = 0.1  # Each wait is scaled by a random factor in 1 ± jitter.
    timeout_s: float = 5.0  # A receiver answers at once and works later (the spec's advice).
    poll: dt.timedelta = dt.timedelta(seconds=5)
    lease: dt.timedelta = dt.timedelta(seconds=60)
    pause_after: dt.timedelta = dt.timedelta(days=1)  # Failing this long: paused.
    batch: int = 50  # Most messages per endpoint and round.

    def delay(self, failures: int) -> dt.timedelta:
        """Wait after ``failures`` failed attempts (1 or more) of a message."""
        wait = self.schedule[min(max(failures, 1), len(self.schedule)) - 1]
        return jittered(wait, self.jitter)


Alert = Callable[[str], Awaitable[Any]]


async def _no_alert(text: str) -> bool:
    logger.error("Owner alert: %s", text)
    return False


@dataclass
class WebhookChannel:
    """The webhooks of one backend worker (or of the operator command)."""

    engine: sa.Engine
    urls: tuple[str, ...]
    secrets: tuple[str, ...]
    plugins: Plugins = field(default_factory=Plugins)
    policy: WebhookPolicy = field(default_factory=WebhookPolicy)
    alert: Alert = _no_alert  # The monitor's (``Monitor.alert``: the owner's webhook).
    client: httpx.AsyncClient | None = None

    def __post_init__(self) -> None:
        self.by_key: dict[str, Destination | None] = {}
        self.url_problems: list[str] = []
        for number, url in enumerate(self.urls, start=1):
            try:
                self.by_key[endpoint_key(url)] = destination(url, self.plugins.chat_line)
            except ValueError as error:  # Its messages wait until the URL is fixed.
                self.by_key[endpoint_key(url)] = None
                self.url_problems.append(f"endpoint {number}: {error}")
        try:
            self.signed_by = signers(self.secrets)
            self.secret_problem = None if self.signed_by else "LEADS_WEBHOOK_SECRET is not set"
        except ValueError as error:
            self.signed_by = ()
            self.secret_problem = str(error)
        if not any(d is not None and d.signed for d in self.by_key.values()):
            self.secret_problem = None  # Only chat destinations: their URLs are their keys.

    @property
    def enabled(self) -> bool:
        """Whether the site has webhook endpoints at all (``LEADS_WEBHOOK_URLS``)."""
        return bool(self.urls)

    def sendable(self, key: str) -> bool:
        """Whether messages to endpoint ``key`` go out: a known destination, signed if it
        must be (else they wait, queued)."""
        found = self.by_key.get(key)
        return found is not None and (not found.signed or bool(self.signed_by))

    @property
    def can_send(self) -> bool:
        """Whether any endpoint's messages go out."""
        return any(self.sendable(key) for key in self.by_key)

    @property
    def problem(self) -> str | None:
        """Why some messages are not sent, for the log and the health page."""
        problems = [*self.url_problems, *([self.secret_problem] if self.secret_problem else [])]
        return "; ".join(problems) or None

    def register(self) -> None:
        """Make the configured URLs the endpoints events are queued for (start-up)."""
        register(self.engine, self.urls)
        if self.enabled and self.problem:
            logger.error(
                "Webhooks are queued but NOT all sent: %s. Nothing goes out unsigned; "
                "see docs/leads.md, 'Webhooks'.",
                self.problem,
            )

    def summary(self) -> WebhookSummary:
        """The health page's view: how many messages wait, endpoints paused, what is wrong."""
        keys = list(self.by_key)
        with Session(self.engine) as session:
            waiting = session.exec(
                select(sa.func.count())
                .select_from(LeadWebhook)
                .where(col(LeadWebhook.status).not_in(DONE), col(LeadWebhook.endpoint).in_(keys))
            ).one()
        paused = len(keys) - len(active_endpoints(self.engine, keys))
        problem = self.problem if self.enabled else None
        if problem is None and paused:
            problem = f"{paused} endpoint(s) paused: run `python -m agency_site.leads retry`"
        return WebhookSummary(self.enabled, problem, waiting, paused)

    def _place(self, endpoint: str) -> tuple[str, bool]:
        """How the operator knows an endpoint (``endpoint 2, Odoo``), and whether
        ``lead.erased`` clears what it holds (``Destination.erases``)."""
        target = self.by_key.get(endpoint)
        if target is None:
            return "a former endpoint", False
        return f"endpoint {list(self.by_key).index(endpoint) + 1}, {target.label}", target.erases

    def elsewhere(self, lead_ids: Sequence[int], erasing: bool | None = None) -> list[str]:
        """Where these leads' data went besides the table (``leads find``, ``erase``): each
        endpoint a message of theirs was sent to, with the ids it answered (``endpoint
        2, Odoo: crm.lead 123``). ``erasing``: only those ``lead.erased`` clears (True)
        or only those the agency must clear by hand (False)."""
        places = []
        for endpoint, ids in reached(self.engine, lead_ids).items():
            name, erases = self._place(endpoint)
            if erasing is None or erases == erasing:
                places.append(f"{name}: {', '.join(ids)}" if ids else name)
        return places

    def by_hand(self, erasures: Sequence[Erasure]) -> list[str]:
        """Of the ``lead.erased`` messages just queued (the retention purge's), what stays
        at destinations that cannot delete it (a chat's messages, HubSpot's contact), for
        the agency to delete by hand, with ids only: ``endpoint 2, Telegram chat: 55, 56
        (leads 42, 57)``. A chat's message names its lead's number, which finds it."""
        places: dict[str, tuple[list[str], list[int]]] = {}
        for erasure in erasures:
            name, erases = self._place(erasure.endpoint)
            if erases:
                continue
            remote, leads = places.setdefault(name, ([], []))
            remote += [found for found in erasure.data.get(REMOTE_IDS, []) if found not in remote]
            leads += [lead for lead in erasure.data["lead_ids"] if lead not in leads]
        return [
            f"{name}: {', '.join(remote)} (leads {', '.join(map(str, leads))})"
            if remote
            else f"{name}: leads {', '.join(map(str, leads))}"
            for name, (remote, leads) in places.items()
        ]

    def _client(self) -> httpx.AsyncClient:
        if self.client is None:
            self.client = httpx.AsyncClient(timeout=self.policy.timeout_s, follow_redirects=False)
        return self.client

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()
            self.client = None

    async def round(self) -> int:
        """One round: each active endpoint's due messages, the endpoints side by side; the
        number delivered."""
        if not self.can_send:
            return 0
        sendable = [key for key in self.by_key if self.sendable(key)]
        keys = await asyncio.to_thread(active_endpoints, self.engine, sendable)
        delivered = await asyncio.gather(*(self._endpoint_round(key) for key in keys))
        return sum(delivered)

    async def _endpoint_round(self, endpoint: str) -> int:
        """Send ``endpoint``'s due messages one by one until one fails (the others wait
        for the next round: a down endpoint gets one try per round, not one per message)."""
        delivered = 0
        for _ in range(self.policy.batch):
            token = new_claim_token()
            claimed = await asyncio.to_thread(
                claim_one, self.engine, endpoint, token, self.policy.lease
            )
            if claimed is None:
                break
            try:
                ok = await self.attempt(claimed, token)
            except Exception:  # Not recorded: due again once its claim expires.
                logger.exception("Webhook %s: its attempt failed.", claimed.id)
                break
            if not ok:
                break
            delivered += 1
        return delivered

    def body(self, webhook: LeadWebhook) -> dict[str, Any] | None:
        """The body of a claimed message; None if its lead is gone."""
        if webhook.event == webhook_payload.LEAD_ERASED:  # Its leads are gone: data only.
            return webhook_payload.erased_body(webhook.created_at, webhook.data or {})
        with Session(self.engine, expire_on_commit=False) as session:
            lead = session.get(Lead, webhook.lead_id)
        if lead is None:
            return None
        extra = webhook.data
        if extra is None and self.plugins.each:
            extra = self.plugins.webhook_data(self.engine, webhook.lead_id)
        return webhook_payload.body(webhook.event, webhook.created_at, lead, extra)

    async def attempt(self, webhook: LeadWebhook, token: str) -> bool:
        """POST a message claimed with ``token`` and record the outcome; True if delivered."""
        assert webhook.id is not None
        target = self.by_key[webhook.endpoint]
        assert target is not None
        payload = await asyncio.to_thread(self.body, webhook)
        if payload is None:  # Erased or purged meanwhile: nothing to send, ever.
            await asyncio.to_thread(delete, self.engine, webhook.id)
            return True
        outgoing = target.request(payload, webhook.message_id, self.signed_by)
        # A lead.erased done keeps no remote id (its records are deleted, or listed).
        erased = webhook.event == webhook_payload.LEAD_ERASED
        settled = {"data": webhook_payload.settled(webhook.data)} if erased else {}
        if outgoing is None:
            await asyncio.to_thread(
                finish, self.engine, webhook.id, token, status=SKIPPED, last_error=None, **settled
            )
            return True
        try:
            response, took = await self._post(outgoing)
        except httpx.HTTPError as error:
            why = f"{type(error).__name__}: no answer within {self.policy.timeout_s:g} s"
            if not isinstance(error, httpx.TimeoutException):
                why = f"{type(error).__name__}: {error}"[:300]
            await self._failed(webhook, token, why)
            return False
        if took:
            await asyncio.to_thread(
                finish,
                self.engine,
                webhook.id,
                token,
                status=SENT,
                sent_at=utcnow(),
                last_error=None,
                remote_id=None if erased or not response.is_success else target.remote_id(response),
                **settled,
            )
            await asyncio.to_thread(
                update_endpoint,
                self.engine,
                sa.and_(
                    LeadWebhookEndpoint.endpoint == webhook.endpoint,
                    col(LeadWebhookEndpoint.failing_since).is_not(None),
                ),
                failing_since=None,
                last_error=None,
            )
            logger.info("Lead %s: webhook %s delivered.", webhook.lead_id, webhook.event)
            return True
        why = f"HTTP {response.status_code}"
        await self._failed(webhook, token, why, gone=response.status_code == 410)
        return False

    async def _post(self, outgoing: Outgoing) -> tuple[httpx.Response, bool]:
        """Send ``outgoing``, then each request its answer leads to (``follow``) while each
        is done (``Outgoing.took``): the last answer, and whether the message is done."""
        while True:
            response = await self._client().request(
                outgoing.method, outgoing.url, content=outgoing.content, headers=outgoing.headers
            )
            took = outgoing.took(response)
            following = outgoing.follow(response) if took and outgoing.follow else None
            if following is None:
                return response, took
            outgoing = following

    async def _failed(self, webhook: LeadWebhook, token: str, why: str, gone: bool = False):
        """Queue the message again on the schedule; pause its endpoint when it is gone or has
        failed for ``pause_after``, and tell the owner (once: the worker that paused it)."""
        assert webhook.id is not None
        delay = self.policy.delay(webhook.attempts + 1)
        await asyncio.to_thread(
            finish,
            self.engine,
            webhook.id,
            token,
            status=QUEUED,
            last_error=why[:ERROR_MAX],
            next_attempt_at=utcnow() + delay,
        )
        now = utcnow()
        endpoint = LeadWebhookEndpoint.endpoint == webhook.endpoint
        await asyncio.to_thread(
            update_endpoint,
            self.engine,
            sa.and_(endpoint, col(LeadWebhookEndpoint.failing_since).is_(None)),
            failing_since=now,
        )
        too_long = col(LeadWebhookEndpoint.failing_since) <= now - self.policy.pause_after
        paused = await asyncio.to_thread(
            update_endpoint,
            self.engine,
            sa.and_(endpoint, LeadWebhookEndpoint.state == ACTIVE, sa.true() if gone else too_long),
            state=PAUSED,
            last_error=why[:ERROR_MAX],
            changed_at=now,
        )
        number = list(self.by_key).index(webhook.endpoint) + 1
        logger.warning(
            "Lead %s: webhook %s to endpoint %s failed (%s); next try in %s s.",
            webhook.lead_id,
            webhook.event,
            number,
            why,
            int(delay.total_seconds()),
        )
        if paused:
            logger.error("Webhook endpoint %s paused (%s).", number, "410 Gone" if gone else why)
            hours = max(1, round(self.policy.pause_after.total_seconds() / 3600))
            text = (
                render(ALERTS.webhook_gone, number=number)
                if gone
                else render(ALERTS.webhook_failing, number=number, hours=hours, error=why)
            )
            await self.alert(text)

    async def run_forever(self) -> None:
        """The webhook loop of one backend worker: a round every ``policy.poll``."""
        await forever(self.round, self.policy.poll, "The webhook loop")

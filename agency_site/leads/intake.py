"""What happens to a form submission: rate limit, honeypot, validation, store, then send.

The form states (websocket) and the plain HTML form endpoint (``agency_site.site_api``)
both delegate here, so every rule holds on both paths and can be tested without a
browser. Every attempt counts toward the address's rate limit, invalid ones too.
"""

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo

from agency_site.content.forms import AGENCY_TIME_ZONE
from agency_site.leads.delivery import Delivery, new_claim_token
from agency_site.leads.kinds import LeadKind
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.store import LeadStore
from agency_site.leads.validation import HONEYPOT_FIELD, validate

# Longest client-supplied text written into one log line.
_LOG_VALUE_MAX = 64

logger = logging.getLogger(__name__)


class Result(StrEnum):
    """What the visitor is told after submitting."""

    SENT = "sent"  # Delivered (or a bot filled the honeypot: it is told the same).
    QUEUED = "queued"  # Stored; the e-mail goes out later.
    INVALID = "invalid"  # Nothing stored; see the errors per field.
    RATE_LIMITED = "rate_limited"
    STORE_FAILED = "store_failed"  # Not even stored: the visitor must write to us.


@dataclass(frozen=True)
class Submission:
    """The result of a submission and, when invalid, a Spanish message per field."""

    result: Result
    errors: dict[str, str] = field(default_factory=dict)


def agency_today() -> dt.date:
    """Today's date in the agency's time zone."""
    return dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE)).date()


def loggable(value: object) -> str:
    """A client-supplied value cut short and stripped of control characters, for a log line."""
    text = value if isinstance(value, str) else type(value).__name__
    return "".join(c if c.isprintable() else "?" for c in text[:_LOG_VALUE_MAX])


class LeadIntake:
    """Takes form submissions in, stores the valid ones and tries to deliver them."""

    def __init__(
        self, store: LeadStore, delivery: Delivery, limiter: RateLimiter, deadline_s: float = 30.0
    ) -> None:
        self.store = store
        self.delivery = delivery
        self.limiter = limiter
        self.deadline_s = deadline_s

    async def submit(self, kind: LeadKind, form_data: Any, client_ip: str) -> Submission:
        """Handle one submission of the ``kind`` form from the visitor at ``client_ip``.

        Never raises and never takes longer than ``deadline_s``: past the deadline the
        visitor is told the lead was received if it is stored (the retry loop sends it),
        else asked to write to us.
        """
        stored = asyncio.Event()
        try:
            async with asyncio.timeout(self.deadline_s):
                return await self._submit(kind, form_data, client_ip, stored)
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
        self, kind: LeadKind, form_data: Any, client_ip: str, stored: asyncio.Event
    ) -> Submission:
        """``submit`` without its deadline; sets ``stored`` once the lead is in the database."""
        checked = validate(kind, form_data, agency_today())  # Bounded work, never raises.
        if checked.refused:
            logger.warning(
                "A crafted %s submission from %s was refused: %s.",
                kind,
                loggable(client_ip),
                checked.refused,
            )
        if not await self.limiter.hit(client_ip):
            logger.warning(
                "A %s submission from %s was refused by the rate limit.", kind, loggable(client_ip)
            )
            return Submission(Result.RATE_LIMITED)
        if not checked.refused and form_data.get(HONEYPOT_FIELD):
            logger.info("A %s submission filled the honeypot: ignored.", kind)
            return Submission(Result.SENT)
        if not checked.valid:
            return Submission(Result.INVALID, checked.errors)

        token = new_claim_token() if self.delivery.configured else None
        try:
            lead_id = await asyncio.to_thread(
                self.store.add,
                kind,
                checked.fields,
                claim_token=token,
                lease=self.delivery.policy.lease,
            )
        except Exception:
            logger.exception("A %s lead could NOT be stored; the visitor was asked to write.", kind)
            return Submission(Result.STORE_FAILED)
        stored.set()

        if token is None:
            logger.warning("Lead %s (%s) stored; delivery is not configured.", lead_id, kind)
            return Submission(Result.QUEUED)
        try:
            sent = await self.delivery.attempt(lead_id, kind, checked.fields, 0, token)
        except Exception:
            # Stored and claimed: the retry loop picks it up once the claim expires.
            logger.exception("Lead %s (%s): the first delivery attempt failed.", lead_id, kind)
            return Submission(Result.QUEUED)
        return Submission(Result.SENT if sent.ok else Result.QUEUED)

"""What happens to a form submission: honeypot, validation, rate limit, store, then send.

The form states delegate here, so every rule can be tested without a browser.
"""

import asyncio
import datetime as dt
import logging
from collections.abc import Mapping
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


@dataclass(frozen=True)
class RateLimits:
    """Submissions allowed per client session and per IP address within the limiter's window."""

    per_client: int
    per_ip: int


class LeadIntake:
    """Takes form submissions in, stores the valid ones and tries to deliver them."""

    def __init__(
        self,
        store: LeadStore,
        delivery: Delivery,
        limiter: RateLimiter,
        limits: RateLimits,
    ) -> None:
        self.store = store
        self.delivery = delivery
        self.limiter = limiter
        self.limits = limits

    async def submit(
        self, kind: LeadKind, form_data: Mapping[str, Any], client_token: str, client_ip: str
    ) -> Submission:
        """Handle one submission of the ``kind`` form from a browser session and IP."""
        if not isinstance(form_data, Mapping):  # A crafted event: every field is missing.
            form_data = {}
        if form_data.get(HONEYPOT_FIELD):
            logger.info("A %s submission filled the honeypot: ignored.", kind)
            return Submission(Result.SENT)
        checked = validate(kind, form_data, agency_today())
        if not checked.valid:
            return Submission(Result.INVALID, checked.errors)
        if not self.limiter.allow(
            {
                f"client:{client_token}": self.limits.per_client,
                f"ip:{client_ip}": self.limits.per_ip,
            }
        ):
            logger.warning("A %s submission was refused by the rate limit.", kind)
            return Submission(Result.RATE_LIMITED)

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

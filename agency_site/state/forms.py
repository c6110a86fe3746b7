"""Backend state of the two lead forms; the rules live in ``agency_site.leads.intake``.

Inputs are uncontrolled: typing sends nothing, the whole form arrives once on
submit. A submission runs as a background event so the 5-second success message
and the e-mail send never block the visitor's other events.
"""

import asyncio
import hashlib
import json
import logging
import time
from typing import Any, ClassVar

import reflex as rx

from agency_site.content.forms import SUCCESS_MESSAGE_MS
from agency_site.leads.intake import Result, Submission
from agency_site.leads.kinds import LeadKind
from agency_site.leads.runtime import intake

logger = logging.getLogger(__name__)

# A second identical submission this soon after an accepted one is a double click.
DUPLICATE_WINDOW_S = 30.0

HERO_FORM_ID = "hero-capture-form"
BOOKING_FORM_ID = "booking-form"
# Prefixes of the forms' field ids: hero-email, booking-name, booking-phone...
HERO_PREFIX = "hero"
BOOKING_PREFIX = "booking"


def field_id(prefix: str, name: str) -> str:
    """DOM id of a form field, e.g. ``booking-phone``."""
    return f"{prefix}-{name}"


def _digest(form_data: dict[str, Any]) -> str:
    """A fingerprint of a submission's content."""
    return hashlib.sha256(json.dumps(form_data, sort_keys=True, default=str).encode()).hexdigest()


class LeadFormState(rx.State, mixin=True):
    """A lead form: sending flag, the result to show and the message of each wrong field."""

    kind: ClassVar[LeadKind]
    form_id: ClassVar[str]
    field_prefix: ClassVar[str]

    sending: bool = False
    result: str = ""  # A Result value while its message is shown, else "".
    errors: dict[str, str] = rx.field(default_factory=dict)
    _shown: int = 0  # Counts results, so an old 5-second timer never hides a newer one.
    _accepted_digest: str = ""
    _accepted_at: float = 0.0

    @rx.event(background=True)
    async def submit(self, form_data: dict[str, Any]):
        """Validate, store and send a submission; show the outcome."""
        digest = _digest(form_data)
        async with self:
            repeated = (
                digest == self._accepted_digest
                and time.monotonic() - self._accepted_at < DUPLICATE_WINDOW_S
            )
            if self.sending or repeated:
                return
            self.sending = True
            self.result = ""
            self.errors = {}
            client_token = self.router.session.client_token
            client_ip = self.router.session.client_ip

        try:
            submission = await intake().submit(self.kind, form_data, client_token, client_ip)
        except Exception:
            logger.exception("A %s submission could not be handled.", self.kind)
            submission = Submission(Result.STORE_FAILED)
        accepted = submission.result in (Result.SENT, Result.QUEUED)

        async with self:
            self.sending = False
            self.result = "" if submission.result is Result.INVALID else submission.result
            self.errors = submission.errors
            self._shown += 1
            shown = self._shown
            if accepted:
                self._accepted_digest, self._accepted_at = digest, time.monotonic()

        if accepted:
            # Clear the fields only now: after a refusal the visitor keeps what they typed.
            yield rx.call_script(f"document.getElementById('{self.form_id}')?.reset()")
        elif submission.errors:
            first = field_id(self.field_prefix, next(iter(submission.errors)))
            yield rx.call_script(f"document.getElementById('{first}')?.focus()")

        if submission.result is Result.SENT:
            await asyncio.sleep(SUCCESS_MESSAGE_MS / 1000)
            async with self:
                if self._shown == shown:
                    self.result = ""


class HeroCaptureState(LeadFormState, rx.State):
    """The Home hero's e-mail capture."""

    kind: ClassVar[LeadKind] = LeadKind.CONTACT
    form_id: ClassVar[str] = HERO_FORM_ID
    field_prefix: ClassVar[str] = HERO_PREFIX


class BookingState(LeadFormState, rx.State):
    """The consultation booking form of /schedule."""

    kind: ClassVar[LeadKind] = LeadKind.BOOKING
    form_id: ClassVar[str] = BOOKING_FORM_ID
    field_prefix: ClassVar[str] = BOOKING_PREFIX

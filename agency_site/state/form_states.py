"""Backend state of the lead forms, one class per declaration (``agency_site/forms/``),
made from it (``FORM_STATES``); the rules live in ``agency_site.leads.intake``.

Inputs are uncontrolled: typing sends nothing, the whole form arrives once on
submit. A submission runs as a background event so the 5-second success message
and the e-mail send never block the visitor's other events. The fields are reset
and focused with Reflex's native ``rx.set_value``/``rx.set_focus`` (no ``eval``,
so the CSP needs no ``'unsafe-eval'``).
"""

import asyncio
import hashlib
import json
import logging
import time
from typing import Any, ClassVar

import reflex as rx

from agency_site.forms import declarations
from agency_site.forms.declarations import FormDeclaration
from agency_site.forms.outcome import Result, Submission
from agency_site.leads.runtime import intake
from agency_site.leads.validation import screen
from agency_site.rules import SUCCESS_MESSAGE_MS
from agency_site.settings import get_settings

logger = logging.getLogger(__name__)

# A second identical submission this soon after an accepted one is a double click.
DUPLICATE_WINDOW_S = 30.0


def _digest(form_data: dict[str, str]) -> str:
    """A fingerprint of a (screened) submission's content."""
    return hashlib.sha256(json.dumps(form_data, sort_keys=True).encode()).hexdigest()


class LeadFormState(rx.State, mixin=True):
    """A lead form: sending flag, the result to show and the message of each wrong field.

    ``form`` is its declaration: its kind, ids and fields (cleared after an accepted
    submission) all come from there.
    """

    form: ClassVar[FormDeclaration]

    sending: bool = False
    # time.time() when ``sending`` was set: past ``sending_deadline()`` the flag is a
    # leftover (a worker killed mid-submission) and counts for nothing.
    sending_since: float = 0.0
    result: str = ""  # A Result value while its message is shown, else "".
    # With result "challenge": the proof of work to solve (JSON text for the ALTCHA widget).
    challenge: str = ""
    errors: dict[str, str] = rx.field(default_factory=dict)
    _shown: int = 0  # Counts results, so an old 5-second timer never hides a newer one.
    _accepted_digest: str = ""
    _accepted_at: float = 0.0

    @rx.event(background=True)
    async def submit(self, form_data: dict[str, Any]):
        """Validate, store and send a submission; show the outcome.

        ``sending`` is set in one locked block and cleared in another; the clearing
        runs in ``finally`` (shielded from a second cancellation) whatever happens in
        between, and a flag left over anyway (a worker killed mid-way) expires after
        the submission deadline.
        """
        if screen(form_data):  # Crafted: refused (and counted) without touching the state.
            async with self:
                client_ip = self.router.session.client_ip
            await intake().submit(self.form.kind, form_data, client_ip)
            return
        digest = _digest(form_data)
        async with self:
            repeated = (
                digest == self._accepted_digest
                and time.monotonic() - self._accepted_at < DUPLICATE_WINDOW_S
            )
            busy = self.sending and not sending_stale(self.sending_since)
            if busy or repeated:
                return
            self.sending = True
            self.sending_since = time.time()
            self.result = ""
            self.challenge = ""
            self.errors = {}
            client_ip = self.router.session.client_ip

        # What the visitor is told if even the intake fails: it never raises, but a
        # cancellation (shutdown, lost socket) ends here with the lead's fate unknown.
        submission = Submission(Result.STORE_FAILED)
        try:
            submission = await intake().submit(self.form.kind, form_data, client_ip)
        finally:
            finish = asyncio.ensure_future(self._finish(submission, digest))
            try:
                shown = await asyncio.shield(finish)
            except asyncio.CancelledError:
                # Cancelled again: the shielded clearing still runs to its end.
                raise
            except Exception:
                logger.exception("The %s form's sending flag could not be cleared.", self.form.kind)
                shown = -1

        if submission.result in (Result.SENT, Result.QUEUED):
            # Clear the fields only now: after a refusal the visitor keeps what they typed.
            for name in (*self.form.names, declarations.CHALLENGE_FIELD):
                yield rx.set_value(self.form.field_id(name), "")
        elif submission.errors:
            yield rx.set_focus(self.form.field_id(next(iter(submission.errors))))

        if submission.result is Result.SENT and shown >= 0:
            await asyncio.sleep(SUCCESS_MESSAGE_MS / 1000)
            async with self:
                if self._shown == shown:
                    self.result = ""

    @rx.var(cache=False)
    def busy(self) -> bool:
        """``sending`` while it can still be true: what the button should follow.

        Not cached, so every event of the state (any click, a reconnect's hydrate)
        recomputes it: a flag a killed worker left behind frees the form at the
        first event after ``sending_deadline()``, even if nothing clears ``sending``.
        """
        return self.sending and not sending_stale(self.sending_since)

    async def _finish(self, submission: Submission, digest: str) -> int:
        """Clear ``sending`` and show the outcome; the number of the result shown."""
        for attempt in range(3):
            try:
                async with self:
                    self.sending = False
                    self.sending_since = 0.0
                    self.result = "" if submission.result is Result.INVALID else submission.result
                    self.errors = submission.errors
                    self.challenge = submission.challenge
                    self._shown += 1
                    if submission.result in (Result.SENT, Result.QUEUED):
                        self._accepted_digest, self._accepted_at = digest, time.monotonic()
                    return self._shown
            except Exception:
                if attempt == 2:
                    raise
                await asyncio.sleep(0.5 * (attempt + 1))  # A busy or failing state lock.
        raise AssertionError  # Unreachable.


def sending_deadline() -> float:
    """Seconds after which a ``sending`` flag is a leftover: the submit deadline plus a margin."""
    return get_settings().leads.submit_deadline_seconds + 30.0


def sending_stale(since: float, now: float | None = None) -> bool:
    """Whether a ``sending`` flag set at ``since`` (time.time()) has passed its deadline."""
    return (time.time() if now is None else now) - since > sending_deadline()


def state_name(form: FormDeclaration) -> str:
    """The class name of ``form``'s state: ``BookingFormState`` for the ``booking`` form
    (Reflex names the state after it and this module: the load test's
    ``agency_site___state___form_states____booking_form_state``)."""
    return "".join(part.title() for part in form.name.split("_")) + "FormState"


def _form_state(form: FormDeclaration) -> type[LeadFormState]:
    """The state of ``form``: a class of this module, as if written here, ``form`` its
    declaration (a ``class BookingFormState(LeadFormState, rx.State)`` with ``form =
    declarations.BOOKING``)."""
    name = state_name(form)
    namespace = {
        "__module__": __name__,
        "__qualname__": name,
        "__doc__": f"The {form.name} form's state ({form.page}).",
        "__annotations__": {"form": ClassVar[FormDeclaration]},
        "form": form,
    }
    return type(name, (LeadFormState, rx.State), namespace)


# The state of each form, by kind, one per declaration; each is also a name of this module
# (``HeroFormState``, ``BookingFormState``, ``QuoteFormState``), where pickling finds it.
FORM_STATES: dict[str, type[LeadFormState]] = {
    form.kind: _form_state(form) for form in declarations.FORMS
}
globals().update({state.__name__: state for state in FORM_STATES.values()})

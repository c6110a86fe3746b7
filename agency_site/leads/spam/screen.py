"""Spam with no third party: the checks that take a valid submission for spam.

Each check names its reason (``SpamReason``); they run cheapest first and the first that
holds is the lead's ``spam_reason`` (no DNS lookup is spent on a lead already suspect):
the honeypot (``gate.py``), the form's signed token (``form_token.py``: missing, too
fast, expired, forged), the address (``address_check.py``: a disposable domain, one with
no MX when ``LEADS_CHECK_MX`` is on). A suspect lead is quarantined, never refused: stored with status
``spam``, answered as a real submission (a bot learns nothing), never e-mailed nor sent
to webhooks, released by ``leads not-spam ID``, purged after ``LEADS_SPAM_KEEP_DAYS``.

A soft reason (``SpamReason.soft``: the token's, which a person's browser may trip) and the
rate limiter's refusal are answered with a proof of work instead (``challenge.py``):
solved, the same submission releases its lead. A hard one (honeypot, address) stays silent.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agency_site.forms.declarations import FORM_TOKEN_FIELD
from agency_site.leads.spam.address_check import AddressScreen
from agency_site.leads.spam.challenge import Challenges
from agency_site.leads.spam.form_token import FormTokens
from agency_site.leads.statuses import SpamReason


def quarantine_note(reason: str | None, challenged: bool) -> str:
    """Why a lead is in quarantine, for ``leads spam``: its reason, and whether it was
    asked for a proof of work it never solved (a soft reason, ``challenged``: the
    challenge is on; solved, it would have left the quarantine)."""
    spam_reason = SpamReason(reason) if reason else SpamReason.HONEYPOT
    unsolved = ", challenged, not solved" if challenged and spam_reason.soft else ""
    return f"spam: {spam_reason}{unsolved}"


@dataclass(frozen=True)
class SpamScreen:
    """The checks of a submission besides its honeypot (``LeadIntake``'s ``screen``).

    ``tokens``: the time trap, None when off (``LEADS_SPAM_TIME_TRAP=false``);
    ``addresses``: the e-mail address's checks, None for none; ``challenges``: the proof of
    work asked of a soft-flagged or rate-limited submission, None when off
    (``LEADS_SPAM_CHALLENGE=false``: such a lead stays in quarantine, answered as real).
    """

    tokens: FormTokens | None = None
    addresses: AddressScreen | None = None
    challenges: Challenges | None = None

    async def reason(
        self, fields: Mapping[str, Any], form_data: Mapping[str, Any], *, no_script: bool
    ) -> SpamReason | None:
        """Why this valid submission (its checked ``fields``, the ``form_data`` it came
        in) is suspect, or None. ``no_script``: a person's browser posted the form itself
        with no script running (``site_api.py``), so it could carry no token."""
        if self.tokens is not None and not no_script:
            reason = self.tokens.check(form_data.get(FORM_TOKEN_FIELD))
            if reason is not None:
                return reason
        email = fields.get("email")
        if self.addresses is not None and isinstance(email, str):
            return await self.addresses.check(email)
        return None

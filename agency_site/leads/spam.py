"""Spam with no third party: the checks that take a valid submission for spam.

Each check names its reason (``SpamReason``); they run cheapest first and the first that
holds is the lead's ``spam_reason`` (no DNS lookup is spent on a lead already suspect):
the honeypot (``intake.py``), the form's signed token (``spam_token.py``: missing, too
fast, expired, forged). A suspect lead is quarantined, never refused: stored with status
``spam``, answered as a real submission (a bot learns nothing), never e-mailed nor sent
to webhooks, released by ``leads not-spam ID``, purged after ``LEADS_SPAM_KEEP_DAYS``.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agency_site.forms.declarations import FORM_TOKEN_FIELD
from agency_site.leads.kinds import SpamReason
from agency_site.leads.spam_token import FormTokens


@dataclass(frozen=True)
class SpamScreen:
    """The checks of a submission besides its honeypot (``LeadIntake``'s ``screen``).

    ``tokens``: the time trap, None when off (``LEADS_SPAM_TIME_TRAP=false``).
    """

    tokens: FormTokens | None = None

    async def reason(
        self, fields: Mapping[str, Any], form_data: Mapping[str, Any], *, no_script: bool
    ) -> SpamReason | None:
        """Why this valid submission (its checked ``fields``, the ``form_data`` it came
        in) is suspect, or None. ``no_script``: a person's browser posted the form itself
        with no script running (``site_api.py``), so it could carry no token."""
        if self.tokens is not None and not no_script:
            return self.tokens.check(form_data.get(FORM_TOKEN_FIELD))
        return None

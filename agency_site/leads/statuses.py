"""What a lead's row says of it besides its fields: the statuses it goes through (its kind,
which form it came from, is ``agency_site.forms.kinds.LeadKind``), and why a lead was taken
for spam."""

from enum import StrEnum


class LeadStatus(StrEnum):
    """Where a lead is on its way to the agency's inbox."""

    QUEUED = "queued"  # Waiting for its next delivery attempt (next_attempt_at).
    SENDING = "sending"  # Claimed by one worker until claimed_until.
    HELD = "held"  # EmailJS refused the configuration; waits for a fix (see monitor.py).
    SENT = "sent"
    # EmailJS refused this lead's own content (not the configuration): retrying cannot
    # help, so it waits for the owner (alert, `leads list`) instead of blocking the others.
    REJECTED = "rejected"
    # Suspected spam (``spam_reason``: its honeypot filled, no form token...): stored,
    # never sent nor counted as waiting, until the owner releases it (`leads not-spam
    # ID`); deleted after LEADS_SPAM_KEEP_DAYS.
    SPAM = "spam"


class SpamReason(StrEnum):
    """Why a lead was quarantined as spam (``leads/spam/screen.py`` checks them in this order;
    the first that holds is kept)."""

    HONEYPOT = "honeypot"  # The hidden field people never see was filled.
    NO_TOKEN = "no_token"  # The form's signed token is missing (a bot posting directly).
    TOO_FAST = "too_fast"  # Sent sooner after the token than a person types a form.
    TOKEN_EXPIRED = "token_expired"  # The token is older than a day.
    BAD_TOKEN = "bad_token"  # The token's signature does not hold.
    DISPOSABLE = "disposable"  # The address is at a throwaway-mailbox domain.
    NO_MX = "no_mx"  # The address's domain receives no e-mail (LEADS_CHECK_MX).

    @property
    def soft(self) -> bool:
        """Whether a person's browser may have tripped it (a form sent quickly, a token
        that did not arrive): such a lead is asked for a proof of work
        (``spam/challenge.py``) that releases it; the others stay silent quarantine."""
        return self in _SOFT


_SOFT = frozenset(
    (SpamReason.NO_TOKEN, SpamReason.TOO_FAST, SpamReason.TOKEN_EXPIRED, SpamReason.BAD_TOKEN)
)

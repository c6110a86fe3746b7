"""The statuses a lead goes through (its kind, which form it came from, is
``agency_site.forms.kinds.LeadKind``)."""

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
    # Its honeypot was filled (a bot, or a browser's autofill): stored, never sent nor
    # counted as waiting, until the owner releases it (`leads not-spam ID`); deleted
    # after LEADS_SPAM_KEEP_DAYS.
    SPAM = "spam"

"""What the visitor is told after submitting a form: the outcome both paths (the form
states and the plain HTML form of ``site_api``) show, decided by ``leads.intake``."""

from dataclasses import dataclass, field
from enum import StrEnum


class Result(StrEnum):
    """What the visitor is told after submitting."""

    SENT = "sent"  # Delivered (or its honeypot was filled: it is told the same).
    QUEUED = "queued"  # Stored; the e-mail goes out later.
    INVALID = "invalid"  # Nothing stored; see the errors per field.
    RATE_LIMITED = "rate_limited"
    STORE_FAILED = "store_failed"  # Not even stored: the visitor must write to us.
    # Suspect (sent too fast, no form token, rate-limited): a proof of work to solve in
    # the browser (``Submission.challenge``), then the same submission again.
    CHALLENGE = "challenge"


@dataclass(frozen=True)
class Submission:
    """The result of a submission and, when invalid, a message per field (in the language
    in use); with ``Result.CHALLENGE``, the challenge (JSON text the ALTCHA widget takes)."""

    result: Result
    errors: dict[str, str] = field(default_factory=dict)
    challenge: str = ""

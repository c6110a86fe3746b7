"""The forms' time trap: a token signed by the backend when a visitor starts on a form.

A prerendered page holds no fresh token, so the form's browser code asks
``GET /_site/forms/token`` for one at the first focus in the form and writes it into the
form's hidden ``FORM_TOKEN_FIELD`` (``components/js/form_http_fallback.js``); the backend's own
no-JavaScript page writes one in directly (``site_api.py``). The token holds its issue
time in milliseconds, signed (``itsdangerous``, its own salt) with the site's secret: a
submission with no token, one younger than ``LEADS_SPAM_MIN_SECONDS`` (a person does not
fill a form that fast), older than a day, or whose signature does not hold is suspect
(``SpamReason``). The token is no secret and no ticket: anyone may fetch one; what it
costs a bot is the wait.

The key: the site secret's for the form tokens (``site_secret.py``, ``FORM_TOKEN``): every
host of a site shares the secret, so a token from one host holds on another. Until
``site_secret.LEGACY_UNTIL`` a token signed before the keys were derived (with the secret
itself, or this host's former ``form-token-secret``) still holds.
"""

import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence

from itsdangerous import BadData, URLSafeSerializer

from agency_site.leads.site_secret import FORM_TOKEN, transition_keys
from agency_site.leads.statuses import SpamReason
from agency_site.settings import Settings

logger = logging.getLogger(__name__)

SALT = "agency_site.leads.form-token"
# What this host kept for the tokens before the site secret (read during the transition).
FILE_NAME = "form-token-secret"
MAX_AGE = dt.timedelta(days=1)
# Longest token a form may carry (ours are about 40 characters).
TOKEN_MAX = 200


class FormTokens:
    """Issues and checks form tokens with ``secrets`` (the first signs, any checks)."""

    def __init__(
        self,
        secrets: Sequence[str],
        min_age: dt.timedelta,
        max_age: dt.timedelta = MAX_AGE,
        clock: Callable[[], float] = time.time,
    ) -> None:
        # itsdangerous signs with the last key and checks with any.
        self._serializer = URLSafeSerializer(list(reversed(secrets)), salt=SALT)
        self.min_age, self.max_age, self._clock = min_age, max_age, clock

    def issue(self) -> str:
        """A fresh token: now, signed."""
        return str(self._serializer.dumps(round(self._clock() * 1000)))

    def check(self, token: object) -> SpamReason | None:
        """Why a submission carrying ``token`` is suspect, or None when it is not."""
        if not token:
            return SpamReason.NO_TOKEN
        if not isinstance(token, str) or len(token) > TOKEN_MAX:
            return SpamReason.BAD_TOKEN
        try:
            issued_ms = self._serializer.loads(token)
        except BadData:
            return SpamReason.BAD_TOKEN
        if not isinstance(issued_ms, int) or isinstance(issued_ms, bool):
            return SpamReason.BAD_TOKEN
        age = dt.timedelta(milliseconds=self._clock() * 1000 - issued_ms)
        if age < self.min_age:
            return SpamReason.TOO_FAST
        if age > self.max_age:
            return SpamReason.TOKEN_EXPIRED
        return None


def token_keys(settings: Settings) -> tuple[str, ...]:
    """The keys of the form tokens (the first signs, any checks); none without a site
    secret (then an ERROR says so and the time trap is off: no lead is taken for spam for
    want of a secret)."""
    found = transition_keys(settings, FORM_TOKEN, FILE_NAME)
    if not found:
        logger.error("The forms' time trap is OFF: the site has no secret (see above).")
    return found


def tokens_of(settings: Settings) -> FormTokens | None:
    """The forms' time trap of these settings: None when it is off
    (``LEADS_SPAM_TIME_TRAP=false``, or no site secret)."""
    found = token_keys(settings) if settings.leads.spam_time_trap else ()
    if not found:
        return None
    return FormTokens(found, dt.timedelta(seconds=settings.leads.spam_min_seconds))

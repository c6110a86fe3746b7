"""The signed, expiring link of a month's report page (``/_site/report/2026-11?t=<token>``).

No login: the link is the permission, so its token is

- **signed** (HMAC-SHA256 through itsdangerous) with the site secret's key for the report's
  links (``leads/site_secret.py``: ``BOOKING_LINK_SECRET``, newest first, or the one
  generated once and kept in the data folder; ``mail_plugin.report_links``), under a salt
  of its own, so a booking link's token never opens a report and a report's never a
  booking;
- **bound to one month**: it carries its month, which must be the page's;
- **expiring**: ``REPORT_LINK_DAYS`` after it was made (60 by default); a new one any time
  with ``python -m agency_site.report link --month 2026-11``.
"""

import datetime as dt
import hashlib
import time
from collections.abc import Callable, Sequence
from urllib.parse import urlencode

from itsdangerous import BadData, TimestampSigner, URLSafeTimedSerializer

from agency_site import paths

SALT = "agency_site.report-link"
TOKEN_PARAM = "t"
TOKEN_MAX = 200


def month_key(month: dt.date) -> str:
    """``2026-11``: how a month is named in a link, a token and the monitor's row."""
    return f"{month.year:04d}-{month.month:02d}"


class ReportLinks:
    """Makes the report's links with the newest of ``secrets`` and opens them with any;
    ``clock``: the time in seconds (a test travels in time through it)."""

    def __init__(
        self,
        secrets: Sequence[str],
        api_url: str,
        days: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not secrets:
            raise ValueError("the report's links need a secret")

        class Signer(TimestampSigner):
            def get_timestamp(self) -> int:
                return int(clock())

        self._serializer = URLSafeTimedSerializer(
            list(reversed(secrets)),  # itsdangerous signs with the last one.
            salt=SALT,
            signer=Signer,
            signer_kwargs={"digest_method": hashlib.sha256},
        )
        self.api_url = api_url.rstrip("/")
        self.max_age = dt.timedelta(days=days)
        self._clock = clock

    def token(self, month: dt.date) -> str:
        """A new token for ``month``'s page, valid ``max_age`` from now."""
        return str(self._serializer.dumps(month_key(month)))

    def url(self, month: dt.date) -> str:
        """The absolute link to ``month``'s page, with a new token."""
        query = urlencode({TOKEN_PARAM: self.token(month)})
        return f"{self.api_url}{paths.report_page(month_key(month))}?{query}"

    def valid_until(self) -> dt.datetime:
        """Until when a link made now works (UTC)."""
        return dt.datetime.fromtimestamp(self._clock(), dt.UTC) + self.max_age

    def opens(self, token: object, month: str) -> bool:
        """Whether ``token`` is a link of ours, not expired, to the page of ``month``."""
        if not isinstance(token, str) or not 0 < len(token) <= TOKEN_MAX:
            return False
        try:
            signed = self._serializer.loads(token, max_age=self.max_age.total_seconds())
        except BadData:
            return False
        return signed == month

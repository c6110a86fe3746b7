"""The funnel's first step: a form started, counted when a page asks for a form token
(``GET /_site/forms/token?form=<kind>``, at the first focus in a form). A daily count per
form, no identifier; counting never delays nor fails the token's answer, and a token
request **writes nothing**: the database sees one small transaction a minute per worker.

- **What counts** (``StartedCounter.seen``): what an honest page sends, once. The page's
  browser code (``components/js/form_http_fallback.js``) fetches one token per page at the
  first focus in a form, naming the form; so a request counts only when it names a form
  the site has (an unknown or missing ``?form=`` counts nothing and makes no key), comes
  from one of the site's pages (``Origin``/``Referer``, when sent) and is no navigation
  (an address typed in a browser's bar); and only **the first one of its address (an IPv6
  network as the rate limit keys it) for that form that day** (the agency's day). A thousand
  token requests from one address are one form started; a flood is bounded by the
  addresses it comes from.
- **Where the "already counted" marks live**: with ``REFLEX_REDIS_URL``, in Redis, shared
  by every worker and host (the ``limits`` library, as the rate limit: a fixed window of
  one per day); otherwise in this process's memory (one worker: the site refuses several
  without Redis). A mark is a keyed digest (HMAC-SHA256 with the site secret's key for the
  marks, ``leads/site_secret.py``) of the
  day, the form and the network, never the address; it expires after a day. At most
  ``MAX_NEW_PER_DAY`` new marks a day per worker: past that the day's count is a floor (one
  WARNING says so). Redis unreachable: the marks fall back to this process's memory.
- **The counts** wait in this process's memory (a few integers: a day and a known form
  each) and ``flush`` adds them to ``report_forms_started`` in one transaction, a round of
  the worker's loops once a minute (``FLUSH_EVERY``, ``leads/runtime.py``) and once more at
  shutdown. A flush that fails keeps them for the next one; a worker killed outright
  loses at most its last minute.
"""

import asyncio
import datetime as dt
import functools
import hashlib
import hmac
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable

import sqlalchemy as sa
from limits import RateLimitItemPerDay
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import FixedWindowRateLimiter

from agency_site.forms.kinds import LeadKind
from agency_site.leads.loop import Round
from agency_site.leads.ratelimit import address_key, storage_for
from agency_site.report import tables
from agency_site.report.log_lines import ZONE
from agency_site.settings import Settings

logger = logging.getLogger(__name__)

# How often each worker adds its counts to the table (a round of its loops).
FLUSH_EVERY = dt.timedelta(minutes=1)
# New addresses counted per worker and day at most: a bound on the marks kept.
MAX_NEW_PER_DAY = 20_000
# One start per address, form and day.
_ONCE_A_DAY = RateLimitItemPerDay(1)
_NAMESPACE = "forms-started"
# The purpose of the marks' key (``leads/site_secret.py``).
FORMS_STARTED = "report forms-started"
# After Redis failed, how long the marks stay in this process's memory before it is tried
# again (a flood of token requests never waits on a Redis that does not answer).
SHARED_RETRY_S = 30.0


def form_of(value: str | None) -> str | None:
    """The form a token request names (``?form=quote``); None when none or unknown."""
    try:
        return str(LeadKind(value)) if value else None
    except ValueError:
        return None


def agency_day(now: dt.datetime | None = None) -> dt.date:
    """The agency's day (Europe/Madrid) at ``now``."""
    return (now or dt.datetime.now(dt.UTC)).astimezone(ZONE).date()


class StartedCounter:
    """The forms started of one worker: counted in memory, marked once per address,
    form and day in ``storage`` (Redis or memory), added to the table by ``flush``."""

    def __init__(
        self,
        engine: Callable[[], sa.Engine],
        storage: Storage | None = None,
        secret: Callable[[], bytes] | None = None,
        max_new_per_day: int = MAX_NEW_PER_DAY,
    ) -> None:
        """``engine``, ``secret``: looked up at first use (the site's secret: every worker's
        marks of one address then match); ``storage``: where the marks live (memory)."""
        self._engine = engine
        self._marks = FixedWindowRateLimiter(storage or MemoryStorage())
        self._fallback = FixedWindowRateLimiter(MemoryStorage())
        self._secret = functools.cache(secret or (lambda: secrets.token_bytes(32)))
        self._max_new = max_new_per_day
        self._counts: Counter[tuple[dt.date, str]] = Counter()
        self._new_today: tuple[dt.date, int] = (dt.date.min, 0)
        self._shared_down_until = 0.0  # time.monotonic() until which Redis is not asked.

    @property
    def pending(self) -> dict[tuple[dt.date, str], int]:
        """The counts not in the table yet, by (day, form)."""
        return dict(self._counts)

    def _mark(self, day: dt.date, form: str, client_ip: str) -> str:
        text = f"{day.isoformat()}|{form}|{address_key(client_ip)}"
        return hmac.new(self._secret(), text.encode(), hashlib.sha256).hexdigest()[:24]

    async def _first(self, mark: str) -> bool:
        """Whether ``mark`` is new today: in ``storage``, or in this process's memory for
        ``SHARED_RETRY_S`` after ``storage`` failed (Redis down)."""
        if time.monotonic() >= self._shared_down_until:
            try:
                first = await self._marks.hit(_ONCE_A_DAY, _NAMESPACE, mark)
            except Exception as error:
                if not self._shared_down_until:  # Said once until it works again.
                    logger.error(
                        "Forms started: the shared marks cannot be read (%s); this worker "
                        "counts with its own meanwhile (Redis is tried every %s s).",
                        type(error).__name__,
                        int(SHARED_RETRY_S),
                    )
                self._shared_down_until = time.monotonic() + SHARED_RETRY_S
            else:
                self._shared_down_until = 0.0
                return first
        return await self._fallback.hit(_ONCE_A_DAY, _NAMESPACE, mark)

    async def seen(self, asked: str | None, client_ip: str, now: dt.datetime | None = None) -> bool:
        """A page of the site asked for a token of the form ``asked`` (its ``?form=``: an
        unknown one, or none, counts nothing) from ``client_ip``; whether it counted (the
        first of its address, form and day). Never raises; touches no database."""
        form = form_of(asked)
        if form is None:
            return False
        day = agency_day(now)
        known, new = self._new_today
        if known != day:
            known, new = day, 0
        if new >= self._max_new:
            return False
        try:
            first = await self._first(self._mark(day, form, client_ip))
        except Exception:
            logger.exception("A form start could not be counted.")
            return False
        if not first:
            return False
        self._new_today = (day, new + 1)
        if new + 1 == self._max_new:
            logger.warning(
                "Forms started on %s: %s new addresses in this worker; more are not counted "
                "today (the day's figure is a floor).",
                day,
                self._max_new,
            )
        self._counts[(day, form)] += 1
        return True

    def _write(self, counts: Counter[tuple[dt.date, str]]) -> None:
        with self._engine().begin() as connection:
            for (day, form), amount in sorted(counts.items()):
                key = {"day": day, "form": form}
                tables.increment(connection, tables.forms_started, key, amount)

    async def flush(self) -> int:
        """Add the counts waiting in memory to the table, in one transaction; how many
        starts it added. A failure keeps them for the next flush and is raised (the
        round's loop tells it once)."""
        if not self._counts:
            return 0
        taken, self._counts = self._counts, Counter()
        try:
            await asyncio.to_thread(self._write, taken)
        except Exception:
            self._counts.update(taken)  # Kept (with what came meanwhile) for the next try.
            raise
        return sum(taken.values())


def forms_started(settings: Settings, engine: Callable[[], sa.Engine]) -> StartedCounter:
    """This process's counter of forms started (the marks in Redis when the site has one,
    the site's secret for their digests), its flush a round of every worker's loops:
    once a minute, and once more when the worker stops."""
    from agency_site.leads.runtime import add_round
    from agency_site.leads.site_secret import keys

    def site_secret() -> bytes:
        """The site secret's key for the marks (every host's the same); a random one when
        the site has none."""
        found = keys(settings, FORMS_STARTED)
        return found[0].encode() if found else secrets.token_bytes(32)

    redis_url = settings.reflex.redis_url
    counter = StartedCounter(
        engine, storage_for(redis_url.get_secret_value() if redis_url else None), site_secret
    )
    add_round(Round("The forms-started count", counter.flush, FLUSH_EVERY, last=counter.flush))
    return counter

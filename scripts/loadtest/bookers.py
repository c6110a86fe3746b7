"""A booking as the page sends it: over the websocket, over HTTP, or the first then the second.

- ``booking_fields`` is the one place that names the booking form's fields the load test
  sends (the same dict goes over the websocket and over HTTP);
- ``post_booking`` posts it as the no-JavaScript form and the page's fetch fallback do
  (``agency_site/site_api.py``): ``POST /_site/forms/booking``, form-encoded, with
  ``Accept: application/json``, the page's ``Origin``/``Referer`` and the hidden
  ``idempotency_key``; the JSON answer's ``result`` is the outcome shown;
- ``book_in_browser`` does what ``agency_site/components/js/form_http_fallback.js`` does:
  the websocket first, and the same submission (same key) over HTTP when the socket
  cannot connect or hydrate, drops, the backend does not start the submission within
  ``2 × CONNECT_S`` or no answer comes within ``WATCH_S``.
"""

import asyncio
import datetime as dt
import itertools
import json
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import aiohttp

from agency_site.forms.declarations import (
    BY_KIND,
    HONEYPOT_FIELD,
    IDEMPOTENCY_FIELD,
    submission_fields,
)
from agency_site.forms.kinds import LeadKind
from agency_site.paths import SCHEDULE, form_post
from agency_site.rules import AGENCY_TIME_ZONE, TIME_SLOTS
from agency_site.working_calendar import default_calendar
from scripts.loadtest.protocol import Tab, VisitorError

BOOKING_POST = form_post("booking")
FORM_TYPE = "application/x-www-form-urlencoded"
# The page's fallback timings (components/form_hooks.py: _CONNECT_MS; WATCH_MS is the
# submission deadline, LEADS_SUBMIT_DEADLINE_SECONDS = 30 s, + 15 s).
CONNECT_S = 3.0
WATCH_S = 45.0
HTTP_TRIES = 3  # a POST without a JSON answer is sent again (js/form_http_fallback.js)
# How a booking reached the backend.
SOCKET, HTTP, FALLBACK = "socket", "http", "socket→http"


class SlotPlan:
    """A distinct slot for every booking the load test makes: a slot is requested once, so
    each booker asks for its own (working days from two days ahead, eight slots a day, in
    order; 400 bookings take 50 working days). Shared by every round of one run."""

    def __init__(self, now: dt.datetime | None = None) -> None:
        self._calendar = default_calendar()
        start = (now or dt.datetime.now(ZoneInfo(AGENCY_TIME_ZONE))).date() + dt.timedelta(days=2)
        self._days = [self._calendar.next_working_day(start)]
        self._taken = itertools.count()

    def take(self) -> tuple[str, str]:
        """The next free (ISO date, slot)."""
        day_index, slot = divmod(next(self._taken), len(TIME_SLOTS))
        while len(self._days) <= day_index:
            after = self._days[-1] + dt.timedelta(days=1)
            self._days.append(self._calendar.next_working_day(after))
        return self._days[day_index].isoformat(), TIME_SLOTS[slot]


SLOTS = SlotPlan()


def booker_email(run_id: str, n: int) -> str:
    """The distinct address of booker ``n`` of run ``run_id``."""
    return f"loadtest+{run_id}-{n}@example.com"


def booking_fields(
    run_id: str, n: int, slot: tuple[str, str], key: str | None = None
) -> dict[str, str]:
    """A valid booking of booker ``n``: the booking form's declared fields in the order the
    browser's FormData lists them (``website`` is the honeypot, the last one the
    submission's idempotency key, one per submission). A required field added to the
    declaration without a value here stops the load test at once, naming it."""
    sample = {
        "name": f"Visitante de carga {n}",
        "email": booker_email(run_id, n),
        "phone": "+34 600 000 000",
        "date": slot[0],
        "time": slot[1],
        "message": f"Reserva de la prueba de carga {run_id}, visitante {n}.",
        HONEYPOT_FIELD: "",
    }
    form = BY_KIND[LeadKind.BOOKING]
    missing = [f.name for f in form.fields if f.required and f.name not in sample]
    if missing:
        raise ValueError(f"the load test has no value for the booking form's {missing}")
    fields = {name: sample.get(name, "") for name in submission_fields(LeadKind.BOOKING)}
    return fields | {IDEMPOTENCY_FIELD: key or uuid.uuid4().hex}


async def post_once(
    session: aiohttp.ClientSession, url: str, origin: str, fields: dict[str, str]
) -> str:
    """One POST of ``fields`` as the page sends it; the ``result`` of the JSON answer.

    VisitorError when no JSON answer comes (a network error, the proxy's 502 page).
    """
    headers = {
        "Accept": "application/json",
        "Content-Type": FORM_TYPE,
        "Origin": origin,
        "Referer": origin + SCHEDULE,
    }
    try:
        async with session.post(
            url + BOOKING_POST, data=urlencode(fields), headers=headers
        ) as response:
            body = await response.read()
            status = response.status
        answer = json.loads(body)
    except (aiohttp.ClientError, OSError, TimeoutError) as error:
        raise VisitorError(f"post failed: {type(error).__name__}: {error}"[:200]) from error
    except ValueError as error:
        raise VisitorError(f"post answered {status} without JSON") from error
    return str(answer.get("result") or f"HTTP {status}")


async def post_booking(
    session: aiohttp.ClientSession, url: str, origin: str, fields: dict[str, str]
) -> tuple[str, int]:
    """Post ``fields`` as the page does over HTTP: (the result shown, tries made).

    Like the page, a POST that got no JSON answer is sent again (same key: stored and
    sent once) up to ``HTTP_TRIES`` times, 1 s then 2 s apart; VisitorError after that
    (the page then tells the visitor to write to the agency).
    """
    for attempt in range(1, HTTP_TRIES + 1):
        try:
            return await post_once(session, url, origin, fields), attempt
        except VisitorError:
            if attempt == HTTP_TRIES:
                raise
            await asyncio.sleep(attempt)
    raise AssertionError("unreachable")


@dataclass
class Booked:
    """What a browser-like booking saw."""

    outcome: str  # the result the page shows
    path: str  # SOCKET or FALLBACK
    elapsed_s: float  # submit (the socket's connect included) → outcome
    hydrate_s: float | None = None  # the socket's connect and hydrate, when it hydrated
    why: str = ""  # why it fell back to HTTP
    tries: int = 0  # HTTP posts made (more than one: retried after no answer)


async def book_in_browser(
    tab: Tab, session: aiohttp.ClientSession, origin: str, fields: dict[str, str]
) -> Booked:
    """The websocket first (connect and hydrate within ``2 × CONNECT_S``, the submission
    started as soon, its answer within ``WATCH_S``), then the same submission over HTTP.

    The tab stays connected after an answer over the socket; it is closed otherwise.
    """
    started = time.perf_counter()
    hydrate_s = None
    try:
        tab.timeout = 2 * CONNECT_S
        hydrate_s = await tab.open(SCHEDULE)
        tab.timeout = WATCH_S
        outcome, _ = await tab.book(fields, started_within=2 * CONNECT_S)
        return Booked(outcome, SOCKET, time.perf_counter() - started, hydrate_s)
    except VisitorError as error:
        why = str(error)
    await tab.close()
    outcome, tries = await post_booking(session, tab.url, origin, fields)
    return Booked(outcome, FALLBACK, time.perf_counter() - started, hydrate_s, why, tries)

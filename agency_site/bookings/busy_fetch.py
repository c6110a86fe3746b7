"""Fetching one calendar (``busy_feed.py`` tells the whole story): the addresses of
``BOOKING_BUSY_ICS_URLS``, the booking window the busy times cover, a conditional GET of an
iCal address (at most ``MAX_BYTES``) and a CalDAV calendar's pull, each answer a
``FeedAnswer`` or a ``FetchFailed`` that names no address. The deadline of a whole fetch is
the feed's (``BusyFeed._fetch``).
"""

import datetime as dt
import logging
from dataclasses import dataclass
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import httpx

from agency_site.bookings import busy_caldav
from agency_site.bookings.busy_copy import FeedCopy
from agency_site.rules import AGENCY_TIME_ZONE
from agency_site.working_calendar import one_year_after

logger = logging.getLogger(__name__)

# The largest calendar taken (a Google calendar of years of events is a few MB).
MAX_BYTES = 20 * 1024 * 1024


def feed_urls(text: str) -> tuple[str, ...]:
    """The calendar addresses of ``BOOKING_BUSY_ICS_URLS`` (comma- or space-separated);
    ``webcal://`` (what calendar apps hand out) is fetched as ``https://``. One that is no
    http(s) address is left out with an ERROR (the form works without it)."""
    urls = []
    for number, part in enumerate(text.replace(",", " ").split(), 1):
        if part.lower().startswith("webcal://"):
            part = "https://" + part[len("webcal://") :]
        if urlsplit(part).scheme.lower() in ("http", "https") and urlsplit(part).hostname:
            urls.append(part)
        else:
            logger.error(
                "Address %s of BOOKING_BUSY_ICS_URLS is not an http(s):// or webcal:// "
                "address: it is left out.",
                number,
            )
    return tuple(urls)


class FetchFailed(Exception):
    """A calendar could not be had this time (its text says why, without the address)."""


def booking_window(today: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """Where busy times matter: from yesterday (the agency's day) to a year after today,
    as far ahead as the form takes bookings."""
    zone = ZoneInfo(AGENCY_TIME_ZONE)
    start = dt.datetime.combine(today - dt.timedelta(days=1), dt.time(), zone)
    return start, dt.datetime.combine(one_year_after(today) + dt.timedelta(days=2), dt.time(), zone)


@dataclass(frozen=True)
class FeedAnswer:
    """A calendar's new text and what a conditional GET of it sends next."""

    body: bytes
    etag: str
    last_modified: str


async def conditional_get(client: httpx.AsyncClient, copy: FeedCopy) -> FeedAnswer | None:
    """The calendar's new text, or None when unchanged (304)."""
    try:
        async with client.stream("GET", copy.url, headers=copy.conditions()) as response:
            if response.status_code == httpx.codes.NOT_MODIFIED and copy.calendar is not None:
                return None
            if response.status_code != httpx.codes.OK:
                raise FetchFailed(f"HTTP {response.status_code}")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise FetchFailed(f"larger than {MAX_BYTES // 2**20} MB")
            headers = response.headers
            return FeedAnswer(
                bytes(body), headers.get("ETag", ""), headers.get("Last-Modified", "")
            )
    except httpx.HTTPError as error:
        raise FetchFailed(type(error).__name__) from None


async def pulled(pull: busy_caldav.Pull, today: dt.date) -> FeedAnswer:
    """A pulled calendar's events of the booking window (always new: no conditions)."""
    try:
        body = await pull(*booking_window(today))
    except busy_caldav.Unreachable as error:
        raise FetchFailed(str(error)) from None
    return FeedAnswer(body, "", "")

"""The owner's CalDAV calendar (``BOOKING_BUSY_CALDAV_URL``, ``_USERNAME``, ``_PASSWORD``): a
second source of busy times beside the iCal addresses, behind the same copy (``busy_feed``:
fetched in the background, the last good copy kept, the owner alerted when it fails).

One pull asks the calendar for its events of the booking window with the ``caldav``
library's search, each repeat expanded (``expand=True``: every occurrence its own event,
moved and cancelled ones as the calendar has them), and writes them as one iCalendar text
of standalone events; ``busy_times`` then applies the same rules as to an iCal feed
(the owner's answers to invitations, cancelled and free events do not block, all-day ones
by setting, the buffer). Each occurrence keeps its series' UID in ``X-AGENCY-SERIES``
(``busy_times.SERIES``) for ``wide_series``.

The pull is a coroutine on the library's asynchronous client (``caldav.aio``), so the
feed's overall deadline (``BusyFeed.deadline``, an ``asyncio.timeout`` around the whole
pull) cancels it wherever it is waiting: a server that trickles its answer a byte at a
time cannot hold a thread or the feed for longer.
"""

import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import icalendar
from caldav import aio

from agency_site.bookings.busy_times import SERIES

# What a pull does: the events of [start, end) as iCalendar text.
Pull = Callable[[dt.datetime, dt.datetime], Awaitable[bytes]]
# The parts of an occurrence that would make it a series or an exception of one.
_SERIES = ("RRULE", "RDATE", "EXDATE", "RECURRENCE-ID")


class Unreachable(Exception):
    """The calendar could not be read this time (its text says why, without secrets)."""


@dataclass(frozen=True)
class CalDavAccount:
    """A CalDAV calendar's address (the calendar collection itself, e.g. Nextcloud's
    ``https://cloud.example.es/remote.php/dav/calendars/owner/personal/``) and its login."""

    url: str
    username: str = ""
    password: str = field(default="", repr=False)


def standalone(event: icalendar.Event, number: int) -> icalendar.Event:
    """An expanded occurrence as an event of its own: no repeat, no recurrence id, a UID of
    its own (another expansion must not take it for an exception of a series), its series'
    UID kept in ``X-AGENCY-SERIES``."""
    for name in _SERIES:
        event.pop(name, None)
    uid = str(event.get("UID", "occurrence"))
    event[SERIES] = uid
    event["UID"] = f"{uid}#{number}"
    return event


async def read_window(
    account: CalDavAccount, start: dt.datetime, end: dt.datetime, timeout_s: float
) -> bytes:
    """The calendar's events between ``start`` and ``end`` (aware), each occurrence
    expanded, as one iCalendar text (``Unreachable`` when it cannot be had; ``timeout_s``:
    each connection and read, the caller bounds the whole)."""
    try:
        async with aio.AsyncDAVClient(
            url=account.url,
            username=account.username or None,
            password=account.password or None,
            timeout=max(1, round(timeout_s)),
            enable_rfc6764=False,
        ) as client:
            calendar = aio.Calendar(client=client, url=account.url)
            found = await calendar.search(start=start, end=end, event=True, expand=True)
            components = [c for item in found for c in item.icalendar_instance.walk("VEVENT")]
    except Exception as error:  # The library's and the transport's errors vary.
        raise Unreachable(type(error).__name__) from None
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//agency_site//busy times from CalDAV//ES")
    calendar.add("version", "2.0")
    for number, event in enumerate(components):
        calendar.add_component(standalone(event, number))
    return calendar.to_ical()


def pull(account: CalDavAccount, timeout_s: float = 20.0) -> Pull:
    """The pull of ``account`` (``read_window`` with its login)."""

    async def read(start: dt.datetime, end: dt.datetime) -> bytes:
        return await read_window(account, start, end, timeout_s)

    return read

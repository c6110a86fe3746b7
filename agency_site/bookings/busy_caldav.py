"""The owner's CalDAV calendar (``BOOKING_BUSY_CALDAV_URL``, ``_USERNAME``, ``_PASSWORD``): a
second source of busy times beside the iCal addresses, behind the same copy (``busy_feed``:
fetched in the background, the last good copy kept, the owner alerted when it fails).

One pull asks the calendar for its events of the booking window with the ``caldav``
library's search, each repeat expanded (``expand=True``: every occurrence its own event,
moved and cancelled ones as the calendar has them), and writes them as one iCalendar text
of standalone events; ``busy_times`` then applies the same rules as to an iCal feed
(cancelled and free events do not block, all-day ones by setting, the buffer).
"""

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

import caldav
import icalendar

# What a pull does: the events of [start, end) as iCalendar text.
Pull = Callable[[dt.datetime, dt.datetime], bytes]
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
    its own (another expansion must not take it for an exception of a series)."""
    for name in _SERIES:
        event.pop(name, None)
    event["UID"] = f"{event.get('UID', 'occurrence')}#{number}"
    return event


def read_window(
    account: CalDavAccount, start: dt.datetime, end: dt.datetime, timeout_s: float
) -> bytes:
    """The calendar's events between ``start`` and ``end`` (aware), each occurrence
    expanded, as one iCalendar text (``Unreachable`` when it cannot be had)."""
    try:
        with caldav.DAVClient(
            url=account.url,
            username=account.username or None,
            password=account.password or None,
            timeout=max(1, round(timeout_s)),
            enable_rfc6764=False,
        ) as client:
            found = client.calendar(url=account.url).search(
                start=start, end=end, event=True, expand=True
            )
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
    return lambda start, end: read_window(account, start, end, timeout_s)

"""The appointment in the visitor's calendar: an iCalendar file (RFC 5545, through the
``icalendar`` library) and add-to-calendar links for Google Calendar and Outlook.

Times are the agency's (Europe/Madrid) wall-clock times; the file carries the zone's
VTIMEZONE, so every calendar shows the right local time wherever the visitor is, and one
display alarm (``VALARM``) an hour before the start.
"""

import datetime as dt
from dataclasses import dataclass
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import icalendar

from agency_site.rules import AGENCY_TIME_ZONE

# How long a consultation lasts in the calendar.
CONSULTATION_MINUTES = 60
# The event's one alarm (VALARM, ACTION:DISPLAY): the visitor's calendar shows it this long
# before the start: time to find the link or the way, after the e-mail reminders.
ALARM_BEFORE = dt.timedelta(hours=1)


@dataclass(frozen=True)
class Appointment:
    """A confirmed consultation as calendars see it."""

    uid: str  # Stable per booking: a calendar updates, not duplicates, the event.
    date: dt.date
    time: str  # "10:00", the agency's time.
    title: str
    description: str
    location: str
    organizer_email: str
    url: str = ""  # The video call's link (BOOKING_MEETING_URL), also its location.
    # One more per change of the event (a move): calendars replace the event they hold
    # with the same UID only when SEQUENCE grew.
    sequence: int = 0

    @property
    def start(self) -> dt.datetime:
        """The start, aware, in the agency's time zone."""
        zone = ZoneInfo(AGENCY_TIME_ZONE)
        return dt.datetime.combine(self.date, dt.time.fromisoformat(self.time), zone)

    @property
    def end(self) -> dt.datetime:
        return self.start + dt.timedelta(minutes=CONSULTATION_MINUTES)


def ics(appointment: Appointment, *, cancelled: bool = False) -> bytes:
    """The ``.ics`` file of ``appointment`` (``METHOD:PUBLISH``; cancelled: ``STATUS:CANCELLED``)."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//agency_site//consultas//ES")
    calendar.add("version", "2.0")
    calendar.add("method", "PUBLISH")
    event = icalendar.Event()
    event.add("uid", appointment.uid)
    event.add("dtstamp", dt.datetime.now(dt.UTC))
    event.add("sequence", appointment.sequence)
    event.add("dtstart", appointment.start)
    event.add("dtend", appointment.end)
    event.add("summary", appointment.title)
    event.add("description", appointment.description)
    event.add("location", appointment.location)
    if appointment.url:
        event.add("url", appointment.url)
    event.add("organizer", f"mailto:{appointment.organizer_email}")
    event.add("status", "CANCELLED" if cancelled else "CONFIRMED")
    if not cancelled:
        event.add_component(_alarm(appointment))
    calendar.add_component(event)
    # The zone's rules around the appointment only (the whole history is ~3 KB of RDATEs).
    year = appointment.date.year
    calendar.add_missing_timezones(dt.date(year - 1, 1, 1), dt.date(year + 1, 12, 31))
    return calendar.to_ical()


def _alarm(appointment: Appointment) -> icalendar.Alarm:
    """A display alarm ``ALARM_BEFORE`` the start (a relative trigger: it follows a move)."""
    alarm = icalendar.Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("trigger", -ALARM_BEFORE)
    alarm.add("description", appointment.title)
    return alarm


def _utc_stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def google_link(appointment: Appointment) -> str:
    """Google Calendar's "add event" page, filled in."""
    query = {
        "action": "TEMPLATE",
        "text": appointment.title,
        "dates": f"{_utc_stamp(appointment.start)}/{_utc_stamp(appointment.end)}",
        "details": appointment.description,
        "location": appointment.location,
        "ctz": AGENCY_TIME_ZONE,
    }
    return "https://calendar.google.com/calendar/render?" + urlencode(query)


def outlook_link(appointment: Appointment) -> str:
    """Outlook on the web's "new event" page, filled in."""
    query = {
        "path": "/calendar/action/compose",
        "rru": "addevent",
        "subject": appointment.title,
        "startdt": appointment.start.isoformat(),
        "enddt": appointment.end.isoformat(),
        "body": appointment.description,
        "location": appointment.location,
    }
    return "https://outlook.live.com/calendar/0/deeplink/compose?" + urlencode(query)

"""The consultation bookings (``BOOKING_*``): when they can be made, their caps and links,
the video call, the owner's calendars, moves, reminders and the morning digest."""

import datetime as dt
import string
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import (
    Field,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    SecretStr,
    field_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from agency_site.settings.env_file import section
from agency_site.settings.text_values import iso_days, secret_list

# What BOOKING_MEETING_URL may leave for each booking to fill in (bookings/meeting.py).
MEETING_ROOM = "room"


def _odd_placeholders(value: str) -> list[str]:
    """What in ``value`` is a brace but not exactly ``{room}``."""
    try:
        parsed = list(string.Formatter().parse(value))
    except ValueError:  # A lone { or }.
        return ["a lone brace"]
    odd = []
    for literal, name, spec, conversion in parsed:
        if "{" in literal or "}" in literal:  # {{ or }}
            odd.append("a lone brace")
        elif name is not None and (name, spec, conversion) != (MEETING_ROOM, "", None):
            odd.append(name)
    return sorted(odd)


def _meeting_template(value: str) -> str:
    """An https URL whose only placeholder, if any, is ``{room}`` (outside the host)."""
    value = value.strip()
    if not value:
        return value
    if odd := _odd_placeholders(value):
        msg = f"BOOKING_MEETING_URL knows one placeholder, {{{MEETING_ROOM}}} as such; not {odd}."
        raise ValueError(msg)
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.hostname or "{" in parts.netloc:
        msg = (
            "BOOKING_MEETING_URL must be an https URL with a fixed host (a personal room such as "
            "https://meet.google.com/abc-defg-hij, or https://meet.jit.si/agency-{room})."
        )
        raise ValueError(msg)
    return value


class BookingSettings(BaseSettings):
    """When consultations can be booked (``BOOKING_*``): besides weekends and public holidays."""

    # Without the input in its errors: a too short BOOKING_LINK_SECRET is not printed.
    model_config = section("BOOKING_") | SettingsConfigDict(hide_input_in_errors=True)

    # The agency's own closures and Agramunt's local holidays, e.g. 2026-05-11,2026-08-16.
    closed_days: str = ""
    # Today's slots are offered only if they start at least this many hours from now.
    min_notice_hours: NonNegativeFloat = 2.0
    # At most this many active (pending or confirmed) bookings a day; 0: no limit.
    daily_limit: NonNegativeInt = 0
    # Signs the agency's confirm/decline links and the visitor's cancel and calendar links
    # (at least 32 characters; `python -c "import secrets; print(secrets.token_urlsafe(32))"`).
    # Several, comma-separated, newest first, rotate it: the first signs, every one opens.
    # Unset: one generated once and kept in the data folder (bookings/link_secret.py).
    link_secret: SecretStr = SecretStr("")
    # The agency's confirm/decline links work this many days.
    link_days: PositiveInt = 14
    # Pending (unanswered) bookings one e-mail address, and one network (an IPv4 /24, an
    # IPv6 /64), may hold at once; more are refused, asking to write or call. 0: no cap.
    max_pending_per_email: NonNegativeInt = 2
    max_pending_per_network: NonNegativeInt = 6
    # A booking still pending this many working days after it was requested expires: its
    # slot is free again and the visitor is told by e-mail. 0: never.
    pending_expiry_days: NonNegativeInt = 3
    # The visitor's video call: a personal Meet/Zoom room, or a template whose {room} each
    # booking fills in with its own unguessable name (https://meet.jit.si/impulso-{room}).
    # Unset: no link (by phone or video call, as agreed).
    meeting_url: str = ""
    # The owner's calendars (issue 31): private iCal addresses, comma-separated (secrets:
    # Google's "secret address in iCal format", an Outlook published calendar...). Their
    # busy times are neither offered nor accepted (agency_site/bookings/busy_feed.py).
    busy_ics_urls: SecretStr = SecretStr("")
    # A CalDAV calendar as one more (agency_site/bookings/busy_caldav.py): the calendar's
    # address (Nextcloud, Radicale, Fastmail, iCloud...) and its login; unset: none.
    busy_caldav_url: SecretStr = SecretStr("")
    busy_caldav_username: str = ""
    busy_caldav_password: SecretStr = SecretStr("")
    # The owner's own addresses in those calendars, comma-separated (unset: AGENCY_EMAIL).
    # An event with attendees blocks only when one of them organised or accepted it.
    owner_emails: str = ""
    # Whether an invitation the owner answered "maybe" (tentative) blocks too.
    busy_tentative: bool = False
    # Whether an all-day event (not marked free) blocks its whole day.
    busy_all_day_blocks: bool = False
    # Minutes kept free before and after each busy event.
    buffer_minutes: NonNegativeInt = 0
    # How often each backend worker fetches the calendars (a conditional GET).
    busy_refresh_minutes: PositiveFloat = 10.0
    # The owner is alerted once a calendar has failed to be fetched this long.
    busy_alert_minutes: PositiveFloat = 120.0
    # A calendar not fetched this long still blocks with its last copy, shown as
    # calendar_stale on the health page.
    busy_stale_hours: PositiveFloat = 24.0
    # The form is told the owner's busy slots of the next this many days only; further
    # ahead a booking for one is refused with the nearest free ones. 0: never told.
    busy_shown_days: NonNegativeInt = 60
    # The visitor's manage link moves the booking to another free slot until this many
    # hours before it; inside them the page offers the phone and WhatsApp instead.
    change_notice_hours: NonNegativeFloat = 24.0
    # How many times a visitor may move one booking (0: never; cancelling stays possible).
    max_reschedules: NonNegativeInt = 3
    # A confirmed booking moved to a free slot stays confirmed (false); true: it is pending
    # again until the agency confirms the new time. A pending booking stays pending.
    reconfirm_moves: bool = False
    # The visitor is e-mailed a reminder this many hours (real elapsed hours) before a
    # confirmed meeting (0: none), and a second one this many hours before (0: none).
    reminder_hours: NonNegativeFloat = 24.0
    second_reminder_hours: NonNegativeFloat = 0.0
    # The owner's morning digest (the day's confirmed meetings, and the "asistió" / "no
    # asistió" links of the passed ones) to the agency inbox, from this hour (agency time)
    # on working days; BOOKING_DIGEST=false: none.
    digest: bool = True
    digest_hour: Annotated[int, Field(ge=0, le=23)] = 8

    @field_validator("link_secret")
    @classmethod
    def _long_enough(cls, value: SecretStr) -> SecretStr:
        if any(len(secret) < 32 for secret in secret_list(value)):
            raise ValueError("BOOKING_LINK_SECRET needs at least 32 characters (each secret)")
        return value

    _meeting = field_validator("meeting_url")(_meeting_template)

    @property
    def link_secrets(self) -> tuple[str, ...]:
        """``link_secret``'s secrets, newest first (none when it is unset)."""
        return secret_list(self.link_secret)

    _days = field_validator("closed_days")(iso_days)

    @property
    def closed_dates(self) -> frozenset[dt.date]:
        """``closed_days`` as dates."""
        return frozenset(dt.date.fromisoformat(day) for day in self.closed_days.split(",") if day)

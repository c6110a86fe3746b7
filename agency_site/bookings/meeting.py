"""The visitor's video call (``BOOKING_MEETING_URL``): a personal Meet/Zoom room, the same
for every booking, or a template (Jitsi: ``https://meet.jit.si/agency-{room}``) whose
``{room}`` each booking fills in with a room of its own.

The room's name comes from the booking's secret ``link_key`` (never its id, which counts
up): unguessable, URL-safe, different for each booking and the same every time it is
written (the confirmation, the calendar file). A booking made before keys has none, so a
template gives it no room. Unset: no link, as before (by phone or video call, as agreed).
"""

import base64
import hashlib

from agency_site.settings import MEETING_ROOM, get_settings

PLACEHOLDER = f"{{{MEETING_ROOM}}}"


def room_name(link_key: str) -> str:
    """The room of the booking whose key is ``link_key``: 24 lowercase letters and digits
    (120 bits of a SHA-256 of the key, so the name does not give the key away)."""
    digest = hashlib.sha256(f"agency_site.meeting-room:{link_key}".encode()).digest()
    return base64.b32encode(digest[:15]).decode().lower()


def meeting_url(template: str, link_key: str | None) -> str:
    """``template`` for the booking whose key is ``link_key`` ("": no meeting link)."""
    if PLACEHOLDER not in template:
        return template
    return template.replace(PLACEHOLDER, room_name(link_key)) if link_key else ""


def booking_meeting_url(link_key: str | None) -> str:
    """The configured meeting link of the booking whose key is ``link_key``."""
    return meeting_url(get_settings().booking.meeting_url, link_key)

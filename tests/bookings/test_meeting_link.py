"""The video call (``BOOKING_MEETING_URL``): checked at load; a personal room or a room of
each booking's own (from its secret key, never its id) in the visitor's confirmation and
the calendar file's LOCATION and URL; unset, everything as before."""

import datetime as dt
import re
from collections.abc import Callable, Iterator

import icalendar
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agency_site import locale
from agency_site.bookings.calendar_file import ics
from agency_site.bookings.links import LinkSigner, new_link_key
from agency_site.bookings.mails import appointment, visitor_mail
from agency_site.bookings.meeting import meeting_url, room_name
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.content.bookings import COPY
from agency_site.content.site import SITE
from agency_site.settings import BookingSettings, get_settings

PERSONAL = "https://meet.google.com/abc-defg-hij"
JITSI = "https://meet.jit.si/impulso-{room}"
FIELDS = {"name": "Ana García", "email": "ana@example.com"}
KEYS = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
               min_size=1, max_size=32)  # fmt: skip


@pytest.fixture
def meeting(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """Set ``BOOKING_MEETING_URL`` for the rest of the test."""

    def use(url: str) -> None:
        monkeypatch.setenv("BOOKING_MEETING_URL", url)
        get_settings.cache_clear()

    yield use
    get_settings.cache_clear()


def confirmed(lead_id: int = 7, key: str | None = "k" * 22) -> Booking:
    return Booking(
        lead_id=lead_id,
        date=dt.date(2026, 12, 14),
        time="10:00",
        state=BookingStatus.CONFIRMED,
        link_key=key,
    )


def confirmation(booking: Booking, language: str = "es") -> dict[str, str]:
    with locale.active(language):
        return visitor_mail(
            booking,
            FIELDS,
            api_url="https://api.test",
            site_url="https://agencia.test",
            signer=LinkSigner("s" * 40),
        ).params


def calendar_event(booking: Booking) -> icalendar.Event:
    [event] = icalendar.Calendar.from_ical(ics(appointment(booking, FIELDS))).walk("VEVENT")
    return event


# --- At load ------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["", PERSONAL, JITSI, "https://zoom.us/j/123?pwd=x{room}"])
def test_an_https_room_or_template_is_taken(url: str) -> None:
    assert BookingSettings(_env_file=None, meeting_url=f" {url} ").meeting_url == url


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("https://meet.jit.si/{booking}", "{room} as such; not ['booking']"),
        ("https://meet.jit.si/{room}-{id}", "{room} as such; not ['id']"),
        ("https://meet.jit.si/{room:>10}", "{room} as such; not ['room']"),
        ("https://meet.jit.si/{}", "{room} as such; not ['']"),
        ("https://meet.jit.si/{room", "{room} as such; not ['a lone brace']"),
        ("https://meet.jit.si/{{room}}", "{room} as such; not ['a lone brace', 'a lone brace']"),
        ("http://meet.jit.si/{room}", "an https URL"),
        ("meet.jit.si/{room}", "an https URL"),
        ("https://{room}.example.es/", "fixed host"),
    ],
)
def test_a_wrong_url_stops_the_load_with_a_clear_message(url: str, says: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(says)):
        BookingSettings(_env_file=None, meeting_url=url)


# --- The room of each booking --------------------------------------------------------------------


@given(key=KEYS, other=KEYS)
def test_every_room_is_url_safe_its_own_and_gives_nothing_away(key: str, other: str) -> None:
    room = room_name(key)
    assert re.fullmatch(r"[a-z2-7]{24}", room)
    assert room == room_name(key)  # The same in every e-mail and calendar file.
    assert key not in room or len(key) < 3
    assert (room == room_name(other)) == (key == other)


def test_rooms_of_real_keys_differ_and_never_come_from_the_id() -> None:
    rooms = {meeting_url(JITSI, new_link_key()) for _ in range(500)}
    assert len(rooms) == 500
    assert meeting_url(JITSI, "same-key") == meeting_url(JITSI, "same-key")
    first, second = confirmed(1, "a-key"), confirmed(2, "a-key")
    assert appointment(first, FIELDS).url == appointment(second, FIELDS).url  # Not the id.


def test_a_personal_room_is_everyones_and_a_booking_without_key_gets_no_template_room() -> None:
    assert meeting_url(PERSONAL, "k") == meeting_url(PERSONAL, None) == PERSONAL
    assert meeting_url(JITSI, None) == ""
    assert meeting_url("", "k") == ""


# --- Where it goes ------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["es", "ca"])
def test_the_confirmation_and_the_calendar_file_carry_the_room(meeting, language: str) -> None:
    meeting(JITSI)
    booking = confirmed()
    room = f"https://meet.jit.si/impulso-{room_name(booking.link_key)}"
    params = confirmation(booking, language)
    assert params["meeting_url"] == room
    with locale.active(language):
        sentence = COPY.meeting.replace("{url}", room)
    assert params["message"].endswith(" " + sentence) and room in sentence
    event = calendar_event(booking)
    assert (str(event["LOCATION"]), str(event["URL"])) == (room, room)
    assert "location=" in params["google_url"] and "impulso-" in params["google_url"]


def test_a_personal_room_goes_the_same_way(meeting) -> None:
    meeting(PERSONAL)
    event = calendar_event(confirmed())
    assert (str(event["LOCATION"]), str(event["URL"])) == (PERSONAL, PERSONAL)
    assert confirmation(confirmed())["meeting_url"] == PERSONAL


def test_unset_everything_is_as_before(meeting) -> None:
    meeting("")
    params = confirmation(confirmed())
    assert params["meeting_url"] == ""
    with locale.active("es"):
        assert params["message"].endswith("reserva otra hora cuando quieras.")
    event = calendar_event(confirmed())
    assert str(event["LOCATION"]) == SITE.address.one_line and "URL" not in event


def test_only_a_confirmation_carries_it(meeting) -> None:
    meeting(PERSONAL)
    for state in (BookingStatus.DECLINED, BookingStatus.CANCELLED, BookingStatus.EXPIRED):
        booking = confirmed()
        booking.state = state
        params = confirmation(booking)
        assert params["meeting_url"] == "" and PERSONAL not in params["message"]

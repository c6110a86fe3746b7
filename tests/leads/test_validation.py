"""Server-side validation of every form: every field, valid and invalid, whatever is sent."""

import datetime as dt
import json
import unicodedata
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agency_site import locale
from agency_site.content.form_words import COPY
from agency_site.forms.declarations import BY_KIND
from agency_site.forms.fields import Control
from agency_site.forms.kinds import LeadKind
from agency_site.leads.validation import validate
from agency_site.rules import AGENCY_TIME_ZONE, TIME_SLOTS
from agency_site.working_calendar import WorkingCalendar, one_year_after

TODAY = dt.date(2026, 3, 10)  # A Tuesday.
# Early enough that all of today's slots can still be booked.
NOW = dt.datetime(2026, 3, 10, 6, 0, tzinfo=ZoneInfo(AGENCY_TIME_ZONE))
CALENDAR = WorkingCalendar(min_notice=dt.timedelta(hours=2))
VALID = {
    "name": "Ana García",
    "email": "ana@example.com",
    "phone": "+34 600 12 34 56",
    "date": "2026-03-10",
    "time": "10:00",
    "message": "Queremos renovar la web de la tienda.",
}


def booking(**changes) -> dict:
    return validate(
        LeadKind.BOOKING, {**VALID, **changes}, TODAY, now=NOW, calendar=CALENDAR
    ).__dict__


def test_a_valid_booking_comes_back_trimmed_and_normalised() -> None:
    result = validate(
        LeadKind.BOOKING,
        {**VALID, "name": "  Ana García ", "email": " Ana@EXAMPLE.com", "message": "a\r\nb  "},
        TODAY,
    )
    assert result.valid
    assert result.fields == {**VALID, "email": "Ana@example.com", "message": "a\nb"}


def test_the_message_is_optional() -> None:
    data = {k: v for k, v in VALID.items() if k != "message"}
    assert validate(LeadKind.BOOKING, data, TODAY).fields["message"] == ""


def test_unknown_fields_are_ignored() -> None:
    result = validate(LeadKind.BOOKING, {**VALID, "is_admin": "1"}, TODAY)
    assert result.valid and "is_admin" not in result.fields


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "", COPY.booking.fields["name"].error),
        ("name", " A ", COPY.booking.fields["name"].error),
        ("name", "A" * 101, COPY.booking.fields["name"].error),
        ("name", "Ana\x00", COPY.notices.control_chars),
        ("name", "Ana\nGarcía", COPY.notices.control_chars),
        ("name", ["Ana"], COPY.booking.fields["name"].error),
        ("email", "", COPY.booking.fields["email"].error),
        ("email", "ana@", COPY.booking.fields["email"].error),
        ("email", "ana example.com", COPY.booking.fields["email"].error),
        ("email", "a" * 250 + "@example.com", COPY.booking.fields["email"].error),
        ("email", 42, COPY.booking.fields["email"].error),
        ("phone", "12345", COPY.booking.fields["phone"].error),
        ("phone", "6" * 21, COPY.booking.fields["phone"].error),
        ("phone", "600 12 34 5x", COPY.booking.fields["phone"].error),
        ("phone", "(+) - ( )", COPY.booking.fields["phone"].error),
        ("phone", "600123456\x07", COPY.notices.control_chars),
        ("date", "", COPY.booking.fields["date"].error),
        ("date", "10/03/2026", COPY.booking.fields["date"].error),
        ("date", "2026-02-30", COPY.booking.fields["date"].error),
        ("date", "2026-03-09", COPY.booking.date_past),
        ("date", "2027-03-11", COPY.booking.date_too_far),
        ("time", "", COPY.booking.fields["time"].error),
        ("time", "03:00", COPY.booking.fields["time"].error),
        ("time", "10:00:00", COPY.booking.fields["time"].error),
        ("time", "10:00'); DROP TABLE leads;--", COPY.booking.fields["time"].error),
        ("message", "x" * 2001, COPY.booking.fields["message"].error),
        ("message", "x" * 100_000, COPY.booking.fields["message"].error),
        ("message", "hola\x1b[31m", COPY.notices.control_chars),
    ],
)
def test_each_wrong_field_gets_its_own_spanish_message(field, value, message) -> None:
    result = booking(**{field: value})
    assert result["errors"] == {field: message}
    assert result["fields"] == {}


@pytest.mark.parametrize("field", ["name", "email", "phone", "date", "time"])
def test_required_fields_cannot_be_missing(field) -> None:
    data = {k: v for k, v in VALID.items() if k != field}
    assert list(validate(LeadKind.BOOKING, data, TODAY).errors) == [field]


def test_all_wrong_fields_are_reported_together() -> None:
    result = validate(LeadKind.BOOKING, {"message": "hola"}, TODAY)
    assert list(result.errors) == ["name", "email", "phone", "date", "time"]


def test_the_hero_needs_a_valid_email_only() -> None:
    assert validate(LeadKind.HERO, {"email": " ana@example.com "}, TODAY).fields == {
        "email": "ana@example.com"
    }
    assert validate(LeadKind.HERO, {"email": "ana@"}, TODAY).errors == {
        "email": COPY.hero.fields["email"].error
    }
    assert validate(LeadKind.HERO, {}, TODAY).errors == {"email": COPY.hero.fields["email"].error}


def test_dates_run_from_today_to_a_year_ahead() -> None:
    assert booking(date="2026-03-10")["errors"] == {}
    assert booking(date="2027-03-10")["errors"] == {}
    assert one_year_after(dt.date(2028, 2, 29)) == dt.date(2029, 2, 28)


@given(
    st.dates(min_value=TODAY, max_value=one_year_after(TODAY)).filter(
        lambda day: CALENDAR.closure(day) is None
    )
)
def test_any_working_day_within_the_year_is_accepted(day: dt.date) -> None:
    assert booking(date=day.isoformat())["errors"] == {}


@given(st.dates().filter(lambda d: d < TODAY or d > one_year_after(TODAY)).map(dt.date.isoformat))
def test_any_date_outside_the_year_is_refused(day: str) -> None:
    assert list(booking(date=day)["errors"]) == ["date"]


@given(st.sampled_from(TIME_SLOTS))
def test_every_offered_slot_is_accepted(slot: str) -> None:
    assert booking(time=slot)["errors"] == {}


@given(st.text(max_size=10).filter(lambda t: t.strip() not in TIME_SLOTS))
def test_any_other_time_is_refused(value: str) -> None:
    assert list(booking(time=value)["errors"]) == ["time"]


_PHONE_CHARS = "0123456789 +-()"


@given(
    st.text(alphabet=_PHONE_CHARS, min_size=6, max_size=20).filter(
        lambda p: sum(c.isdigit() for c in p) >= 6 and p == p.strip()
    )
)
def test_phones_of_digits_spaces_and_signs_are_accepted(phone: str) -> None:
    assert booking(phone=phone)["errors"] == {}


@given(st.text(alphabet=_PHONE_CHARS, max_size=30), st.characters(exclude_characters=_PHONE_CHARS))
def test_a_phone_with_any_other_character_is_refused(phone: str, intruder: str) -> None:
    # Inside the number: surrounding whitespace (any, e.g. a no-break space) is trimmed.
    mixed = "600123456" + intruder + "7" + phone
    assert list(booking(phone=mixed)["errors"]) == ["phone"]


@given(
    st.text(
        alphabet=st.characters(exclude_categories=("Cc", "Cf", "Cs", "Zs", "Zl", "Zp")).filter(
            lambda char: not _noncharacter(char)
        ),
        min_size=2,
        max_size=100,
    )
)
def test_names_of_2_to_100_printable_characters_are_accepted(name: str) -> None:
    assert booking(name=name)["errors"] == {}


@given(st.text(max_size=20), st.characters(categories=("Cc",), exclude_characters="\n\r\t"))
def test_control_characters_are_refused_anywhere_in_the_message(text: str, control: str) -> None:
    middle = len(text) // 2
    result = booking(message=text[:middle] + control + text[middle:])
    assert result["errors"] == {"message": COPY.notices.control_chars}


@given(st.characters(categories=("Cc",)))
def test_control_characters_are_refused_even_at_the_ends_of_a_name(control: str) -> None:
    assert booking(name="Ana" + control)["errors"] == {"name": COPY.notices.control_chars}


# --- Text that cannot be stored, mailed or shown honestly ----------------------------------


def _noncharacter(char: str) -> bool:
    point = ord(char)
    return 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE


def _hidden(char: str, *, one_line: bool) -> bool:
    """What no stored field may hold, stated apart from the code: a lone surrogate, a
    noncharacter, a format or bidi control but the joiners (ZWNJ, ZWJ of emoji), a control
    character but a multi-line field's line break and tab, a one-line field's Zl/Zp."""
    category = unicodedata.category(char)
    return (
        category == "Cs"
        or _noncharacter(char)
        or (category == "Cf" and char not in "\u200c\u200d")
        or (category == "Cc" and (one_line or char not in "\n\t"))
        or (one_line and category in ("Zl", "Zp"))
    )


# Sure to be drawn often: the characters of the rule's edges.
_EDGES = (
    "\ud800\udfff\udc00\ufdd0\ufdef\ufffe\uffff\U0001fffe\U0010ffff"
    "\u200e\u200f\u202a\u202e\u2066\u2069\u061c\u200b\ufeff\u00ad\U000e0041"
    "\u2028\u2029\u200c\u200d\n\t\r\x00 aA\u00e9"
)
# Any code point; control characters (Cc, their own tests above) mostly from _EDGES.
_ANY_TEXT = st.text(
    alphabet=st.sampled_from(_EDGES)
    | st.characters(categories=("Cs", "Cf", "Cn", "Zl", "Zp"))
    | st.characters(exclude_categories=("Cc",)),
    max_size=12,
)
_WHERE = [
    (kind, field.name)
    for kind, form in BY_KIND.items()
    for field in form.fields
    if field.control not in (Control.DATE, Control.SLOT, Control.CHOICE)
]
_GOOD = {**VALID, "service": "branding", "pack": ""}


@pytest.mark.parametrize(("kind", "name"), _WHERE)
@settings(deadline=None)  # The first call builds the form's model (its options' content).
@given(text=_ANY_TEXT, lead=st.sampled_from(("", "Ana ", "ana@example.com")))
def test_any_text_is_refused_on_its_field_or_stored_encodable_and_visible(
    kind, name, text: str, lead: str
) -> None:
    """Whatever a field receives (a JSON string can carry any UTF-16 unit): either that
    field gets an error, or every value encodes to UTF-8 and JSON and holds nothing of
    ``_hidden``."""
    if name == "email":
        value = lead.split("@")[0] + text + "@example.com" if lead else text
    else:
        value = lead + text + ("a" * 2 if name != "phone" else "600123456")
    data = {key: _GOOD[key] for key in BY_KIND[kind].names if key in _GOOD}
    result = validate(kind, {**data, name: value}, TODAY, now=NOW, calendar=CALENDAR)
    if name in result.errors:
        return
    assert result.valid, result.errors
    json.dumps(result.fields, ensure_ascii=False).encode("utf-8")
    for key, stored in result.fields.items():
        stored.encode("utf-8")
        one_line = BY_KIND[kind].field(key).control is not Control.TEXTAREA
        assert not any(_hidden(char, one_line=one_line) for char in stored), (key, stored)


@pytest.mark.parametrize("language", ["es", "ca"])
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", json.loads('"Ana \\ud800"')),  # As a websocket's JSON carries it.
        ("name", "Ana \udfff García"),
        ("name", "\u202eaícraG anA"),  # Right-to-left override.
        ("name", "Ana\u2066 García"),
        ("name", "Ana\u200bGarcía"),  # Zero-width space.
        ("name", "Ana\ufeff"),
        ("name", "Ana\ufdd0"),
        ("name", "Ana\U0010ffff"),
        ("name", "Ana\u2028García"),  # A line break in a one-line field.
        ("phone", "600 123 456\u200e"),
        ("email", "ana\u202e@example.com"),
        ("message", "Hola \ud83d"),
        ("message", "precio: 100\u061c€"),
    ],
)
def test_invisible_or_unencodable_characters_are_refused_on_their_field(
    language: str, field: str, value: str
) -> None:
    with locale.active(language):
        result = booking(**{field: value})
    assert result["errors"] == {field: COPY.of(language).notices.control_chars}
    assert result["fields"] == {}


def test_emoji_joiners_and_a_message_s_line_separators_are_kept() -> None:
    fields = booking(name="Ana 👩\u200d💻", message="Hola\u2028adiós\u2029fin")["fields"]
    assert fields["name"] == "Ana 👩\u200d💻"
    assert fields["message"] == "Hola\nadiós\nfin"

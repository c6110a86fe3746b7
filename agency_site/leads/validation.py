"""Server-side validation of the lead forms, whatever the browser sent.

The websocket accepts crafted events, so nothing here trusts the browser's own
checks: every value is a trimmed string free of control characters, within its
bounds, and the date and time are ones the agency actually offers.

Sizes are checked before any per-character work: a submission that is not a small
mapping of text fields to text (``screen``) is refused whole, and a field longer
than twice its maximum is wrong before it is read. Whatever the shape of the
payload, the answer is a ``Validation``, never an exception.
"""

import datetime as dt
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from email_validator import EmailNotValidError, validate_email
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from agency_site.content.forms import (
    BOOKING,
    EMAIL_MAX,
    HERO_CAPTURE,
    MESSAGE_MAX,
    NAME_MAX,
    NAME_MIN,
    NOTICES,
    PHONE_MAX,
    PHONE_MIN,
    TIME_SLOTS,
)
from agency_site.leads.calendar import Closure, WorkingCalendar, agency_now, default_calendar
from agency_site.leads.kinds import LeadKind

# The hidden field only bots fill in (see components/forms.py).
HONEYPOT_FIELD = "website"

# The booking form has 7 named controls; Reflex's form data also carries each control
# again under its id (``booking_name``...), so 14 arrive; room for an extension's extra.
MAX_FIELDS = 32
MAX_FIELD_NAME = 64
# Longest raw value read per field: twice the field's maximum (whitespace is trimmed and
# "\r\n" becomes "\n" only after the check). Longer is wrong without reading it.
_RAW_MAX: dict[str, int] = {
    "email": 2 * EMAIL_MAX,
    "name": 2 * NAME_MAX,
    "phone": 2 * PHONE_MAX,
    "date": 32,
    "time": 32,
    "message": 2 * MESSAGE_MAX,
}

_PHONE = re.compile(r"[0-9 +\-()]+")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Errors of this type carry their own Spanish message; others get the field's message.
_SPECIFIC = "lead_specific"


def _specific(message: str) -> PydanticCustomError:
    """An error whose message is shown as is."""
    return PydanticCustomError(_SPECIFIC, message)


def _clean(value: Any, *, multiline: bool = False) -> str:
    """The value as a trimmed string, refusing non-strings and control characters."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValueError("not a string")
    allowed = ""
    if multiline:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
        allowed = "\n\t"
    if any(unicodedata.category(c) == "Cc" and c not in allowed for c in value):
        raise _specific(NOTICES.control_chars)
    return value.strip()


def _bounded(low: int, high: int):
    """A check that a string has between ``low`` and ``high`` characters."""

    def check(value: str) -> str:
        if not low <= len(value) <= high:
            raise ValueError("length out of bounds")
        return value

    return check


def _email(value: str) -> str:
    """The normalised address, checked for syntax only (no DNS)."""
    if len(value) > EMAIL_MAX:
        raise ValueError("too long")
    try:
        return validate_email(value, check_deliverability=False).normalized
    except EmailNotValidError as error:
        raise ValueError("invalid e-mail") from error


def _phone(value: str) -> str:
    """Digits, spaces and + - ( ), with at least six digits."""
    if not _PHONE.fullmatch(value) or sum(c.isdigit() for c in value) < PHONE_MIN:
        raise ValueError("invalid phone")
    return value


def _slot(value: str) -> str:
    """One of the consultation slots."""
    if value not in TIME_SLOTS:
        raise ValueError("not a slot")
    return value


Text = Annotated[str, BeforeValidator(_clean)]
Email = Annotated[Text, AfterValidator(_email)]
Name = Annotated[Text, AfterValidator(_bounded(NAME_MIN, NAME_MAX))]
Phone = Annotated[Text, AfterValidator(_bounded(PHONE_MIN, PHONE_MAX)), AfterValidator(_phone)]
Slot = Annotated[Text, AfterValidator(_slot)]
Message = Annotated[
    str,
    BeforeValidator(lambda value: _clean(value, multiline=True)),
    AfterValidator(_bounded(0, MESSAGE_MAX)),
]


def one_year_after(day: dt.date) -> dt.date:
    """The same day a year later (28 February for 29 February)."""
    try:
        return day.replace(year=day.year + 1)
    except ValueError:
        return day.replace(year=day.year + 1, day=28)


class ContactRequest(BaseModel):
    """The Home hero's capture: the visitor's e-mail."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    email: Email


class BookingRequest(BaseModel):
    """A consultation booking."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: Name
    email: Email
    phone: Phone
    date: dt.date
    time: Slot
    message: Message = ""

    @field_validator("date", mode="before")
    @classmethod
    def _date(cls, value: Any, info: ValidationInfo) -> dt.date:
        """An ISO date from today (in the agency's time zone) to a year ahead."""
        text = _clean(value)
        if not _ISO_DATE.fullmatch(text):
            raise ValueError("not an ISO date")
        day = dt.date.fromisoformat(text)
        today: dt.date = (info.context or {})["today"]
        if day < today:
            raise _specific(BOOKING.date_past)
        if day > one_year_after(today):
            raise _specific(BOOKING.date_too_far)
        calendar: WorkingCalendar = (info.context or {}).get("calendar") or default_calendar()
        if closure := calendar.closure(day):
            raise _specific(_CLOSURE_MESSAGES[closure])
        return day

    @field_validator("time")
    @classmethod
    def _time_still_open(cls, slot: str, info: ValidationInfo) -> str:
        """Today's slots only if they start far enough from now (see ``leads/calendar.py``)."""
        day = info.data.get("date")
        context = info.context or {}
        now: dt.datetime = context.get("now") or agency_now()
        calendar: WorkingCalendar = context.get("calendar") or default_calendar()
        if day == now.date() and slot not in calendar.open_slots(day, now):
            raise _specific(BOOKING.time_passed)
        return slot


_CLOSURE_MESSAGES = {
    Closure.WEEKEND: BOOKING.date_weekend,
    Closure.HOLIDAY: BOOKING.date_holiday,
    Closure.CLOSED: BOOKING.date_closed,
}


_MODELS: dict[LeadKind, type[BaseModel]] = {
    LeadKind.CONTACT: ContactRequest,
    LeadKind.BOOKING: BookingRequest,
}
FIELD_ERRORS: dict[LeadKind, dict[str, str]] = {
    LeadKind.CONTACT: {"email": HERO_CAPTURE.email.error},
    LeadKind.BOOKING: {
        "name": BOOKING.name.error,
        "email": BOOKING.email.error,
        "phone": BOOKING.phone.error,
        "date": BOOKING.date.error,
        "time": BOOKING.time.error,
        "message": BOOKING.message.error,
    },
}


@dataclass(frozen=True)
class Validation:
    """The cleaned fields of a valid submission, or a Spanish message per wrong field.

    ``refused`` says, in a few words, why a crafted payload was refused whole.
    """

    fields: dict[str, str]
    errors: dict[str, str]
    refused: str = ""

    @property
    def valid(self) -> bool:
        """Whether the submission can be stored and sent."""
        return not self.errors


def screen(form_data: Any) -> str:
    """Why ``form_data`` is not a form's data (a few words), or "" when it is.

    A form's data is a mapping of at most ``MAX_FIELDS`` short text names. The work
    is bounded by ``MAX_FIELDS`` whatever was sent: nothing here reads a value
    (``validate`` then checks each known field's type and length, in constant time,
    before reading its characters; a value of another type is that field's error).
    """
    if not isinstance(form_data, Mapping):
        return f"not a mapping but {type(form_data).__name__}"
    if len(form_data) > MAX_FIELDS:
        return f"{len(form_data)} fields"
    for name in form_data:
        if not isinstance(name, str):
            return f"a field name of type {type(name).__name__}"
        if len(name) > MAX_FIELD_NAME:
            return f"a field name of {len(name)} characters"
    return ""


def validate(
    kind: LeadKind,
    form_data: Any,
    today: dt.date,
    *,
    now: dt.datetime | None = None,
    calendar: WorkingCalendar | None = None,
) -> Validation:
    """Check a submission of the ``kind`` form; ``today`` is the agency's current date.

    ``now`` (aware; default: the clock) and ``calendar`` (default: the ``BOOKING_*``
    settings) decide which days and slots can be booked.
    """
    messages = FIELD_ERRORS[kind]
    if refused := screen(form_data):
        return Validation({}, dict(messages), refused)
    too_long = {
        name: messages[name]
        for name in messages
        if isinstance(value := form_data.get(name), str) and len(value) > _RAW_MAX[name]
    }
    if too_long:
        return Validation({}, too_long)
    data = {name: form_data.get(name) for name in messages if name in form_data}
    context = {"today": today, "now": now, "calendar": calendar}
    try:
        request = _MODELS[kind].model_validate(data, context=context)
    except ValidationError as error:
        errors: dict[str, str] = {}
        for item in error.errors():
            field = str(item["loc"][0]) if item["loc"] else ""
            if field in messages and field not in errors:
                errors[field] = item["msg"] if item["type"] == _SPECIFIC else messages[field]
        return Validation({}, errors or dict(messages))
    return Validation(request.model_dump(mode="json"), {})

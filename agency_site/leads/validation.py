"""Server-side validation of the lead forms, whatever the browser sent.

The websocket accepts crafted events, so nothing here trusts the browser's own
checks: every value is a trimmed string free of control, format and bidi characters,
lone surrogates and noncharacters (``refused_char``), within its bounds, and the date
and time are ones the agency actually offers.

Sizes are checked before any per-character work: a submission that is not a small
mapping of text fields to text (``screen``) is refused whole, and a field longer
than twice its maximum is wrong before it is read. Whatever the shape of the
payload, the answer is a ``Validation``, never an exception.
"""

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Mapping
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
    create_model,
)
from pydantic_core import PydanticCustomError

from agency_site import locale
from agency_site.content.form_words import COPY
from agency_site.forms.declarations import BY_KIND, HONEYPOT_FIELD, FormDeclaration
from agency_site.forms.fields import Control, FormField
from agency_site.forms.kinds import LeadKind
from agency_site.rules import EMAIL_MAX, PHONE_MAX, PHONE_MIN, TIME_SLOTS
from agency_site.working_calendar import (
    Closure,
    WorkingCalendar,
    agency_now,
    default_calendar,
    one_year_after,
)

__all__ = ["HONEYPOT_FIELD", "MAX_FIELDS", "Validation", "screen", "validate"]

# The largest form has 9 named controls; Reflex's form data also carries each control
# again under its id (``quote_name``...), so 18 arrive; room for an extension's extra.
MAX_FIELDS = 32
MAX_FIELD_NAME = 64

_PHONE = re.compile(r"[0-9 +\-()]+")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Errors of this type carry their own message; others get the field's message.
_SPECIFIC = "lead_specific"


def _specific(message: str) -> PydanticCustomError:
    """An error whose message is shown as is."""
    return PydanticCustomError(_SPECIFIC, message)


# Invisible characters a field may keep: the joiners that shape emoji (ZWJ: 👩‍💻) and
# the letters of some scripts (ZWNJ). They only join or part their neighbours.
_JOINERS = "\u200c\u200d"
_LINE_SEPARATORS = "\u2028\u2029"  # Zl, Zp: a line break in a multi-line field.


def refused_char(char: str, *, multiline: bool = False) -> bool:
    """Whether no field may hold ``char``: the one rule of every text field.

    Refused: control characters (but a multi-line field's line breaks and tabs, Cc), lone
    UTF-16 surrogate halves (JSON can carry one; it has no UTF-8, so no e-mail, Cs),
    Unicode noncharacters (U+FDD0..U+FDEF and every U+xFFFE/U+xFFFF), invisible format
    and bidi controls (they hide or reorder text: U+200E, U+202E, U+2066, zero-width
    spaces, tags..., Cf) except ``_JOINERS``, and line and paragraph separators (Zl, Zp)
    in one-line fields. Unassigned code points are accepted: a newer emoji may be one.
    """
    point = ord(char)
    if 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE:
        return True
    category = unicodedata.category(char)
    if category == "Cc":
        return not (multiline and char in "\n\t")
    if category == "Cf":
        return char not in _JOINERS
    return category in ("Cs", "Zl", "Zp")


def _clean(value: Any, *, multiline: bool = False) -> str:
    """The value as a trimmed string, refusing non-strings and ``refused_char``s (a
    multi-line field's line endings become ``\\n``)."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValueError("not a string")
    if multiline:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
        value = value.translate(dict.fromkeys(map(ord, _LINE_SEPARATORS), "\n"))
    if any(refused_char(c, multiline=multiline) for c in value):
        raise _specific(COPY.notices.control_chars)
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


def _date_rule(words: Any, name: str) -> Callable[[Any, ValidationInfo], dt.date]:
    """An ISO date from today (in the agency's time zone) to a year ahead, a working day;
    its messages are the form copy's ``<name>_past``, ``_too_far``, ``_weekend``,
    ``_holiday`` and ``_closed``."""
    closures = {closure: getattr(words, f"{name}_{closure}") for closure in Closure}

    def check(value: Any, info: ValidationInfo) -> dt.date:
        text = _clean(value)
        if not _ISO_DATE.fullmatch(text):
            raise ValueError("not an ISO date")
        day = dt.date.fromisoformat(text)
        today: dt.date = (info.context or {})["today"]
        if day < today:
            raise _specific(getattr(words, f"{name}_past"))
        if day > one_year_after(today):
            raise _specific(getattr(words, f"{name}_too_far"))
        calendar: WorkingCalendar = (info.context or {}).get("calendar") or default_calendar()
        if closure := calendar.closure(day):
            raise _specific(closures[closure])
        return day

    return check


def _slot_rule(words: Any, name: str, day_field: str) -> Callable[[str, ValidationInfo], str]:
    """One of the consultation slots; today's only if they start far enough from now
    (``working_calendar.py``), else the copy's ``<name>_passed``."""

    def check(slot: str, info: ValidationInfo) -> str:
        if slot not in TIME_SLOTS:
            raise ValueError("not a slot")
        day = info.data.get(day_field)
        context = info.context or {}
        now: dt.datetime = context.get("now") or agency_now()
        calendar: WorkingCalendar = context.get("calendar") or default_calendar()
        if day == now.date() and slot not in calendar.open_slots(day, now):
            raise _specific(getattr(words, f"{name}_passed"))
        return slot

    return check


def _choice_rule(field: FormField) -> Callable[[str, ValidationInfo], str]:
    """One of the field's options; of those of its ``depends_on`` field's value if any."""

    def check(value: str, info: ValidationInfo) -> str:
        options = field.choices()
        if field.depends_on:
            if field.depends_on not in info.data:  # That field is wrong: it says so.
                return value
            options = tuple(o for o in options if o.group == info.data[field.depends_on])
        if value not in {option.value for option in options}:
            raise ValueError("not an option")
        return value

    return check


Check = Callable[[Any, ValidationInfo], Any]


def _plain(check: Callable[[Any], Any]) -> Check:
    """A check of the value alone, called with the validation's info too."""

    def with_info(value: Any, info: ValidationInfo) -> Any:
        return check(value)

    return with_info


def _optional(check: Check) -> Check:
    """``check``, except that an empty value is accepted as it is."""

    def skip_empty(value: Any, info: ValidationInfo) -> Any:
        return value if value == "" else check(value, info)

    return skip_empty


def _checks(form: FormDeclaration, field: FormField) -> list[Check]:
    """What the server checks of a field's cleaned value, by its control."""
    low = max(field.min_length, 1 if field.required else 0)
    match field.control:
        case Control.TEXT | Control.TEXTAREA:
            return [_plain(_bounded(low, field.max_length))]
        case Control.EMAIL:
            return [_plain(_email)]
        case Control.PHONE:
            return [_plain(_bounded(PHONE_MIN, field.max_length or PHONE_MAX)), _plain(_phone)]
        case Control.SLOT:
            return [_slot_rule(form.words, field.name, field.day_field)]
        case Control.CHOICE:
            return [_choice_rule(field)]
    raise ValueError(f"no rule for {field.control}")  # pragma: no cover


def _field_type(form: FormDeclaration, field: FormField) -> Any:
    """The pydantic type of a field: cleaned (one line, or several for a TEXTAREA), then
    checked; an optional field may be empty."""
    maybe = _optional if not field.required else lambda check: check
    if field.control is Control.DATE:
        rule = _date_rule(form.words, field.name)
        if field.required:
            return Annotated[dt.date, BeforeValidator(rule)]

        def blank_or_date(value: Any, info: ValidationInfo) -> dt.date | str:
            return "" if _clean(value) == "" else rule(value, info)

        return Annotated[dt.date | str, BeforeValidator(blank_or_date)]
    multiline = field.control is Control.TEXTAREA
    return Annotated[
        str,
        BeforeValidator(lambda value: _clean(value, multiline=multiline)),
        *(AfterValidator(maybe(check)) for check in _checks(form, field)),
    ]


@locale.per_language
def request_model(form: FormDeclaration) -> type[BaseModel]:
    """The pydantic model of a submission of ``form``, built from its declaration, in the
    language in use (its messages are that language's)."""
    fields: dict[str, Any] = {
        field.name: (_field_type(form, field), ...)
        if field.required
        else (_field_type(form, field), "")
        for field in form.fields
    }
    return create_model(  # type: ignore[call-overload]
        f"{form.kind.title()}Request",
        __config__=ConfigDict(frozen=True, extra="ignore"),
        **fields,
    )


@dataclass(frozen=True)
class Validation:
    """The cleaned fields of a valid submission, or a message per wrong field (in the
    language in use: the visitor's).

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
    form = BY_KIND[kind]
    messages = form.errors
    if refused := screen(form_data):
        return Validation({}, dict(messages), refused)
    too_long = {
        name: messages[name]
        for name in messages
        if isinstance(value := form_data.get(name), str) and len(value) > form.field(name).raw_max
    }
    if too_long:
        return Validation({}, too_long)
    data = {name: form_data.get(name) for name in messages if name in form_data}
    context = {"today": today, "now": now, "calendar": calendar}
    try:
        request = request_model(form).model_validate(data, context=context)
    except ValidationError as error:
        errors: dict[str, str] = {}
        for item in error.errors():
            field = str(item["loc"][0]) if item["loc"] else ""
            if field in messages and field not in errors:
                errors[field] = item["msg"] if item["type"] == _SPECIFIC else messages[field]
        return Validation({}, errors or dict(messages))
    return Validation(request.model_dump(mode="json"), {})

"""The kinds of field a lead form has, and a field as a form declares it."""

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum


class Control(StrEnum):
    """What a field is: how it is shown and which rule the server applies to it."""

    TEXT = "text"  # One line, ``min_length`` to ``max_length`` characters.
    EMAIL = "email"  # An address, checked for syntax (no DNS), normalised.
    PHONE = "tel"  # Digits, spaces and + - ( ), with at least PHONE_MIN digits.
    DATE = "date"  # A working day from today to a year ahead (``working_calendar.py``).
    SLOT = "slot"  # One of TIME_SLOTS still open on the form's date field's day.
    TEXTAREA = "textarea"  # Several lines, up to ``max_length`` characters.
    CHOICE = "choice"  # One of ``options`` (a select), or of its ``depends_on`` field's.


@dataclass(frozen=True)
class Option:
    """A choice of a select: what is sent, what is shown, and the value of the field
    it depends on that offers it ("" if any)."""

    value: str
    label: str
    group: str = ""


@dataclass(frozen=True)
class FormField:
    """One field of a form, in the order shown.

    ``copy`` names its words (a ``FieldCopy``: label, placeholder, error) under the form's
    ``fields`` in ``forms.yaml``. ``email`` lists the EmailJS template variables it fills
    (``delivery.template_params``: a CHOICE sends its option's label); ``export`` whether
    it is a column of ``leads export``.
    """

    name: str
    control: Control
    required: bool = True
    min_length: int = 0
    max_length: int = 0
    autocomplete: str = ""
    copy: str = ""  # Default: the field's name.
    email: tuple[str, ...] = ()
    export: bool = True
    # A CHOICE's options, read when needed (the content is loaded by then).
    options: Callable[[], tuple[Option, ...]] | None = field(default=None, compare=False)
    # A CHOICE offering only the options whose ``group`` is this field's value.
    depends_on: str = ""
    # A SLOT's day: the DATE field it belongs to.
    day_field: str = ""
    rows: int = 5  # A TEXTAREA's height.

    @property
    def copy_key(self) -> str:
        """The field's words in the form's copy."""
        return self.copy or self.name

    @property
    def raw_max(self) -> int:
        """Longest raw value read: twice the maximum (trimming and "\\r\\n" come after the
        check), or a short bound for dates, slots and choices."""
        return 2 * self.max_length if self.max_length else 32

    def choices(self) -> tuple[Option, ...]:
        """The options of a CHOICE (none for other fields)."""
        return self.options() if self.options else ()

"""The kinds of field a lead form has, a field as a form declares it, and the HTML facts
each kind carries: its element, its input type, its constraints. What a renderer draws of
a whole field (ids, words, option groups) is ``field_markup.py``'s."""

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from agency_site.rules import TIME_SLOTS


class Control(StrEnum):
    """What a field is: how it is shown and which rule the server applies to it."""

    TEXT = "text"  # One line, ``min_length`` to ``max_length`` characters.
    EMAIL = "email"  # An address, checked for syntax (no DNS), normalised.
    PHONE = "tel"  # Digits, spaces and + - ( ), with at least PHONE_MIN digits.
    DATE = "date"  # A working day from today to a year ahead (``working_calendar.py``).
    SLOT = "slot"  # One of TIME_SLOTS still open on the form's date field's day.
    TEXTAREA = "textarea"  # Several lines, up to ``max_length`` characters.
    CHOICE = "choice"  # One of ``options`` (a select), or of its ``depends_on`` field's.

    @property
    def tag(self) -> str:
        """The HTML element that shows it."""
        if self in (Control.SLOT, Control.CHOICE):
            return "select"
        return "textarea" if self is Control.TEXTAREA else "input"

    @property
    def input_type(self) -> str:
        """The ``type`` of its ``<input>`` ("" when it is no input)."""
        return {
            Control.TEXT: "text",
            Control.EMAIL: "email",
            Control.PHONE: "tel",
            Control.DATE: "date",
        }.get(self, "")

    @property
    def typed(self) -> bool:
        """Whether the visitor types its value (it then needs a ``max_length``)."""
        return self in (Control.TEXT, Control.EMAIL, Control.PHONE, Control.TEXTAREA)


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

    A field the visitor types (``Control.typed``) must declare its ``max_length``: the
    declaration is refused when it is loaded otherwise (without one, the server would
    refuse every value but the empty one).
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

    def __post_init__(self) -> None:
        if self.control.typed and self.max_length <= 0:
            raise ValueError(
                f"The {self.control} field {self.name!r} declares no max_length: every "
                "value but the empty one would be refused. Give it one (rules.py's limits)."
            )
        if self.min_length > self.max_length > 0:
            raise ValueError(f"The field {self.name!r}: min_length exceeds max_length.")
        if (self.control is Control.CHOICE) != (self.options is not None):
            raise ValueError(f"The field {self.name!r}: a CHOICE, and only a CHOICE, has options.")
        if (self.control is Control.SLOT) != bool(self.day_field):
            raise ValueError(f"The field {self.name!r}: a SLOT, and only a SLOT, has a day_field.")

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
        """The options of a select: a CHOICE's, or a SLOT's time slots (none for others)."""
        if self.control is Control.SLOT:
            return tuple(Option(slot, slot) for slot in TIME_SLOTS)
        return self.options() if self.options else ()

    @property
    def constraints(self) -> dict[str, str | int | bool]:
        """Its HTML attributes the browser checks (the server checks them again), by their
        HTML names: ``type``, ``required``, ``minlength``, ``maxlength``, ``autocomplete``,
        ``rows``."""
        attributes: dict[str, str | int | bool] = {}
        if self.control.input_type:
            attributes["type"] = self.control.input_type
        if self.required:
            attributes["required"] = True
        if self.min_length and self.control is not Control.TEXTAREA:
            attributes["minlength"] = self.min_length
        if self.max_length:
            attributes["maxlength"] = self.max_length
        if self.autocomplete:
            attributes["autocomplete"] = self.autocomplete
        if self.control is Control.TEXTAREA:
            attributes["rows"] = self.rows
        return attributes

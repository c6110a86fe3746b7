"""The one rendering contract of a form's field: everything a renderer draws of it, from
its declaration. The Reflex component (``components/form_controls.py``) and the page
without JavaScript (``site_api.py``) both read ``field_markup(form, field)`` and hold
markup only: a constraint, an option or a word changes here, in both at once. So with the
honeypot every form carries (``honeypot_markup``)."""

from dataclasses import dataclass

from agency_site.content.form_words import COPY
from agency_site.forms.declarations import HONEYPOT_ATTRIBUTES, HONEYPOT_FIELD, FormDeclaration
from agency_site.forms.fields import Control, FormField, Option


@dataclass(frozen=True)
class OptionGroup:
    """Options of a select shown together: under the ``label`` of the ``value`` of the field
    they depend on (an ``<optgroup>``), or, with ``value`` "", not grouped."""

    value: str
    label: str
    options: tuple[Option, ...]


@dataclass(frozen=True)
class FieldMarkup:
    """One field as drawn: its element (``tag``), its HTML attributes by their HTML names
    (``attributes``: type, required, minlength, maxlength, autocomplete, rows, placeholder),
    its ids, words and a select's option groups."""

    field: FormField
    tag: str  # input, select or textarea
    attributes: dict[str, str | int | bool]
    id: str
    error_id: str  # The paragraph of its message when wrong.
    hint_id: str  # The paragraph of its hint ("" without one).
    label: str
    optional: str  # Said after the label of an optional field ("" when required).
    placeholder: str  # An input's example, or a select's empty option.
    hint: str  # Under the control: a date's or a slot's words ("" without one).
    groups: tuple[OptionGroup, ...]  # A select's options after the empty one.

    @property
    def name(self) -> str:
        """What it is posted as."""
        return self.field.name

    @property
    def described_by(self) -> str:
        """Its ``aria-describedby``: the hint, then the message."""
        return f"{self.hint_id} {self.error_id}".strip()


def _groups(form: FormDeclaration, field: FormField) -> tuple[OptionGroup, ...]:
    """A select's options; those of a ``depends_on`` field grouped by the value that offers
    them, titled with that value's label."""
    options = field.choices()
    if not field.depends_on:
        return (OptionGroup("", "", options),) if options else ()
    parents = {option.value: option.label for option in form.field(field.depends_on).choices()}
    values = dict.fromkeys(option.group for option in options)
    return tuple(
        OptionGroup(value, parents.get(value, value), tuple(o for o in options if o.group == value))
        for value in values
    )


def field_markup(form: FormDeclaration, field: FormField) -> FieldMarkup:
    """What any renderer draws of ``field`` of ``form``, in the language in use."""
    words = form.field_words(field)
    control_id = form.field_id(field.name)
    hint = getattr(form.words, f"{field.name}_hint", "") if field.control in _HINTED else ""
    attributes = dict(field.constraints)
    # HTML allows no placeholder on a date; a select's is its empty option.
    if words.placeholder and field.control.tag != "select" and field.control is not Control.DATE:
        attributes["placeholder"] = words.placeholder
    return FieldMarkup(
        field=field,
        tag=field.control.tag,
        attributes=attributes,
        id=control_id,
        error_id=f"{control_id}-error",
        hint_id=f"{control_id}-hint" if hint else "",
        label=words.label,
        optional="" if field.required else form.words.optional,
        placeholder=words.placeholder,
        hint=hint,
        groups=_groups(form, field),
    )


# The controls with a hint under them (``<name>_hint`` in the form's words).
_HINTED = (Control.DATE, Control.SLOT)


@dataclass(frozen=True)
class HoneypotMarkup:
    """The honeypot as drawn, on the page and without JavaScript alike: its label and an
    input people never see nor reach, out of autofill's way (``HONEYPOT_FIELD``)."""

    id: str
    label: str
    # The input's HTML attributes by their HTML names, then the password managers' markers.
    attributes: dict[str, str | int]
    markers: dict[str, str]


def honeypot_markup(form: FormDeclaration) -> HoneypotMarkup:
    """The honeypot of ``form``, in the language in use: never reached by Tab, no
    autocomplete, skipped by the password managers (``HONEYPOT_ATTRIBUTES``)."""
    control_id = form.field_id(HONEYPOT_FIELD)
    return HoneypotMarkup(
        id=control_id,
        label=COPY.honeypot_label,
        attributes={
            "id": control_id,
            "name": HONEYPOT_FIELD,
            "type": "text",
            "tabindex": -1,
            "autocomplete": "off",
        },
        markers=dict(HONEYPOT_ATTRIBUTES),
    )

"""A lead form's fields as Reflex components, drawn from the one contract of
``forms/field_markup.py`` (element, constraints, ids, words, option groups): markup only.
The page without JavaScript (``site_api.py``) draws the same contract as plain HTML.

Inputs are uncontrolled (typing sends nothing); the state receives the whole form on
submit and validates it again on the server.
"""

from collections.abc import Mapping

import reflex as rx

from agency_site.components import styles
from agency_site.components.form_hooks import (
    HTTP_FALLBACKS,
    MAX_DATE,
    MIN_DATE,
    slot_filter,
    zone_note_id,
)
from agency_site.forms.field_markup import FieldMarkup, OptionGroup, field_markup
from agency_site.forms.fields import Control, FormField
from agency_site.state.form_states import LeadFormState

INPUT = (
    "block w-full min-w-0 rounded-xl border border-slate-300 bg-white px-4 py-3 text-slate-900 "
    "placeholder:text-slate-500 aria-[invalid=true]:border-red-600 " + styles.FOCUS_RING
)
_LABEL = "block text-sm font-semibold text-slate-800"
_FIELD_ERROR = "mt-1 text-sm font-medium text-red-700 empty:mt-0"
_HINT = "mt-1 text-sm text-slate-600"
# HTML attribute names as Reflex props (Reflex writes ``min_length`` as ``minLength``).
_PROPS = {
    "minlength": "min_length",
    "maxlength": "max_length",
    "autocomplete": "auto_complete",
    "tabindex": "tab_index",
}


def html_props(attributes: Mapping[str, object]) -> dict:
    """HTML attributes (``forms/field_markup.py``) as Reflex props."""
    return {_PROPS.get(name, name): value for name, value in attributes.items()}


def _props(markup: FieldMarkup) -> dict:
    """The field's HTML attributes as Reflex props."""
    return html_props(markup.attributes)


def error(state: type[LeadFormState], name: str) -> rx.Component:
    """The message of a wrong field (either path), announced when it appears."""
    return rx.el.p(
        HTTP_FALLBACKS[state].error(state, name),
        id=f"{state.form.field_id(name)}-error",
        aria_live="polite",
        class_name=_FIELD_ERROR,
    )


def _option_group(group: OptionGroup) -> list[rx.Component]:
    """A group's options: in an ``<optgroup>`` when grouped, each saying its group."""
    if not group.value:
        return [rx.el.option(o.label, value=o.value) for o in group.options]
    options = [
        rx.el.option(o.label, value=o.value, custom_attrs={"data-group": o.group})
        for o in group.options
    ]
    return [rx.el.optgroup(*options, label=group.label)]


def _hint(markup: FieldMarkup) -> rx.Component:
    """The words under a control, tied to it by ``aria-describedby``."""
    return (
        rx.el.p(markup.hint, id=markup.hint_id, class_name=_HINT) if markup.hint else rx.fragment()
    )


def field_control(state: type[LeadFormState], field: FormField, extra: str = "") -> rx.Component:
    """The control of a field (input, select or textarea), with its constraints and hint."""
    form = state.form
    markup = field_markup(form, field)
    described = markup.described_by
    if field.control is Control.SLOT:
        described = f"{markup.hint_id} {zone_note_id(form, field)} {markup.error_id}"
    props = _props(markup) | {
        "id": markup.id,
        "name": markup.name,
        "aria_invalid": rx.cond(
            HTTP_FALLBACKS[state].error(state, field.name) != "", "true", "false"
        ),
        "aria_describedby": described,
        "class_name": INPUT + extra,
    }
    match markup.tag:
        case "textarea":
            control = rx.el.textarea(**props)
        case "select":
            options = [o for group in markup.groups for o in _option_group(group)]
            if field.control is Control.SLOT:
                props["custom_attrs"] = {"data-slot-filter": slot_filter(form, field)}
            control = rx.el.select(rx.el.option(markup.placeholder, value=""), *options, **props)
        case _ if field.control is Control.DATE:
            control = rx.el.input(min=MIN_DATE, max=MAX_DATE, **props)  # Today to a year ahead.
        case _:
            control = rx.el.input(**props)
    if field.control is Control.SLOT:
        # The agency's clock, said under the select; the visitor's own time beside each
        # slot (and a note naming their zone) when it differs, set in the browser.
        zone_note = rx.el.p(id=zone_note_id(form, field), hidden=True, class_name=_HINT)
        return rx.fragment(control, _hint(markup), zone_note)
    return rx.fragment(control, _hint(markup)) if markup.hint else control


def labelled(state: type[LeadFormState], field: FormField) -> rx.Component:
    """A field of a stacked form: label (saying "optional" when it is), control, message."""
    markup = field_markup(state.form, field)
    return rx.el.div(
        rx.el.label(
            markup.label,
            rx.el.span(f" {markup.optional}", class_name="font-normal text-slate-600")
            if markup.optional
            else rx.fragment(),
            html_for=markup.id,
            class_name=_LABEL,
        ),
        rx.el.div(field_control(state, field), class_name="mt-2"),
        error(state, field.name),
    )


def screen_reader_label(state: type[LeadFormState], field: FormField) -> rx.Component:
    """A field's label for screen readers only (a form of one field beside its button)."""
    markup = field_markup(state.form, field)
    return rx.el.label(markup.label, html_for=markup.id, class_name="sr-only")

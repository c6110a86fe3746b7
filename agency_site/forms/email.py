"""A lead as its form declares it, for the agency and the visitor's e-mails: the EmailJS
template variables of a form's fields (``form_params``), a field's value as the agency
reads it (``field_text``) and a lead's summary (``summary_rows``: the booking's pages and
the digest), and the pure formatting they use (a date in words, the name the auto-reply
may show). ``leads.delivery`` sends them; ``python -m agency_site.forms`` lists them."""

import datetime as dt
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from agency_site.content.form_words import COPY
from agency_site.content.template import render
from agency_site.forms import declarations
from agency_site.forms.declarations import NOTICE, FormDeclaration
from agency_site.forms.fields import Control, FormField


def agency_kinds() -> tuple[str, ...]:
    """Every kind of e-mail the agency template receives (one section of it each): each
    declared form's, then the notices' (``NOTICE``: only ``message`` and ``from_email``)."""
    return (*(form.kind for form in declarations.FORMS), NOTICE)


def date_es(iso_date: str) -> str:
    """A date in words of the language in use (Spanish unless a visitor's language is
    active), whatever the machine's locale: "lunes, 14 de diciembre de 2026"."""
    day, words = dt.date.fromisoformat(iso_date), COPY.dates
    return render(
        words.format,
        weekday=words.weekdays[day.weekday()],
        day=day.day,
        month=words.months[day.month - 1],
        year=day.year,
    )


def kind_params(kind: str) -> dict[str, str]:
    """Which kind of e-mail this is, for the sections of a template several kinds share:
    ``kind`` (``booking``) and a flag per kind of ``agency_kinds``, ``is_booking``: "1" for
    this one, "" for the others (false to EmailJS, which renders ``{{#is_booking}}…
    {{/is_booking}}`` only when true)."""
    kinds = agency_kinds()
    if kind not in kinds:
        raise ValueError(f"{kind!r} is no kind of the agency's e-mails.")
    return {"kind": kind} | {f"is_{each}": "1" if each == kind else "" for each in kinds}


def field_text(field: FormField, value: Any) -> str:
    """A stored value as the agency reads it (in the language in use): a choice by its
    option's name, a date in words, the rest as stored."""
    text = "" if value is None else str(value)
    if not text:
        return ""
    if field.control is Control.CHOICE:
        names = {option.value: option.label for option in field.choices()}
        return names.get(text, text)
    if field.control is Control.DATE:
        try:
            return date_es(text)
        except ValueError:
            return text
    return text


def summary_rows(
    form: FormDeclaration, fields: Mapping[str, Any], leave_out: tuple[str, ...] = ()
) -> list[tuple[str, str]]:
    """A lead of ``form`` as a summary lists it, in the language in use: each declared
    field in the form's order, as (its words' ``summary``, ``field_text``); the empty ones
    and those named in ``leave_out`` left out. A field added to the form shows by itself."""
    rows = []
    for field in form.fields:
        text = field_text(field, fields.get(field.name))
        if text and field.name not in leave_out:
            rows.append((form.field_words(field).summary, text))
    return rows


# Longest visitor name an e-mail carries (the auto-reply greets the visitor with it).
SHORT_NAME_MAX = 40
_NOT_NAME = re.compile(r"[^\w .'’-]|_|\d")


def short_name(name: str) -> str:
    """The visitor's name as the auto-reply may show it: letters, spaces and . ' - only,
    at most ``SHORT_NAME_MAX`` characters, cut at a word. Whatever else a submitter typed
    (links, digits, symbols, a sentence) never reaches a stranger's inbox through it."""
    letters = _NOT_NAME.sub(" ", unicodedata.normalize("NFC", name))
    words = " ".join(letters.split())
    if len(words) <= SHORT_NAME_MAX:
        return words
    return words[: SHORT_NAME_MAX + 1].rsplit(" ", 1)[0][:SHORT_NAME_MAX]


# How a variable derived from a field is written (any other: the value as stored).
_DERIVED = {"reply_name": short_name, "date_es": date_es}


def form_params(form: FormDeclaration, fields: dict[str, Any], to_email: str) -> dict[str, str]:
    """The template variables of a lead of ``form``: each field's, in the form's order."""
    params = {"to_email": to_email}
    for field in form.fields:
        value = str(fields.get(field.name, "") or "")
        if field.control is Control.CHOICE:  # Its option's name (a date goes as stored).
            value = field_text(field, value)
        for name in field.email:
            params[name] = _DERIVED[name](value) if name in _DERIVED and value else value
    if form.email_message:
        params["message"] = render(getattr(form.words, form.email_message), **fields)
    if form.autoreply:
        params["reply_to"] = str(fields.get("email", ""))
    return params

"""Crafted websocket events are refused before Reflex handles them, in one short log line.

Reflex 0.10.1 takes any JSON the socket delivers: a non-dict event or payload ends
in a traceback with the whole event in it, and a lead form's data may carry any
number of keys of any type (its ``__reflex_form_data__`` entries), which Reflex
turns into a dict before the handler runs. ``install`` wraps the app's event
namespace so that every event first passes a shape check that costs a few
dozen operations whatever was sent (the socket's message cap, 32 KB by default,
bounds the rest); for the lead forms' ``submit`` the form data must be what a
browser's form sends: at most ``MAX_FIELDS`` text names with text values.
"""

import logging
from collections.abc import Collection
from typing import Any

from agency_site.leads.intake import loggable
from agency_site.leads.validation import MAX_FIELD_NAME, MAX_FIELDS
from agency_site.reflex_ext.event_namespace import screen_events
from agency_site.reflex_ext.internals import FORM_DATA_ENTRIES_KEY, format_event_handler

logger = logging.getLogger(__name__)

_NAME_MAX = 256


def _form_problem(form: Any) -> str:
    """Why ``form`` is not a browser form's data, or ""."""
    if not isinstance(form, dict):
        return f"form data of type {type(form).__name__}"
    if FORM_DATA_ENTRIES_KEY in form:
        if len(form) != 1:
            return "form data with entries and other keys"
        entries = form[FORM_DATA_ENTRIES_KEY]
        if not isinstance(entries, list):
            return f"form entries of type {type(entries).__name__}"
        if len(entries) > MAX_FIELDS:
            return f"{len(entries)} form entries"
        for entry in entries:
            if not (isinstance(entry, list) and len(entry) == 2):
                return "a form entry that is not a [name, value] pair"
            problem = _field_problem(*entry)
            if problem:
                return problem
        return ""
    if len(form) > MAX_FIELDS:
        return f"{len(form)} form fields"
    for name, value in form.items():
        if problem := _field_problem(name, value):
            return problem
    return ""


def _field_problem(name: Any, value: Any) -> str:
    if not isinstance(name, str) or len(name) > MAX_FIELD_NAME:
        return f"a field name of type {type(name).__name__}" + (
            f" and {len(name)} characters" if isinstance(name, str) else ""
        )
    if not isinstance(value, str):
        return f"a field value of type {type(value).__name__}"
    return ""


def event_problem(data: Any, form_handlers: Collection[str]) -> str:
    """Why a websocket event is refused (a few words), or "" when Reflex may handle it."""
    if not isinstance(data, dict):
        return f"an event of type {type(data).__name__}"
    name = data.get("name")
    if not isinstance(name, str) or len(name) > _NAME_MAX:
        return "an event without a proper name"
    for key in ("payload", "router_data"):
        if key in data and not isinstance(data[key], dict):
            return f"a {key} of type {type(data[key]).__name__}"
    if name not in form_handlers:
        return ""
    payload = data.get("payload", {})
    if set(payload) != {"form_data"}:
        return f"a form payload with {len(payload)} arguments"
    if problem := _form_problem(payload["form_data"]):
        return f"{problem} for {name.rsplit('.', 2)[-2]}"
    return ""


def install(app: Any, form_handlers: Collection[Any]) -> None:
    """Check every event of ``app``'s websocket before Reflex handles it."""
    names = frozenset(format_event_handler(handler) for handler in form_handlers)

    def refused(sid: str, problem: str) -> None:
        logger.warning(
            "Refused a crafted websocket event (session %s): %s.", loggable(sid), problem
        )

    screen_events(app, lambda data: event_problem(data, names), refused)

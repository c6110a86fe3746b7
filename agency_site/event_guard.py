"""Crafted websocket events are refused before Reflex handles them, in one short log line.

Reflex 0.10.1 takes any JSON the socket delivers: a non-dict event or payload ends
in a traceback with the whole event in it, and a lead form's data may carry any
number of keys of any type (its ``__reflex_form_data__`` entries), which Reflex
turns into a dict before the handler runs. ``install`` wraps the app's event
namespace so that every event first passes a shape check that costs a few
dozen operations whatever was sent (the socket's message cap, 32 KB by default,
bounds the rest); for the lead forms' ``submit`` the form data must be what a
browser's form sends: at most ``MAX_FIELDS`` text names with text values.

The browser's error reports reach Reflex two ways once a form has opened the socket: the
``handle_frontend_exception`` event (``info``, ``component_stack``: any text, up to the
message cap) and Reflex's own ``client_error`` socket event. Both end in the app's
``frontend_exception_handler``, whose default logs the whole text at ERROR, newlines and
all. ``install`` checks the event's shape (two texts of ``FRONTEND_REPORT_MAX`` characters
in all at most) and puts ``frontend_exception`` in that handler's place: one WARNING line
of at most ``client_errors.LOGGED_CHARS`` characters, control characters escaped (as the
reports of ``/_site/client-errors``), and at most ``REPORTS_PER_MINUTE`` a minute per
worker (then one line says the rest are dropped).
"""

import logging
import time
from collections.abc import Callable, Collection
from typing import Any

from agency_site.client_errors import LOGGED_CHARS, one_line
from agency_site.leads.problems import loggable
from agency_site.leads.validation import MAX_FIELD_NAME, MAX_FIELDS
from agency_site.reflex_ext.event_namespace import screen_events
from agency_site.reflex_ext.internals import (
    FORM_DATA_ENTRIES_KEY,
    FrontendEventExceptionState,
    format_event_handler,
)

logger = logging.getLogger(__name__)

_NAME_MAX = 256
# The browser's error report over the socket: its two texts, this long in all at most
# (a real one is an error's message and stack, a few KB).
FRONTEND_EXCEPTION = format_event_handler(
    FrontendEventExceptionState.handle_frontend_exception  # type: ignore[arg-type]
)
FRONTEND_REPORT_KEYS = frozenset({"info", "component_stack"})
FRONTEND_REPORT_MAX = 16_000
# Error reports logged per worker and minute at most.
REPORTS_PER_MINUTE = 20


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


def _report_problem(payload: dict) -> str:
    """Why a browser's error report is not one (its ``info`` and ``component_stack``), or ""."""
    if not set(payload) <= FRONTEND_REPORT_KEYS or "info" not in payload:
        return f"an error report with {len(payload)} arguments"
    if not all(isinstance(value, str) for value in payload.values()):
        return "an error report that is not text"
    if (size := sum(len(value) for value in payload.values())) > FRONTEND_REPORT_MAX:
        return f"an error report of {size} characters"
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
    if name == FRONTEND_EXCEPTION:
        return _report_problem(data.get("payload", {}))
    if name not in form_handlers:
        return ""
    payload = data.get("payload", {})
    if set(payload) != {"form_data"}:
        return f"a form payload with {len(payload)} arguments"
    if problem := _form_problem(payload["form_data"]):
        return f"{problem} for {name.rsplit('.', 2)[-2]}"
    return ""


def report_logger(
    per_minute: int = REPORTS_PER_MINUTE, clock: Callable[[], float] = time.monotonic
) -> Callable[[Exception], None]:
    """A ``frontend_exception_handler`` logging each browser error report as one bounded
    WARNING line, ``per_minute`` a minute at most."""
    window = {"start": clock(), "count": 0}

    def frontend_exception(exception: Exception) -> None:
        """A browser's error report (Reflex's ``frontend_exception_handler``)."""
        now = clock()
        if now - window["start"] >= 60:
            window["start"], window["count"] = now, 0
        window["count"] += 1
        if window["count"] > per_minute:
            if window["count"] == per_minute + 1:
                logger.warning(
                    "More than %s browser error reports this minute: the rest are dropped.",
                    per_minute,
                )
            return
        logger.warning("Browser error (socket): %s", one_line(exception, LOGGED_CHARS))

    return frontend_exception


def install(app: Any, form_handlers: Collection[Any]) -> None:
    """Check every event of ``app``'s websocket before Reflex handles it; log the browser's
    error reports in bounded lines (``report_logger``)."""
    names = frozenset(format_event_handler(handler) for handler in form_handlers)

    def refused(sid: str, problem: str) -> None:
        logger.warning(
            "Refused a crafted websocket event (session %s): %s.", loggable(sid), problem
        )

    screen_events(app, lambda data: event_problem(data, names), refused)
    app.frontend_exception_handler = report_logger()

"""The lead forms' browser code: React hooks filled in from a form's declaration
(``agency_site/reflex_ext/js``), each placed on the form through a ``hook_var``.

- the booking date's bounds (today to a year ahead, in the agency's time zone);
- the booking slot's filter (``slot_filter``: open slots only, the visitor's time);
- the selects chosen from the page's query (``/contact?service=...&pack=...``);
- the HTTP fallback (``HttpFallback``): a submission goes over ``fetch`` to
  ``/_site/forms/<kind>`` while the websocket is down, and its answer is shown in place;
  the same hook fetches the form's time-trap token at the first focus in the form.
"""

import datetime as dt

import reflex as rx

from agency_site import locale, paths
from agency_site.forms.declarations import (
    CHALLENGE_FIELD,
    FORM_TOKEN_FIELD,
    IDEMPOTENCY_FIELD,
    FormDeclaration,
)
from agency_site.forms.fields import Control, FormField
from agency_site.forms.widget_markup import WIDGET_NAME
from agency_site.reflex_ext.backend_origin import backend_base
from agency_site.reflex_ext.client_state import ClientStateVar, hook_var, refs_keys
from agency_site.reflex_ext.internals import has_connection_errors
from agency_site.reflex_ext.js import load_js
from agency_site.rules import AGENCY_TIME_ZONE, SUCCESS_MESSAGE_MS, TIME_SLOTS
from agency_site.settings import get_settings
from agency_site.state.form_states import FORM_STATES, LeadFormState
from agency_site.working_calendar import Closure, agency_now, default_calendar, one_year_after

# Today and a year from today in the agency's time zone, computed in the visitor's
# browser after hydration: a value prerendered at build time would go stale.
_DATE_BOUNDS_HOOK = load_js("booking_date_bounds.js", TIME_ZONE=AGENCY_TIME_ZONE)
_DATE_BOUNDS_IMPORTS = {"react": ["useState", "useEffect"]}
MIN_DATE = hook_var("bookingDates.min", [_DATE_BOUNDS_HOOK], _DATE_BOUNDS_IMPORTS).to(str)
MAX_DATE = hook_var("bookingDates.max", [_DATE_BOUNDS_HOOK], _DATE_BOUNDS_IMPORTS).to(str)


def zone_note_id(form: FormDeclaration, field: FormField) -> str:
    """The DOM id of the note naming the visitor's time zone under a SLOT select."""
    return form.field_id(f"{field.name}-zone")


@locale.per_language
def slot_filter(form: FormDeclaration, field: FormField) -> rx.Var:
    """Browser-side copy of ``working_calendar.py``: a SLOT select offers only open slots.

    No websocket traffic: on every change of its day's date field (and when the select is
    opened, as time passes) the options of closed days and of today's slots that start
    too soon are hidden and disabled; a closed day also gets its message as the
    date's custom validity. The server still judges every booking.
    """
    calendar = default_calendar()
    today = agency_now().date()
    # Built into the page: from a little before the build to well after a year from it.
    start, end = today - dt.timedelta(days=31), one_year_after(one_year_after(today))
    closed = {
        day.isoformat(): str(calendar.closure(day)) for day in calendar.non_working_days(start, end)
    }
    words = form.words
    hook = load_js(
        "booking_slot_filter.js",
        CLOSED=closed,
        MESSAGES={
            str(closure): getattr(words, f"{field.day_field}_{closure}") for closure in Closure
        },
        SLOTS=list(TIME_SLOTS),
        NOTICE_MS=int(calendar.min_notice.total_seconds() * 1000),
        WEEKEND=str(Closure.WEEKEND),
        TIME_ZONE=AGENCY_TIME_ZONE,
        DATE_ID=form.field_id(field.day_field),
        TIME_ID=form.field_id(field.name),
        FORM_ID=form.form_id,
        FREE_SLOTS_URL=backend_base() + paths.FREE_SLOTS,
        LOCAL_LABEL=words.time_local,
        ZONE_NOTE=words.time_zone_note,
        ZONE_NOTE_ID=zone_note_id(form, field),
        LANG=locale.HTML_LANG[locale.current()],
    )
    return hook_var('"on"', [hook], {"react": ["useEffect"]}).to(str)


def preselect(form: FormDeclaration) -> rx.Var:
    """Its selects chosen from the page's query (``/contact?service=branding&pack=esencial``):
    an unknown value, or an option of another group than its field's ``depends_on``, is
    left unchosen (``js/form_preselect.js``)."""
    hook = load_js(
        "form_preselect.js",
        FORM_ID=form.form_id,
        DEPENDS={f.name: f.depends_on for f in form.fields if f.control is Control.CHOICE},
    )
    return hook_var('"on"', [hook], {"react": ["useEffect"]}).to(str)


# How long a submit waits for the websocket to connect before it goes over HTTP.
_CONNECT_MS = 3_000
# How long a submit waits for the form's token still being fetched (the time trap).
_TOKEN_WAIT_MS = 2_000


class HttpFallback:
    """A form's answer when it went over HTTP (``js/form_http_fallback.js``): result,
    errors, and the challenge to solve (``leads/spam/challenge.py``) when it is one."""

    def __init__(self, state: type[LeadFormState]) -> None:
        form = state.form
        self.result = ClientStateVar.create(f"{form.prefix}_http_result", "")
        self.errors = ClientStateVar.create(f"{form.prefix}_http_errors", {})
        self.challenge = ClientStateVar.create(f"{form.prefix}_http_challenge", "")
        self.hook = hook_var(
            '"on"',
            [
                load_js(
                    "form_http_fallback.js",
                    FORM_ID=form.form_id,
                    KEY_FIELD=IDEMPOTENCY_FIELD,
                    TOKEN_FIELD=FORM_TOKEN_FIELD,
                    TOKEN_URL=f"{backend_base()}{paths.FORM_TOKEN}?{paths.FORM_TOKEN_FORM}={form.kind}",
                    TOKEN_WAIT_MS=_TOKEN_WAIT_MS,
                    SET_RESULT=refs_keys(self.result)[1],
                    SET_ERRORS=refs_keys(self.errors)[1],
                    SET_CHALLENGE=refs_keys(self.challenge)[1],
                    CHALLENGE_FIELD=CHALLENGE_FIELD,
                    WIDGET_NAME=WIDGET_NAME,
                    SUCCESS_MS=SUCCESS_MESSAGE_MS,
                    CONNECT_MS=_CONNECT_MS,
                    WATCH_MS=int(get_settings().leads.submit_deadline_seconds * 1000) + 15_000,
                )
            ],
            {"react": ["useEffect"], "$/utils/state": ["socketConnected"]},
            refs=True,
        ).to(str)

    def shown_result(self, state: type[LeadFormState]) -> rx.Var:
        """The result to show: the websocket's, else the HTTP path's."""
        return rx.cond(state.result != "", state.result, self.result.value.to(str))

    def shown_challenge(self, state: type[LeadFormState]) -> rx.Var:
        """The challenge to solve: the websocket's, else the HTTP path's (JSON text)."""
        return rx.cond(state.challenge != "", state.challenge, self.challenge.value.to(str))

    def error(self, state: type[LeadFormState], name: str) -> rx.Var:
        """A field's message: the websocket's, else the HTTP path's."""
        http_errors = self.errors.value.to(dict[str, str])
        return rx.cond(
            state.errors.contains(name),
            state.errors[name],
            rx.cond(http_errors.contains(name), http_errors[name], ""),
        )

    def form_props(self) -> dict:
        """The form's attributes the browser code reads: offline flag, the hook."""
        return {
            "custom_attrs": {
                "data-offline": rx.cond(has_connection_errors, "true", "false"),
                "data-http-fallback": self.hook,
            }
        }


# Each form's, made once: its client-state variables must be created once per name.
HTTP_FALLBACKS = {state: HttpFallback(state) for state in FORM_STATES.values()}

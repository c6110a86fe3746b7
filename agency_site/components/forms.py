"""The two lead forms: the Home e-mail capture and the consultation booking.

Pages place them with ``hero_capture_form()`` and ``booking_form()``. Inputs are
uncontrolled (typing sends nothing); the state in ``agency_site/state/forms.py``
receives the whole form on submit and validates it again on the server.

Each form is also a plain HTML form (``method="post"``, ``action`` = the backend's
``/_site/forms/<kind>``, see ``agency_site/site_api.py``): submitted before the
page's JavaScript runs, or without JavaScript, it still reaches the same intake.
Once hydrated, Reflex's ``onSubmit`` prevents that POST and uses the websocket; while
the websocket is down, or when it drops before the answer, the same submission goes to
that endpoint with ``fetch`` instead (``js/form_http_fallback.js``) and its answer is
shown in place. A hidden field carries one key per submission, so a submission tried
over both paths is stored and sent once. The form is never paused nor disabled for want
of a websocket.
"""

import datetime as dt

import reflex as rx

from agency_site import paths
from agency_site.components import styles
from agency_site.content.forms import (
    AGENCY_TIME_ZONE,
    ALTERNATIVES,
    BOOKING,
    BOOKING_PRIVACY,
    EMAIL_MAX,
    HERO_CAPTURE,
    HERO_PRIVACY,
    HONEYPOT_LABEL,
    MESSAGE_MAX,
    NAME_MAX,
    NAME_MIN,
    NOTICES,
    PHONE_MAX,
    SUCCESS_MESSAGE_MS,
    TIME_SLOTS,
    Field,
    PrivacyNotice,
)
from agency_site.leads.calendar import Closure, agency_now, default_calendar
from agency_site.leads.intake import IDEMPOTENCY_FIELD, Result
from agency_site.leads.kinds import LeadKind
from agency_site.leads.validation import HONEYPOT_FIELD, one_year_after
from agency_site.reflex_ext.client_state import ClientStateVar, hook_var, refs_keys
from agency_site.reflex_ext.internals import ImportVar, VarData, get_config, has_connection_errors
from agency_site.reflex_ext.js import load_js
from agency_site.settings import get_settings
from agency_site.state.forms import (
    BOOKING_FORM_ID,
    BOOKING_PREFIX,
    HERO_FORM_ID,
    HERO_PREFIX,
    BookingState,
    HeroCaptureState,
    LeadFormState,
    field_id,
)

_INPUT = (
    "block w-full min-w-0 rounded-xl border border-slate-300 bg-white px-4 py-3 text-slate-900 "
    "placeholder:text-slate-500 aria-[invalid=true]:border-red-600 " + styles.FOCUS_RING
)
_LABEL = "block text-sm font-semibold text-slate-800"
_FIELD_ERROR = "mt-1 text-sm font-medium text-red-700 empty:mt-0"
_BUTTON = styles.BUTTON_PRIMARY + " disabled:cursor-not-allowed disabled:opacity-60"
_BOX = "rounded-xl border px-4 py-3 text-sm leading-6"
_SUCCESS_BOX = _BOX + " border-emerald-200 bg-emerald-50 text-emerald-900"
_NOTICE_BOX = _BOX + " border-amber-200 bg-amber-50 text-amber-950"
_ALTERNATIVE = (
    "font-semibold underline underline-offset-2 hover:text-indigo-800 " + styles.FOCUS_RING
)
_PRIVACY = "text-xs leading-5 text-slate-600"
# Off-screen for people, in the DOM for bots that fill every field.
_HONEYPOT = "absolute -left-[10000px] top-auto h-px w-px overflow-hidden"

# Today and a year from today in the agency's time zone, computed in the visitor's
# browser after hydration: a value prerendered at build time would go stale.
_DATE_BOUNDS_HOOK = load_js("booking_date_bounds.js", TIME_ZONE=AGENCY_TIME_ZONE)
_DATE_BOUNDS_DATA = VarData(
    hooks={_DATE_BOUNDS_HOOK: None},
    imports={"react": [ImportVar(tag="useState"), ImportVar(tag="useEffect")]},
)
_MIN_DATE = rx.Var("bookingDates.min", _var_data=_DATE_BOUNDS_DATA).to(str)
_MAX_DATE = rx.Var("bookingDates.max", _var_data=_DATE_BOUNDS_DATA).to(str)


def _slot_filter_hook() -> str:
    """Browser-side copy of ``leads/calendar.py``: the time select offers only open slots.

    No websocket traffic: on every change of the date (and when the select is
    opened, as time passes) the options of closed days and of today's slots that
    start too soon are hidden and disabled; a closed day also gets its Spanish
    message as the date's custom validity. The server still judges every booking.
    """
    calendar = default_calendar()
    today = agency_now().date()
    # Built into the page: from a little before the build to well after a year from it.
    start, end = today - dt.timedelta(days=31), one_year_after(one_year_after(today))
    closed = {
        day.isoformat(): str(calendar.closure(day)) for day in calendar.non_working_days(start, end)
    }
    return load_js(
        "booking_slot_filter.js",
        CLOSED=closed,
        MESSAGES={str(closure): text for closure, text in _CLOSURE_COPY.items()},
        SLOTS=list(TIME_SLOTS),
        NOTICE_MS=int(calendar.min_notice.total_seconds() * 1000),
        WEEKEND=str(Closure.WEEKEND),
        TIME_ZONE=AGENCY_TIME_ZONE,
        DATE_ID=field_id(BOOKING_PREFIX, "date"),
        TIME_ID=field_id(BOOKING_PREFIX, "time"),
        FORM_ID=BOOKING_FORM_ID,
    )


_CLOSURE_COPY = {
    Closure.WEEKEND: BOOKING.date_weekend,
    Closure.HOLIDAY: BOOKING.date_holiday,
    Closure.CLOSED: BOOKING.date_closed,
}


_SLOT_FILTER = rx.Var(
    '"on"',
    _var_data=VarData(
        hooks={_slot_filter_hook(): None}, imports={"react": [ImportVar(tag="useEffect")]}
    ),
).to(str)


def _post_target(kind: LeadKind) -> dict:
    """Props that make a form a plain HTML form posting to the backend (no JavaScript needed).

    The backend URL is the one Reflex bakes into the build for its websocket.
    """
    return {"method": "post", "action": get_config().api_url.rstrip("/") + paths.form_post(kind)}


# How long a submit waits for the websocket to connect before it goes over HTTP.
_CONNECT_MS = 3_000


class HttpFallback:
    """A form's answer when it went over HTTP (``js/form_http_fallback.js``): result, errors."""

    def __init__(self, state: type[LeadFormState]) -> None:
        self.result = ClientStateVar.create(f"{state.field_prefix}_http_result", "")
        self.errors = ClientStateVar.create(f"{state.field_prefix}_http_errors", {})
        self.hook = hook_var(
            '"on"',
            [
                load_js(
                    "form_http_fallback.js",
                    FORM_ID=state.form_id,
                    KEY_FIELD=IDEMPOTENCY_FIELD,
                    SET_RESULT=refs_keys(self.result)[1],
                    SET_ERRORS=refs_keys(self.errors)[1],
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


_FALLBACKS = {state: HttpFallback(state) for state in (HeroCaptureState, BookingState)}


def _key_field(prefix: str) -> rx.Component:
    """The submission's key, set by the browser code at each new submission."""
    return rx.el.input(
        type="hidden", name=IDEMPOTENCY_FIELD, id=field_id(prefix, IDEMPOTENCY_FIELD)
    )


def _alternatives() -> rx.Component:
    """The agency's e-mail, phone and WhatsApp as links."""
    return rx.el.ul(
        *[
            rx.el.li(rx.el.a(link.label, href=link.href, class_name=_ALTERNATIVE))
            for link in (ALTERNATIVES.email, ALTERNATIVES.phone, ALTERNATIVES.whatsapp)
        ],
        class_name="mt-2 flex flex-wrap gap-x-5 gap-y-1",
    )


def _notice(text: str, **props) -> rx.Component:
    """A calm note followed by the agency's direct channels."""
    return rx.el.div(rx.el.p(text), _alternatives(), class_name=_NOTICE_BOX, **props)


def _status(state: type[LeadFormState], success: str) -> rx.Component:
    """Live region announcing the outcome of the last submission (either path)."""
    return rx.el.div(
        rx.match(
            _FALLBACKS[state].shown_result(state),
            (Result.SENT.value, rx.el.p(success, class_name=_SUCCESS_BOX)),
            (Result.QUEUED.value, _notice(NOTICES.queued)),
            (Result.RATE_LIMITED.value, _notice(NOTICES.rate_limited)),
            (Result.STORE_FAILED.value, _notice(NOTICES.store_failed)),
            rx.fragment(),
        ),
        role="status",
        aria_live="polite",
    )


def _honeypot(prefix: str) -> rx.Component:
    """A field people never see or reach; whoever fills it is a bot."""
    control_id = field_id(prefix, HONEYPOT_FIELD)
    return rx.el.div(
        rx.el.label(HONEYPOT_LABEL, html_for=control_id),
        rx.el.input(
            id=control_id,
            name=HONEYPOT_FIELD,
            type="text",
            tab_index=-1,
            auto_complete="off",
        ),
        aria_hidden="true",
        class_name=_HONEYPOT,
    )


def _submit(state: type[LeadFormState], label: str) -> rx.Component:
    """Submit button: disabled and saying so while busy (never for want of a websocket).

    ``busy`` is ``sending`` up to its deadline: a flag a killed worker left behind frees the
    button at the next event (a reconnect's hydrate), see ``state/forms.py``.
    """
    return rx.el.button(
        rx.cond(state.busy, NOTICES.sending, label),
        type="submit",
        disabled=state.busy,
        class_name=_BUTTON,
    )


def _privacy(notice: PrivacyNotice) -> rx.Component:
    """First-layer data-protection notice with a link to the privacy policy."""
    return rx.el.div(
        rx.el.p(notice.heading, class_name="font-semibold"),
        rx.el.p(
            *[rx.fragment(rx.el.strong(f"{title}: "), f"{text} ") for title, text in notice.items],
            rx.el.a(notice.more.label, href=notice.more.href, class_name="underline"),
            ".",
        ),
        class_name=_PRIVACY + " space-y-1",
    )


def _control(state: type[LeadFormState], prefix: str, name: str) -> dict:
    """Props tying a control to its name, its error message and its invalid state."""
    control_id = field_id(prefix, name)
    return {
        "id": control_id,
        "name": name,
        "aria_invalid": rx.cond(_FALLBACKS[state].error(state, name) != "", "true", "false"),
        "aria_describedby": f"{control_id}-error",
    }


def _error(state: type[LeadFormState], prefix: str, name: str) -> rx.Component:
    """The Spanish message of a wrong field, announced when it appears."""
    return rx.el.p(
        _FALLBACKS[state].error(state, name),
        id=f"{field_id(prefix, name)}-error",
        aria_live="polite",
        class_name=_FIELD_ERROR,
    )


def hero_capture_form() -> rx.Component:
    """E-mail capture of the Home hero (type=email, required)."""
    state, prefix = HeroCaptureState, HERO_PREFIX
    return rx.el.form(
        rx.el.div(
            rx.el.label(
                HERO_CAPTURE.email.label, html_for=field_id(prefix, "email"), class_name="sr-only"
            ),
            rx.el.input(
                type="email",
                required=True,
                max_length=EMAIL_MAX,
                auto_complete="email",
                placeholder=HERO_CAPTURE.email.placeholder,
                class_name=_INPUT + " rounded-full sm:flex-1",
                **_control(state, prefix, "email"),
            ),
            _submit(state, HERO_CAPTURE.submit),
            class_name="flex flex-col gap-3 sm:flex-row",
        ),
        _error(state, prefix, "email"),
        _honeypot(prefix),
        _key_field(prefix),
        _status(state, HERO_CAPTURE.success),
        _privacy(HERO_PRIVACY),
        id=HERO_FORM_ID,
        on_submit=state.submit,
        **_post_target(LeadKind.CONTACT),
        **_FALLBACKS[state].form_props(),
        aria_busy=state.busy,
        class_name="relative mt-8 flex max-w-2xl flex-col gap-3",
    )


def _labelled(
    state: type[LeadFormState], name: str, copy: Field, control: rx.Component, optional=False
) -> rx.Component:
    """A booking field: label, control and its error message."""
    return rx.el.div(
        rx.el.label(
            copy.label,
            rx.el.span(f" {BOOKING.optional}", class_name="font-normal text-slate-600")
            if optional
            else rx.fragment(),
            html_for=field_id(BOOKING_PREFIX, name),
            class_name=_LABEL,
        ),
        rx.el.div(control, class_name="mt-2"),
        _error(state, BOOKING_PREFIX, name),
    )


def _booking_input(name: str, copy: Field, **props) -> rx.Component:
    """A required single-line input of the booking form."""
    return _labelled(
        BookingState,
        name,
        copy,
        rx.el.input(
            required=True,
            placeholder=copy.placeholder,
            class_name=_INPUT,
            **_control(BookingState, BOOKING_PREFIX, name),
            **props,
        ),
    )


def _booking_date() -> rx.Component:
    """The date: today to a year ahead, with the working days said under it.

    No ``placeholder``: HTML does not allow it on ``type=date``; the hint is visible
    text tied to the input by ``aria-describedby``.
    """
    control = _control(BookingState, BOOKING_PREFIX, "date")
    hint_id = f"{control['id']}-hint"
    return _labelled(
        BookingState,
        "date",
        BOOKING.date,
        rx.fragment(
            rx.el.input(
                type="date",
                required=True,
                min=_MIN_DATE,
                max=_MAX_DATE,
                class_name=_INPUT,
                **{**control, "aria_describedby": f"{hint_id} {control['aria_describedby']}"},
            ),
            rx.el.p(BOOKING.date_hint, id=hint_id, class_name="mt-1 text-sm text-slate-600"),
        ),
    )


def booking_form() -> rx.Component:
    """Consultation booking form of /schedule."""
    state, prefix = BookingState, BOOKING_PREFIX
    return rx.el.form(
        rx.el.p(BOOKING.required_hint, class_name="text-sm text-slate-600"),
        rx.el.div(
            _booking_input(
                "name",
                BOOKING.name,
                type="text",
                min_length=NAME_MIN,
                max_length=NAME_MAX,
                auto_complete="name",
            ),
            _booking_input(
                "email", BOOKING.email, type="email", max_length=EMAIL_MAX, auto_complete="email"
            ),
            _booking_input(
                "phone", BOOKING.phone, type="tel", max_length=PHONE_MAX, auto_complete="tel"
            ),
            _booking_date(),
            _labelled(
                state,
                "time",
                BOOKING.time,
                rx.el.select(
                    rx.el.option(BOOKING.time_placeholder, value=""),
                    *[rx.el.option(slot, value=slot) for slot in TIME_SLOTS],
                    required=True,
                    class_name=_INPUT,
                    custom_attrs={"data-slot-filter": _SLOT_FILTER},
                    **_control(state, prefix, "time"),
                ),
            ),
            class_name="grid gap-6 sm:grid-cols-2",
        ),
        _labelled(
            state,
            "message",
            BOOKING.message,
            rx.el.textarea(
                rows=5,
                max_length=MESSAGE_MAX,
                placeholder=BOOKING.message.placeholder,
                class_name=_INPUT,
                **_control(state, prefix, "message"),
            ),
            optional=True,
        ),
        _honeypot(prefix),
        _key_field(prefix),
        _status(state, BOOKING.success),
        rx.el.div(_submit(state, BOOKING.submit)),
        _privacy(BOOKING_PRIVACY),
        id=BOOKING_FORM_ID,
        on_submit=state.submit,
        **_post_target(LeadKind.BOOKING),
        **_FALLBACKS[state].form_props(),
        aria_busy=state.busy,
        class_name="relative mx-auto max-w-3xl space-y-6 rounded-3xl border border-slate-200 "
        "bg-white p-6 shadow-sm sm:p-10",
    )

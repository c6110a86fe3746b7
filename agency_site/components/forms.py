"""The lead forms, each rendered from its declaration (``agency_site/forms/``): the Home
e-mail capture, the consultation booking and the quote request.

Pages place them with ``hero_capture_form()``, ``booking_form()`` and ``quote_form()``;
``lead_form(state)`` renders any declared form, field by field, from its field types.
Inputs are uncontrolled (typing sends nothing); the state in ``agency_site/state/forms.py``
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

from agency_site import locale, paths
from agency_site.components import styles
from agency_site.content.forms import COPY, PrivacyNotice
from agency_site.forms.declarations import (
    HONEYPOT_FIELD,
    IDEMPOTENCY_FIELD,
    LANGUAGE_FIELD,
    FormDeclaration,
)
from agency_site.forms.fields import Control, FormField
from agency_site.forms.outcome import Result
from agency_site.leads import source as lead_source
from agency_site.leads.validation import one_year_after
from agency_site.locale import localized_path
from agency_site.reflex_ext.client_state import ClientStateVar, hook_var, refs_keys
from agency_site.reflex_ext.internals import ImportVar, VarData, get_config, has_connection_errors
from agency_site.reflex_ext.js import load_js
from agency_site.rules import AGENCY_TIME_ZONE, SUCCESS_MESSAGE_MS, TIME_SLOTS
from agency_site.settings import get_settings
from agency_site.state.forms import (
    FORM_STATES,
    BookingState,
    HeroCaptureState,
    LeadFormState,
    QuoteState,
)
from agency_site.working_calendar import Closure, agency_now, default_calendar

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


@locale.per_language
def _slot_filter(form: FormDeclaration, field: FormField) -> rx.Var:
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
        FREE_SLOTS_URL=get_config().api_url.rstrip("/") + paths.FREE_SLOTS,
        LOCAL_LABEL=words.time_local,
        ZONE_NOTE=words.time_zone_note,
        ZONE_NOTE_ID=_zone_note_id(form, field),
        LANG=locale.HTML_LANG[locale.current()],
    )
    return rx.Var(
        '"on"',
        _var_data=VarData(hooks={hook: None}, imports={"react": [ImportVar(tag="useEffect")]}),
    ).to(str)


def _zone_note_id(form: FormDeclaration, field: FormField) -> str:
    """The DOM id of the note naming the visitor's time zone under a SLOT select."""
    return form.field_id(f"{field.name}-zone")


def _preselect(form: FormDeclaration) -> rx.Var:
    """Its selects chosen from the page's query (``/contact?service=branding&pack=esencial``):
    an unknown value, or an option of another group than its field's ``depends_on``, is
    left unchosen (``js/form_preselect.js``)."""
    hook = load_js(
        "form_preselect.js",
        FORM_ID=form.form_id,
        DEPENDS={f.name: f.depends_on for f in form.fields if f.control is Control.CHOICE},
    )
    return hook_var('"on"', [hook], {"react": ["useEffect"]}).to(str)


def _post_target(form: FormDeclaration) -> dict:
    """Props that make a form a plain HTML form posting to the backend (no JavaScript needed).

    The backend URL is the one Reflex bakes into the build for its websocket.
    """
    return {"method": "post", "action": get_config().api_url.rstrip("/") + form.post_path}


# How long a submit waits for the websocket to connect before it goes over HTTP.
_CONNECT_MS = 3_000


class HttpFallback:
    """A form's answer when it went over HTTP (``js/form_http_fallback.js``): result, errors."""

    def __init__(self, state: type[LeadFormState]) -> None:
        form = state.form
        self.result = ClientStateVar.create(f"{form.prefix}_http_result", "")
        self.errors = ClientStateVar.create(f"{form.prefix}_http_errors", {})
        self.hook = hook_var(
            '"on"',
            [
                load_js(
                    "form_http_fallback.js",
                    FORM_ID=form.form_id,
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


_FALLBACKS = {state: HttpFallback(state) for state in FORM_STATES.values()}


def _key_field(form: FormDeclaration) -> rx.Component:
    """The submission's key, set by the browser code at each new submission."""
    return rx.el.input(type="hidden", name=IDEMPOTENCY_FIELD, id=form.field_id(IDEMPOTENCY_FIELD))


def _language_field(form: FormDeclaration) -> rx.Component:
    """The language of the page the form is on: the server answers and writes to the
    visitor in it (``leads/intake.py``)."""
    return rx.el.input(
        type="hidden",
        name=LANGUAGE_FIELD,
        id=form.field_id(LANGUAGE_FIELD),
        value=locale.current(),
    )


def _source_field(form: FormDeclaration) -> rx.Component:
    """Where the visit came from, written by the layout's browser code on submit
    (``js/lead_source.js``); the server checks it (``leads/source.py``)."""
    return rx.el.input(type="hidden", name=lead_source.FIELD, id=form.field_id(lead_source.FIELD))


def _alternatives() -> rx.Component:
    """The agency's e-mail, phone and WhatsApp as links."""
    links = COPY.alternatives
    return rx.el.ul(
        *[
            rx.el.li(rx.el.a(link.label, href=link.href, class_name=_ALTERNATIVE))
            for link in (links.email, links.phone, links.whatsapp)
        ],
        class_name="mt-2 flex flex-wrap gap-x-5 gap-y-1",
    )


def _notice(text: str, **props) -> rx.Component:
    """A calm note followed by the agency's direct channels."""
    return rx.el.div(rx.el.p(text), _alternatives(), class_name=_NOTICE_BOX, **props)


def _status(state: type[LeadFormState]) -> rx.Component:
    """Live region announcing the outcome of the last submission (either path)."""
    notices = COPY.notices
    return rx.el.div(
        rx.match(
            _FALLBACKS[state].shown_result(state),
            (Result.SENT.value, rx.el.p(state.form.words.success, class_name=_SUCCESS_BOX)),
            (Result.QUEUED.value, _notice(notices.queued)),
            (Result.RATE_LIMITED.value, _notice(notices.rate_limited)),
            (Result.STORE_FAILED.value, _notice(notices.store_failed)),
            rx.fragment(),
        ),
        role="status",
        aria_live="polite",
    )


def _honeypot(form: FormDeclaration) -> rx.Component:
    """A field people never see or reach; whoever fills it is a bot."""
    control_id = form.field_id(HONEYPOT_FIELD)
    return rx.el.div(
        rx.el.label(COPY.honeypot_label, html_for=control_id),
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


def _submit(state: type[LeadFormState]) -> rx.Component:
    """Submit button: disabled and saying so while busy (never for want of a websocket).

    ``busy`` is ``sending`` up to its deadline: a flag a killed worker left behind frees the
    button at the next event (a reconnect's hydrate), see ``state/forms.py``.
    """
    return rx.el.button(
        rx.cond(state.busy, COPY.notices.sending, state.form.words.submit),
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
            rx.el.a(
                notice.more.label, href=localized_path(notice.more.href), class_name="underline"
            ),
            ".",
        ),
        class_name=_PRIVACY + " space-y-1",
    )


def _control(state: type[LeadFormState], name: str) -> dict:
    """Props tying a control to its name, its error message and its invalid state."""
    control_id = state.form.field_id(name)
    return {
        "id": control_id,
        "name": name,
        "aria_invalid": rx.cond(_FALLBACKS[state].error(state, name) != "", "true", "false"),
        "aria_describedby": f"{control_id}-error",
    }


def _error(state: type[LeadFormState], name: str) -> rx.Component:
    """The Spanish message of a wrong field, announced when it appears."""
    return rx.el.p(
        _FALLBACKS[state].error(state, name),
        id=f"{state.form.field_id(name)}-error",
        aria_live="polite",
        class_name=_FIELD_ERROR,
    )


# --- One field, from its type -------------------------------------------------------------

_INPUT_TYPES = {
    Control.TEXT: "text",
    Control.EMAIL: "email",
    Control.PHONE: "tel",
    Control.DATE: "date",
}


def _input_props(field: FormField, placeholder: str) -> dict:
    """The HTML constraints of a field (the server checks them again)."""
    props: dict = {}
    if field.control in _INPUT_TYPES:
        props["type"] = _INPUT_TYPES[field.control]
    if field.required:
        props["required"] = True
    if field.min_length and field.control is not Control.TEXTAREA:
        props["min_length"] = field.min_length
    if field.max_length:
        props["max_length"] = field.max_length
    if field.autocomplete:
        props["auto_complete"] = field.autocomplete
    if placeholder and field.control in (Control.TEXT, Control.EMAIL, Control.PHONE):
        props["placeholder"] = placeholder
    return props


def _options(field: FormField, placeholder: str) -> list[rx.Component]:
    """A select's options: the empty one (its placeholder), then its choices; those of a
    ``depends_on`` field grouped by the value that offers them."""
    empty = rx.el.option(placeholder, value="")
    if field.control is Control.SLOT:
        return [empty, *[rx.el.option(slot, value=slot) for slot in TIME_SLOTS]]
    if not field.depends_on:
        return [empty, *[rx.el.option(o.label, value=o.value) for o in field.choices()]]
    groups: dict[str, list[rx.Component]] = {}
    for option in field.choices():
        groups.setdefault(option.group, []).append(
            rx.el.option(
                option.label, value=option.value, custom_attrs={"data-group": option.group}
            )
        )
    return [
        empty,
        *[
            rx.el.optgroup(*items, label=_group_label(field, group))
            for group, items in groups.items()
        ],
    ]


def _group_label(field: FormField, group: str) -> str:
    """How a group of options is titled: the label of the option of the field it depends on."""
    from agency_site.forms.declarations import BY_KIND

    for form in BY_KIND.values():
        if field in form.fields:
            parent = form.field(field.depends_on)
            return {o.value: o.label for o in parent.choices()}.get(group, group)
    return group


def _field_control(state: type[LeadFormState], field: FormField, extra: str = "") -> rx.Component:
    """The control of a field: input, select or textarea, with its constraints."""
    form = state.form
    words = form.field_words(field)
    control = _control(state, field.name)
    props = _input_props(field, words.placeholder) | {"class_name": _INPUT + extra}
    match field.control:
        case Control.TEXTAREA:
            return rx.el.textarea(
                rows=field.rows, placeholder=words.placeholder, **props, **control
            )
        case Control.SLOT:
            # The agency's clock, said under the select; the visitor's own time beside each
            # slot (and a note naming their zone) when it differs, set in the browser.
            hint_id = f"{control['id']}-hint"
            described = f"{hint_id} {_zone_note_id(form, field)} {control['aria_describedby']}"
            return rx.fragment(
                rx.el.select(
                    *_options(field, words.placeholder),
                    custom_attrs={"data-slot-filter": _slot_filter(form, field)},
                    **props,
                    **(control | {"aria_describedby": described}),
                ),
                rx.el.p(
                    getattr(form.words, f"{field.name}_hint"),
                    id=hint_id,
                    class_name="mt-1 text-sm text-slate-600",
                ),
                rx.el.p(
                    id=_zone_note_id(form, field),
                    hidden=True,
                    class_name="mt-1 text-sm text-slate-600",
                ),
            )
        case Control.CHOICE:
            return rx.el.select(*_options(field, words.placeholder), **props, **control)
        case Control.DATE:
            # No ``placeholder``: HTML does not allow it on ``type=date``; the hint is
            # visible text tied to the input by ``aria-describedby``. Today to a year ahead.
            hint_id = f"{control['id']}-hint"
            described = f"{hint_id} {control['aria_describedby']}"
            return rx.fragment(
                rx.el.input(
                    min=_MIN_DATE,
                    max=_MAX_DATE,
                    **props,
                    **(control | {"aria_describedby": described}),
                ),
                rx.el.p(
                    getattr(form.words, f"{field.name}_hint"),
                    id=hint_id,
                    class_name="mt-1 text-sm text-slate-600",
                ),
            )
    return rx.el.input(**props, **control)


def _labelled(state: type[LeadFormState], field: FormField) -> rx.Component:
    """A field of a stacked form: label (saying "optional" when it is), control, message."""
    words = state.form.words
    return rx.el.div(
        rx.el.label(
            state.form.field_words(field).label,
            rx.el.span(f" {words.optional}", class_name="font-normal text-slate-600")
            if not field.required
            else rx.fragment(),
            html_for=state.form.field_id(field.name),
            class_name=_LABEL,
        ),
        rx.el.div(_field_control(state, field), class_name="mt-2"),
        _error(state, field.name),
    )


# --- Whole forms ---------------------------------------------------------------------------


def _form(
    state: type[LeadFormState], *children: rx.Component, class_name: str, **props
) -> rx.Component:
    """The form element: its id, both submit paths, the busy flag."""
    form = state.form
    fallback = _FALLBACKS[state].form_props()
    if any(field.control is Control.CHOICE for field in form.fields):
        fallback["custom_attrs"]["data-preselect"] = _preselect(form)
    return rx.el.form(
        *children,
        id=form.form_id,
        on_submit=state.submit,
        **_post_target(form),
        **fallback,
        aria_busy=state.busy,
        class_name=class_name,
        **props,
    )


def _inline_form(state: type[LeadFormState]) -> rx.Component:
    """One field beside its button, its label for screen readers only (the Home hero)."""
    form = state.form
    (field,) = form.fields
    return _form(
        state,
        rx.el.div(
            rx.el.label(
                form.field_words(field).label,
                html_for=form.field_id(field.name),
                class_name="sr-only",
            ),
            _field_control(state, field, " rounded-full sm:flex-1"),
            _submit(state),
            class_name="flex flex-col gap-3 sm:flex-row",
        ),
        _error(state, field.name),
        _honeypot(form),
        _key_field(form),
        _source_field(form),
        _language_field(form),
        _status(state),
        _privacy(form.privacy),
        class_name="relative mt-8 flex max-w-2xl flex-col gap-3",
    )


def _stacked_form(state: type[LeadFormState]) -> rx.Component:
    """A card: the short fields two by two, the long texts under them, then the button."""
    form = state.form
    short = [field for field in form.fields if field.control is not Control.TEXTAREA]
    long = [field for field in form.fields if field.control is Control.TEXTAREA]
    return _form(
        state,
        rx.el.p(form.words.required_hint, class_name="text-sm text-slate-600"),
        rx.el.div(*[_labelled(state, f) for f in short], class_name="grid gap-6 sm:grid-cols-2"),
        *[_labelled(state, f) for f in long],
        _honeypot(form),
        _key_field(form),
        _source_field(form),
        _language_field(form),
        _status(state),
        rx.el.div(_submit(state)),
        _privacy(form.privacy),
        class_name="relative mx-auto max-w-3xl space-y-6 rounded-3xl border border-slate-200 "
        "bg-white p-6 shadow-sm sm:p-10",
    )


def lead_form(state: type[LeadFormState]) -> rx.Component:
    """The form of ``state``, rendered from its declaration."""
    return _inline_form(state) if state.form.inline else _stacked_form(state)


def hero_capture_form() -> rx.Component:
    """E-mail capture of the Home hero (type=email, required)."""
    return lead_form(HeroCaptureState)


def booking_form() -> rx.Component:
    """Consultation booking form of /schedule."""
    return lead_form(BookingState)


def quote_form() -> rx.Component:
    """Quote request of /contact; its selects follow ``?service=<id>&pack=<id>``."""
    return lead_form(QuoteState)

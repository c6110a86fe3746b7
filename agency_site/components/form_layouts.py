"""The lead forms as pages place them, each drawn from its declaration
(``agency_site/forms/``): the hero form of Home (one field beside its button), the
booking form of /schedule and the quote request of /contact (cards of fields).

Pages place them with ``hero_form()``, ``booking_form()`` and ``quote_form()``;
``lead_form(state)`` draws any declared form, its fields from ``form_controls.py``.
The state in ``agency_site/state/form_states.py`` receives the whole form on submit.

Each form is also a plain HTML form (``method="post"``, ``action`` = the backend's
``/_site/forms/<kind>``, see ``agency_site/site_api.py``): submitted before the
page's JavaScript runs, or without JavaScript, it still reaches the same intake.
Once hydrated, Reflex's ``onSubmit`` prevents that POST and uses the websocket; while
the websocket is down, or when it drops before the answer, the same submission goes to
that endpoint with ``fetch`` instead (``form_hooks.HttpFallback``) and its answer is
shown in place. A hidden field carries one key per submission, so a submission tried
over both paths is stored and sent once. The form is never paused nor disabled for want
of a websocket.

A suspect submission (sent too fast, no form token, rate-limited) is answered
``Result.CHALLENGE``: the form shows a note and the ALTCHA widget (``leads/spam/widget.py``),
which solves its proof of work by itself, puts the payload into the hidden
``CHALLENGE_FIELD`` and sends the same submission again (``leads/spam/challenge.py``).
"""

import reflex as rx

from agency_site import locale
from agency_site.components import styles
from agency_site.components.form_controls import (
    error,
    field_control,
    html_props,
    labelled,
    screen_reader_label,
)
from agency_site.components.form_hooks import HTTP_FALLBACKS, preselect
from agency_site.content.form_words import COPY, PrivacyNotice
from agency_site.forms.declarations import (
    CHALLENGE_FIELD,
    FORM_TOKEN_FIELD,
    IDEMPOTENCY_FIELD,
    LANGUAGE_FIELD,
    SOURCE_FIELD,
    FormDeclaration,
)
from agency_site.forms.field_markup import honeypot_markup
from agency_site.forms.fields import Control
from agency_site.forms.outcome import Result
from agency_site.forms.widget_markup import STARTER_URL, WIDGET_TAG, widget_attributes
from agency_site.locale import localized_path
from agency_site.reflex_ext.backend_origin import backend_base
from agency_site.reflex_ext.client_state import hook_var
from agency_site.reflex_ext.js import load_js
from agency_site.state.form_states import (
    BookingFormState,
    HeroFormState,
    LeadFormState,
    QuoteFormState,
)

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


def _post_target(form: FormDeclaration) -> dict:
    """Props that make a form a plain HTML form posting to the backend (no JavaScript needed).

    The page's own origin when one server serves pages and backend, else the backend URL
    Reflex bakes into the build for its websocket (``backend_origin.py``).
    """
    return {"method": "post", "action": backend_base() + form.post_path}


def _key_field(form: FormDeclaration) -> rx.Component:
    """The submission's key, set by the browser code at each new submission."""
    return rx.el.input(type="hidden", name=IDEMPOTENCY_FIELD, id=form.field_id(IDEMPOTENCY_FIELD))


def _token_field(form: FormDeclaration) -> rx.Component:
    """The form's signed token (the time trap, ``leads/spam/form_token.py``), fetched by the
    browser code at the first focus in the form (``js/form_http_fallback.js``)."""
    return rx.el.input(type="hidden", name=FORM_TOKEN_FIELD, id=form.field_id(FORM_TOKEN_FIELD))


def _challenge_field(form: FormDeclaration) -> rx.Component:
    """The solved proof of work of a suspect submission (``leads/spam/challenge.py``),
    written by the widget's starter (``js/altcha_start.js``); empty otherwise."""
    return rx.el.input(type="hidden", name=CHALLENGE_FIELD, id=form.field_id(CHALLENGE_FIELD))


class AltchaWidget(rx.el.Div):
    """The ALTCHA widget (a web component: ``<altcha-widget>``), defined by its own script
    once the starter has loaded it. Its props are constants: a component with a state Var
    is memoized under a name made of its tag, and a hyphen is no JavaScript identifier (the
    challenge goes on its holder, ``_challenge``)."""

    tag = WIDGET_TAG


def challenge_loader(form: FormDeclaration) -> rx.Var:
    """The hook that adds the widget's starter to the page when the form shows a widget."""
    hook = load_js("form_challenge.js", FORM_ID=form.form_id, STARTER_URL=STARTER_URL)
    return hook_var('"on"', [hook], {"react": ["useEffect"]}).to(str)


def _challenge(state: type[LeadFormState]) -> rx.Component:
    """While a submission must prove it is no robot: the widget, which solves it by itself
    and sends the form again; reached by the keyboard, its states read by screen readers
    (its own live region). The challenge is its holder's ``data-challenge``, which the
    starter hands to the widget."""
    fallback = HTTP_FALLBACKS[state]
    return rx.cond(
        fallback.shown_result(state) == Result.CHALLENGE.value,
        rx.el.div(
            AltchaWidget.create(custom_attrs=widget_attributes()),
            custom_attrs={"data-challenge": fallback.shown_challenge(state)},
        ),
        rx.fragment(),
    )


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
    return rx.el.input(type="hidden", name=SOURCE_FIELD, id=form.field_id(SOURCE_FIELD))


def _honeypot(form: FormDeclaration) -> rx.Component:
    """A field people never see or reach; whoever fills it is a bot.

    Out of autofill's way (``forms/field_markup.honeypot_markup``): its name, id and label
    match none of the patterns browsers and password managers recognise; never reached by
    Tab; hidden from screen readers."""
    trap = honeypot_markup(form)
    return rx.el.div(
        rx.el.label(trap.label, html_for=trap.id),
        rx.el.input(**html_props(trap.attributes), custom_attrs=trap.markers),
        aria_hidden="true",
        class_name=_HONEYPOT,
    )


def _hidden_fields(form: FormDeclaration) -> tuple[rx.Component, ...]:
    """What every form carries besides its fields: honeypot, key, token, the proof of work,
    source, language."""
    return (
        _honeypot(form),
        _key_field(form),
        _token_field(form),
        _challenge_field(form),
        _source_field(form),
        _language_field(form),
    )


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
            HTTP_FALLBACKS[state].shown_result(state),
            (Result.SENT.value, rx.el.p(state.form.words.success, class_name=_SUCCESS_BOX)),
            (Result.QUEUED.value, _notice(notices.queued)),
            (Result.RATE_LIMITED.value, _notice(notices.rate_limited)),
            (Result.STORE_FAILED.value, _notice(notices.store_failed)),
            (Result.CHALLENGE.value, rx.el.p(COPY.challenge.notice, class_name=_NOTICE_BOX)),
            rx.fragment(),
        ),
        role="status",
        aria_live="polite",
    )


def _submit(state: type[LeadFormState]) -> rx.Component:
    """Submit button: disabled and saying so while busy (never for want of a websocket).

    ``busy`` is ``sending`` up to its deadline: a flag a killed worker left behind frees the
    button at the next event (a reconnect's hydrate), see ``state/form_states.py``.
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


def _form(
    state: type[LeadFormState], *children: rx.Component, class_name: str, **props
) -> rx.Component:
    """The form element: its id, both submit paths, the busy flag."""
    form = state.form
    fallback = HTTP_FALLBACKS[state].form_props()
    fallback["custom_attrs"]["data-challenge-loader"] = challenge_loader(form)
    if any(field.control is Control.CHOICE for field in form.fields):
        fallback["custom_attrs"]["data-preselect"] = preselect(form)
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
    """One field beside its button, its label for screen readers only (the hero form)."""
    form = state.form
    (field,) = form.fields
    return _form(
        state,
        rx.el.div(
            screen_reader_label(state, field),
            field_control(state, field, " rounded-full sm:flex-1"),
            _submit(state),
            class_name="flex flex-col gap-3 sm:flex-row",
        ),
        error(state, field.name),
        *_hidden_fields(form),
        _status(state),
        _challenge(state),
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
        rx.el.div(*[labelled(state, f) for f in short], class_name="grid gap-6 sm:grid-cols-2"),
        *[labelled(state, f) for f in long],
        *_hidden_fields(form),
        _status(state),
        _challenge(state),
        rx.el.div(_submit(state)),
        _privacy(form.privacy),
        class_name="relative mx-auto max-w-3xl space-y-6 rounded-3xl border border-slate-200 "
        "bg-white p-6 shadow-sm sm:p-10",
    )


def lead_form(state: type[LeadFormState]) -> rx.Component:
    """The form of ``state``, drawn from its declaration."""
    return _inline_form(state) if state.form.inline else _stacked_form(state)


def hero_form() -> rx.Component:
    """The hero form of Home: the visitor's e-mail address (type=email, required)."""
    return lead_form(HeroFormState)


def booking_form() -> rx.Component:
    """Consultation booking form of /schedule."""
    return lead_form(BookingFormState)


def quote_form() -> rx.Component:
    """Quote request of /contact; its selects follow ``?service=<id>&pack=<id>``."""
    return lead_form(QuoteFormState)

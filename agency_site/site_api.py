"""The site's own HTTP endpoints on the backend, all under ``paths.SITE_API_PREFIX`` (``/_site``).

``POST /_site/forms/<kind>``: a lead form sent without JavaScript. The prerendered
forms carry ``method="post"`` and this endpoint's absolute URL (``REFLEX_API_URL``,
baked at build time like Reflex's event URL) as ``action``, so a visitor who
submits before the page's JavaScript runs, or with it off or blocked, still
reaches the agency: the same ``LeadIntake.submit`` (rate limit, honeypot,
validation, store, send) as the websocket path, and a real page in answer. Once
the page is hydrated its ``onSubmit`` prevents this POST and the websocket is used.

The answer is a small page of its own (in the language of the form's page, its hidden
``language`` field; styled inline, no script), not
the form's prerendered page with values spliced in: that page hydrates, and React
would throw away (or mismatch on) anything the server wrote into its markup. It
shows the success text, or the honest notice with the agency's direct channels,
or the form again with each wrong field's message and every value kept (escaped).
Personal data never goes into a URL.

A submission that was stored (sent or queued) is answered ``303 See Other`` to
``GET /_site/forms/<kind>?answer=sent|queued&language=<code>``, which shows that outcome
and stores nothing (Post/Redirect/Get): reloading the answer never posts the lead again.
The other outcomes stored nothing and answer in place, with the values the visitor typed.

Only the site's own origins may post (``Origin``, else ``Referer``, when sent).
The visitor's address is computed like Reflex's ``router.session.client_ip``:
``X-Forwarded-For`` is used only through ``REFLEX_TRUSTED_PROXY_HOPS`` proxies.

``GET /_site/forms/token``: a fresh form token (``leads/spam/form_token.py``, the time trap),
which a form's browser code fetches at the first focus in it; the plain form pages here
carry one written in. A token-less post that a browser says is a person's click with
no script (``browser_navigation``) is not taken for spam for want of a token. Each
request a page of the site would make (``honest_token_request``) is told to ``on_token``
after the answer is sent (the report's forms started, ``report/started.py``: counted in
memory, once per address, form and day); it writes nothing.

The same endpoint is the page's fallback when the websocket is down (a ``fetch``):
- **Idempotency**: the page's key for this submission, as the ``Idempotency-Key``
  header or the ``idempotency_key`` form field (a hidden input of the no-JavaScript
  form), goes to ``LeadIntake.submit``; the same submission tried over the websocket
  and here is stored and sent once.
- **JSON answer**: with ``Accept: application/json`` the answer is
  ``{"result": "sent"|"queued"|"invalid"|"rate_limited"|"store_failed"|"challenge",
  "errors": {field: message}}`` with the same HTTP status as the page, for the form to show
  in place, and with ``"challenge"`` the challenge itself (``"challenge": {...}``, for the
  ALTCHA widget: ``leads/spam/challenge.py``); refusals that are no submission (origin,
  type, size, slow body) answer ``{"result": "refused"}``.
- **A challenge without JavaScript**: the page shows the form again with the widget and
  the submission's key; the widget's starter is the site's own file (``/altcha/``), which
  runs where the backend's pages share the site's origin. With no script running it
  cannot be solved: the page says so (the lead, when the token's checks flagged it, waits
  in quarantine; a rate-limited one was not stored).
- **Slow clients**: the body must arrive within ``BODY_TIMEOUT_S`` (408 otherwise), so a
  client trickling bytes cannot hold a request open.
"""

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from html import escape
from urllib.parse import parse_qsl, urlencode, urlsplit

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from agency_site import locale, paths
from agency_site.content.form_words import COPY
from agency_site.content.not_found import NOT_FOUND
from agency_site.forms.declarations import (
    BY_KIND,
    CHALLENGE_FIELD,
    FORM_TOKEN_FIELD,
    IDEMPOTENCY_FIELD,
    LANGUAGE_FIELD,
    FormDeclaration,
)
from agency_site.forms.field_markup import field_markup, honeypot_markup
from agency_site.forms.fields import Control, FormField
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result, Submission
from agency_site.forms.widget_markup import STARTER_URL, WIDGET_TAG, widget_attributes
from agency_site.leads.intake import LeadIntake
from agency_site.leads.spam.form_token import FormTokens
from agency_site.leads.validation import MAX_FIELDS
from agency_site.reflex_ext.backend_origin import own_origin
from agency_site.settings import origin
from agency_site.web_base.plain_page import alternatives_notice, attributes_html, field_html, page
from agency_site.web_base.request_body import BODY_TIMEOUT_S, SlowBody, read_body

_STATUS = {
    Result.SENT: 200,
    Result.QUEUED: 200,
    Result.INVALID: 400,
    Result.RATE_LIMITED: 429,
    Result.STORE_FAILED: 503,
    Result.CHALLENGE: 202,  # Taken for a check: sent again once solved.
}
_FORM_TYPE = "application/x-www-form-urlencoded"
IDEMPOTENCY_HEADER = "idempotency-key"
# The outcomes that stored a lead: the no-JavaScript POST answers them with a redirect to
# ``GET …?answer=<result>&language=<code>`` (Post/Redirect/Get), so a reload stores nothing.
STORED = (Result.SENT, Result.QUEUED)
ANSWER_PARAM = "answer"


def client_address(peer: str, forwarded_for: Iterable[str], trusted_hops: int) -> str:
    """The visitor's address, as Reflex resolves ``router.session.client_ip``."""
    if trusted_hops:
        forwarded = [ip.strip() for value in forwarded_for for ip in value.split(",")]
        forwarded = [ip for ip in forwarded if ip]
        if len(forwarded) >= trusted_hops:
            return forwarded[-trusted_hops]
    return peer


def origin_allowed(headers: Mapping[str, str], allowed: Iterable[str]) -> bool:
    """Whether a request comes from one of the site's pages (or says nothing about it): a
    configured origin, or the host the request was sent to (``own_origin``: one server
    reached by any of its names)."""
    allowed = set(allowed)
    if (sent := headers.get("origin")) is not None:
        return sent in allowed or own_origin(sent, headers)
    if referer := headers.get("referer"):
        parts = urlsplit(referer)
        if not (parts.scheme and parts.netloc):
            return False
        return origin(referer) in allowed or own_origin(origin(referer), headers)
    return True


# --- The answer page ---------------------------------------------------------------------


class _Form:
    """The plain form of a declaration, with the values sent and a message per wrong field:
    the same contract (``forms/field_markup.py``) as the page's own form, drawn as HTML
    (``plain_page.field_html``)."""

    def __init__(
        self,
        form: FormDeclaration,
        values: Mapping[str, str],
        errors: Mapping[str, str],
        token: str = "",
        challenge: str = "",
    ):
        self.form, self.values, self.errors, self.token = form, values, errors, token
        self.challenge = challenge

    def _field(self, field: FormField) -> str:
        markup = field_markup(self.form, field)
        value = self.values.get(markup.name, "")
        return field_html(markup, value, self.errors.get(field.name, ""))

    def render(self, action: str) -> str:
        fields = "".join(self._field(field) for field in self.form.fields)
        trap = honeypot_markup(self.form)
        honeypot = (
            f'<div class="hp" aria-hidden="true"><label for="{trap.id}">{escape(trap.label)}'
            f"</label><input{attributes_html(trap.attributes | trap.markers)}></div>"
        )
        return (
            f'<form method="post" action="{escape(action, quote=True)}" '
            f'id="{self.form.prefix}-fallback-form">{fields}{honeypot}'
            f'<input type="hidden" name="{LANGUAGE_FIELD}" value="{locale.current()}">'
            f'<input type="hidden" name="{FORM_TOKEN_FIELD}" value="{escape(self.token)}">'
            f"{self._challenge()}"
            f'<button type="submit">{escape(self.form.words.submit)}</button></form>'
        )

    def _challenge(self) -> str:
        """With a challenge: the widget, the submission's key (the one the challenge is
        bound to) and the payload's field."""
        if not self.challenge:
            return ""
        key = str(json.loads(self.challenge)["parameters"]["data"]["key"])
        attributes = {**widget_attributes(), "challenge": self.challenge}
        widget = "".join(f' {name}="{escape(value)}"' for name, value in attributes.items())
        return (
            f"<{WIDGET_TAG}{widget}></{WIDGET_TAG}>"
            f'<script src="{escape(STARTER_URL)}"></script>'
            f'<input type="hidden" name="{IDEMPOTENCY_FIELD}" value="{escape(key)}">'
            f'<input type="hidden" name="{CHALLENGE_FIELD}" value="">'
        )


def answer_page(
    kind: LeadKind,
    submission: Submission,
    values: Mapping[str, str],
    action: str,
    site_url: str,
    token: str = "",
) -> str:
    """The page a visitor without JavaScript gets after submitting the ``kind`` form
    (``token``: the form's, for the form shown again)."""
    form = BY_KIND[kind]
    result = submission.result
    if result in STORED:
        return stored_page(kind, result, site_url)
    notices = {
        Result.RATE_LIMITED: COPY.notices.rate_limited,
        Result.STORE_FAILED: COPY.notices.store_failed,
        Result.CHALLENGE: COPY.challenge.no_script,
    }
    body = alternatives_notice(notices[result]) if result in notices else ""
    body += _Form(form, values, submission.errors, token, submission.challenge).render(action)
    back = site_url.rstrip("/") + locale.localized_path(form.page)
    return page(COPY.answer_page.review, body, back)


def stored_page(kind: LeadKind, result: Result, site_url: str) -> str:
    """The page of a ``kind`` submission that was stored (``result`` sent or queued)."""
    form = BY_KIND[kind]
    if result is Result.SENT:
        body = f'<p class="box ok" role="status">{escape(form.words.success)}</p>'
    else:
        body = alternatives_notice(COPY.notices.queued)
    back = site_url.rstrip("/") + locale.localized_path(form.page)
    return page(COPY.answer_page.sent, body, back)


def form_page(
    kind: LeadKind, query: Mapping[str, str], action: str, site_url: str, token: str = ""
) -> str:
    """The plain form of ``kind`` on a page of its own, its selects chosen from ``query``
    (``?service=branding&pack=esencial``): only choices the form offers, and no typed
    text, which would be personal data in a URL. ``token``: a fresh form token (the
    time trap), written in: this page is served, not prerendered."""
    form = BY_KIND[kind]
    chosen: dict[str, str] = {}
    for field in form.fields:
        value = query.get(field.name, "")
        if field.control is not Control.CHOICE or not value:
            continue
        group = chosen.get(field.depends_on, "") if field.depends_on else ""
        if any(o.value == value and o.group == group for o in field.choices()):
            chosen[field.name] = value
    body = _Form(form, chosen, {}, token).render(action)
    return page(
        COPY.answer_page.form, body, site_url.rstrip("/") + locale.localized_path(form.page)
    )


def _short_page(status: int, title: str, text: str, site_url: str) -> HTMLResponse:
    """A refusal that is no submission at all (wrong origin, size or type)."""
    return HTMLResponse(page(title, alternatives_notice(text), site_url.rstrip("/") + "/"), status)


# --- The endpoint ------------------------------------------------------------------------


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def browser_navigation(headers: Mapping[str, str]) -> bool:
    """Whether a browser says a person's click posted this form as a page navigation
    (``Sec-Fetch-Mode: navigate``, ``Sec-Fetch-User: ?1``): the no-JavaScript path, whose
    prerendered form could fetch no token. A script's ``fetch`` (the HTTP fallback) is
    never one; a bot that forges the headers still meets the other checks (``spam/screen.py``)."""
    return headers.get("sec-fetch-mode") == "navigate" and headers.get("sec-fetch-user") == "?1"


def honest_token_request(headers: Mapping[str, str], allowed: Iterable[str]) -> bool:
    """Whether a token request is one a page of the site makes (its browser code's
    ``fetch``): from one of the site's origins (when it says), and no navigation (an
    address typed in the bar). Only those count as a form started."""
    return origin_allowed(headers, allowed) and headers.get("sec-fetch-mode") != "navigate"


# Told of a token request a page of the site made: the form it names (``?form=``, as
# sent: None when none), the visitor's address.
OnToken = Callable[[str | None, str], Awaitable[object]]


@dataclass(frozen=True)
class FormEndpoints:
    """The handlers of the ``/_site/forms`` endpoints, with what they are built with (see
    ``create_app``)."""

    get_intake: Callable[[], LeadIntake]
    api_url: str
    site_url: str
    allowed: tuple[str, ...]
    trusted_hops: int
    max_body_bytes: int
    body_timeout_s: float
    get_tokens: Callable[[], FormTokens | None]
    on_token: OnToken | None
    refused_text: str  # The refusals' text.

    def routes(self) -> list[Route]:
        return [
            Route(paths.FORM_TOKEN, self.get_token, methods=["GET"]),
            Route(paths.form_post("{kind}"), self.post_form, methods=["POST"]),
            Route(paths.form_post("{kind}"), self.get_form, methods=["GET"]),
        ]

    def visitor(self, request: Request) -> str:
        """The visitor's address (``client_address``)."""
        peer = request.client.host if request.client else ""
        return client_address(peer, request.headers.getlist("x-forwarded-for"), self.trusted_hops)

    def fresh_token(self) -> str:
        """A new form token ("" when the time trap is off)."""
        tokens = self.get_tokens()
        return tokens.issue() if tokens is not None else ""

    def refuse(self, request: Request, status: int, title: str) -> Response:
        """A refusal that is no submission, as JSON or as a short page."""
        if _wants_json(request):
            return JSONResponse({"result": "refused"}, status_code=status)
        return _short_page(status, title, self.refused_text, self.site_url)

    def action(self, kind: LeadKind) -> str:
        """Where the plain form of ``kind`` posts."""
        return self.api_url + paths.form_post(kind)

    async def read_form(self, request: Request) -> dict[str, str] | Response:
        """The posted form's values, or the refusal of a post that is no submission (wrong
        origin, type, size, a slow body)."""
        if not origin_allowed(request.headers, self.allowed):
            return self.refuse(request, 403, COPY.answer_page.refused)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != _FORM_TYPE:
            return self.refuse(request, 415, COPY.answer_page.refused)
        try:
            body = await read_body(request, self.max_body_bytes, self.body_timeout_s)
        except SlowBody:
            return self.refuse(request, 408, COPY.answer_page.refused)
        if body is None:
            return self.refuse(request, 413, COPY.answer_page.too_large)
        # The body is capped, so parsing it is cheap; the intake refuses too many fields.
        return dict(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))

    async def post_form(self, request: Request) -> Response:
        """``POST /_site/forms/<kind>``: a submission, without JavaScript or over ``fetch``."""
        try:
            kind = LeadKind(request.path_params["kind"])
        except ValueError:
            return self.refuse(request, 404, NOT_FOUND.heading)
        values = await self.read_form(request)
        if isinstance(values, Response):
            return values
        key = values.pop(IDEMPOTENCY_FIELD, None) or request.headers.get(IDEMPOTENCY_HEADER)
        no_script = not _wants_json(request) and browser_navigation(request.headers)
        submission = await self.get_intake().submit(
            kind, values, self.visitor(request), idempotency_key=key, no_script=no_script
        )
        if _wants_json(request):
            return _json_answer(submission)
        return self.page_answer(kind, values, submission)

    def page_answer(
        self, kind: LeadKind, values: dict[str, str], submission: Submission
    ) -> Response:
        """The answer without JavaScript, in the language of the page the form was sent
        from: a stored lead's redirect (Post/Redirect/Get), else the page in place."""
        language = locale.parse(values.get(LANGUAGE_FIELD))
        if submission.result in STORED:
            query = urlencode({ANSWER_PARAM: submission.result, LANGUAGE_FIELD: language})
            return RedirectResponse(f"{self.action(kind)}?{query}", 303)
        shown = values if len(values) <= MAX_FIELDS else {}
        with locale.active(language):
            token = values.get(FORM_TOKEN_FIELD) or self.fresh_token()
            html = answer_page(kind, submission, shown, self.action(kind), self.site_url, token)
        return HTMLResponse(html, status_code=_STATUS[submission.result])

    async def get_form(self, request: Request) -> Response:
        """``GET /_site/forms/<kind>``: a stored submission's answer (``?answer=``), else
        the plain form, its selects chosen from the query."""
        try:
            kind = LeadKind(request.path_params["kind"])
        except ValueError:
            return self.refuse(request, 404, NOT_FOUND.heading)
        query = dict(request.query_params)
        with locale.active(locale.parse(query.get(LANGUAGE_FIELD))):
            if (answer := query.get(ANSWER_PARAM)) in STORED:
                html = stored_page(kind, Result(answer), self.site_url)
            else:
                html = form_page(kind, query, self.action(kind), self.site_url, self.fresh_token())
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    async def get_token(self, request: Request) -> Response:
        """A fresh form token, for the form's browser code (``js/form_http_fallback.js``)."""
        counted = None
        if self.on_token is not None and honest_token_request(request.headers, self.allowed):
            form = request.query_params.get(paths.FORM_TOKEN_FORM)
            counted = BackgroundTask(self.on_token, form, self.visitor(request))
        return JSONResponse(
            {"token": self.fresh_token() or None},
            headers={"Cache-Control": "no-store"},
            background=counted,
        )


def _json_answer(submission: Submission) -> Response:
    """The HTTP fallback's answer: the result, the errors, a challenge; the page's status."""
    body = {"result": str(submission.result), "errors": submission.errors}
    if submission.challenge:
        body["challenge"] = json.loads(submission.challenge)
    return JSONResponse(
        body, status_code=_STATUS[submission.result], headers={"Cache-Control": "no-store"}
    )


def create_app(
    get_intake: Callable[[], LeadIntake],
    *,
    api_url: str,
    site_url: str,
    allowed_origins: Iterable[str],
    trusted_hops: int,
    max_body_bytes: int,
    body_timeout_s: float = BODY_TIMEOUT_S,
    get_tokens: Callable[[], FormTokens | None] = lambda: None,
    on_token: OnToken | None = None,
) -> Starlette:
    """The Starlette app of the ``/_site/forms`` endpoints (mounted before Reflex's own);
    ``api_url``: what the plain forms' ``action`` starts with; ``get_tokens``: the forms'
    time trap, None when off; ``on_token``: told of each token request a page of the site
    makes (``honest_token_request``), after the answer is sent."""
    endpoints = FormEndpoints(
        get_intake=get_intake,
        api_url=api_url,
        site_url=site_url,
        allowed=tuple(allowed_origins),
        trusted_hops=trusted_hops,
        max_body_bytes=max_body_bytes,
        body_timeout_s=body_timeout_s,
        get_tokens=get_tokens,
        on_token=on_token,
        refused_text=COPY.answer_page.refused_text,
    )
    return Starlette(routes=endpoints.routes())

"""The site's own HTTP endpoints on the backend, all under ``paths.SITE_API_PREFIX`` (``/_site``).

``POST /_site/forms/<kind>``: a lead form sent without JavaScript. The prerendered
forms carry ``method="post"`` and this endpoint's absolute URL (``REFLEX_API_URL``,
baked at build time like Reflex's event URL) as ``action``, so a visitor who
submits before the page's JavaScript runs, or with it off or blocked, still
reaches the agency: the same ``LeadIntake.submit`` (rate limit, honeypot,
validation, store, send) as the websocket path, and a real page in answer. Once
the page is hydrated its ``onSubmit`` prevents this POST and the websocket is used.

The answer is a small page of its own (Spanish, styled inline, no script), not
the form's prerendered page with values spliced in: that page hydrates, and React
would throw away (or mismatch on) anything the server wrote into its markup. It
shows the success text, or the honest notice with the agency's direct channels,
or the form again with each wrong field's message and every value kept (escaped).
Personal data never goes into a URL.

Only the site's own origins may post (``Origin``, else ``Referer``, when sent).
The visitor's address is computed like Reflex's ``router.session.client_ip``:
``X-Forwarded-For`` is used only through ``REFLEX_TRUSTED_PROXY_HOPS`` proxies.

The same endpoint is the page's fallback when the websocket is down (a ``fetch``):
- **Idempotency**: the page's key for this submission, as the ``Idempotency-Key``
  header or the ``idempotency_key`` form field (a hidden input of the no-JavaScript
  form), goes to ``LeadIntake.submit``; the same submission tried over the websocket
  and here is stored and sent once.
- **JSON answer**: with ``Accept: application/json`` the answer is
  ``{"result": "sent"|"queued"|"invalid"|"rate_limited"|"store_failed", "errors":
  {field: message}}`` with the same HTTP status as the page, for the form to show
  in place; refusals that are no submission (origin, type, size, slow body) answer
  ``{"result": "refused"}``.
- **Slow clients**: the body must arrive within ``BODY_TIMEOUT_S`` (408 otherwise), so a
  client trickling bytes cannot hold a request open.
"""

import asyncio
from collections.abc import Callable, Iterable, Mapping
from html import escape
from urllib.parse import parse_qsl, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from agency_site import paths
from agency_site.content.forms import (
    ANSWER_PAGE,
    BOOKING,
    EMAIL_MAX,
    HERO_CAPTURE,
    HONEYPOT_LABEL,
    MESSAGE_MAX,
    NAME_MAX,
    NOTICES,
    PHONE_MAX,
    TIME_SLOTS,
)
from agency_site.content.not_found import NOT_FOUND
from agency_site.leads.intake import IDEMPOTENCY_FIELD, LeadIntake, Result, Submission
from agency_site.leads.kinds import LeadKind
from agency_site.leads.validation import HONEYPOT_FIELD, MAX_FIELDS
from agency_site.plain_page import alternatives_notice, page
from agency_site.settings import origin

# The page each form lives on, to go back to.
FORM_PAGES = {LeadKind.CONTACT: paths.HOME, LeadKind.BOOKING: paths.SCHEDULE}
_STATUS = {
    Result.SENT: 200,
    Result.QUEUED: 200,
    Result.INVALID: 400,
    Result.RATE_LIMITED: 429,
    Result.STORE_FAILED: 503,
}
_FORM_TYPE = "application/x-www-form-urlencoded"
# Longest a client may take to send a form's body (a few KB at most).
BODY_TIMEOUT_S = 10.0
IDEMPOTENCY_HEADER = "idempotency-key"


class SlowBody(Exception):
    """The client did not send its body in time."""


def client_address(peer: str, forwarded_for: Iterable[str], trusted_hops: int) -> str:
    """The visitor's address, as Reflex resolves ``router.session.client_ip``."""
    if trusted_hops:
        forwarded = [ip.strip() for value in forwarded_for for ip in value.split(",")]
        forwarded = [ip for ip in forwarded if ip]
        if len(forwarded) >= trusted_hops:
            return forwarded[-trusted_hops]
    return peer


def origin_allowed(headers: Mapping[str, str], allowed: Iterable[str]) -> bool:
    """Whether a request comes from one of the site's pages (or says nothing about it)."""
    allowed = set(allowed)
    if (sent := headers.get("origin")) is not None:
        return sent in allowed
    if referer := headers.get("referer"):
        parts = urlsplit(referer)
        return bool(parts.scheme and parts.netloc) and origin(referer) in allowed
    return True


# --- The answer page ---------------------------------------------------------------------


class _Form:
    """The plain form again, with the values sent and a message per wrong field."""

    def __init__(self, kind: LeadKind, values: Mapping[str, str], errors: Mapping[str, str]):
        self.kind, self.values, self.errors = kind, values, errors
        self.prefix = "hero" if kind is LeadKind.CONTACT else "booking"

    def _attrs(self, name: str) -> str:
        control = f"{self.prefix}-{name}"
        invalid = "true" if name in self.errors else "false"
        return (
            f'id="{control}" name="{name}" aria-invalid="{invalid}" '
            f'aria-describedby="{control}-error"'
        )

    def _value(self, name: str) -> str:
        return escape(self.values.get(name, ""), quote=True)

    def _field(self, name: str, label: str, control: str) -> str:
        error = escape(self.errors.get(name, ""))
        return (
            f'<div><label for="{self.prefix}-{name}">{escape(label)}</label>{control}'
            f'<p class="error" id="{self.prefix}-{name}-error">{error}</p></div>'
        )

    def _input(self, name: str, label: str, kind: str, extra: str) -> str:
        control = f'<input type="{kind}" {self._attrs(name)} value="{self._value(name)}" {extra}>'
        return self._field(name, label, control)

    def _select_time(self) -> str:
        chosen = self.values.get("time", "")
        options = [f'<option value="">{escape(BOOKING.time_placeholder)}</option>']
        options += [
            f'<option value="{slot}"{" selected" if slot == chosen else ""}>{slot}</option>'
            for slot in TIME_SLOTS
        ]
        control = f"<select {self._attrs('time')} required>{''.join(options)}</select>"
        return self._field("time", BOOKING.time.label, control)

    def _message(self) -> str:
        control = (
            f'<textarea {self._attrs("message")} rows="5" maxlength="{MESSAGE_MAX}">'
            f"{self._value('message')}</textarea>"
        )
        label = f"{BOOKING.message.label} {BOOKING.optional}"
        return self._field("message", label, control)

    def render(self, action: str) -> str:
        if self.kind is LeadKind.CONTACT:
            fields = [
                self._input(
                    "email",
                    HERO_CAPTURE.email.label,
                    "email",
                    f'required maxlength="{EMAIL_MAX}" autocomplete="email"',
                )
            ]
            submit = HERO_CAPTURE.submit
        else:
            fields = [
                self._input("name", BOOKING.name.label, "text", f'required maxlength="{NAME_MAX}"'),
                self._input(
                    "email", BOOKING.email.label, "email", f'required maxlength="{EMAIL_MAX}"'
                ),
                self._input(
                    "phone", BOOKING.phone.label, "tel", f'required maxlength="{PHONE_MAX}"'
                ),
                self._input("date", BOOKING.date.label, "date", "required"),
                self._select_time(),
                self._message(),
            ]
            submit = BOOKING.submit
        honeypot = (
            f'<div class="hp" aria-hidden="true"><label for="{self.prefix}-{HONEYPOT_FIELD}">'
            f'{escape(HONEYPOT_LABEL)}</label><input id="{self.prefix}-{HONEYPOT_FIELD}" '
            f'name="{HONEYPOT_FIELD}" type="text" tabindex="-1" autocomplete="off"></div>'
        )
        return (
            f'<form method="post" action="{escape(action, quote=True)}" '
            f'id="{self.prefix}-fallback-form">{"".join(fields)}{honeypot}'
            f'<button type="submit">{escape(submit)}</button></form>'
        )


def answer_page(
    kind: LeadKind,
    submission: Submission,
    values: Mapping[str, str],
    action: str,
    site_url: str,
) -> str:
    """The page a visitor without JavaScript gets after submitting the ``kind`` form."""
    success = HERO_CAPTURE.success if kind is LeadKind.CONTACT else BOOKING.success
    result = submission.result
    title = ANSWER_PAGE.sent if result in (Result.SENT, Result.QUEUED) else ANSWER_PAGE.review
    if result is Result.SENT:
        body = f'<p class="box ok" role="status">{escape(success)}</p>'
    elif result is Result.QUEUED:
        body = alternatives_notice(NOTICES.queued)
    else:
        notices = {
            Result.RATE_LIMITED: NOTICES.rate_limited,
            Result.STORE_FAILED: NOTICES.store_failed,
        }
        body = alternatives_notice(notices[result]) if result in notices else ""
        body += _Form(kind, values, submission.errors).render(action)
    return page(title, body, site_url.rstrip("/") + FORM_PAGES[kind])


def _short_page(status: int, title: str, text: str, site_url: str) -> HTMLResponse:
    """A refusal that is no submission at all (wrong origin, size or type)."""
    return HTMLResponse(page(title, alternatives_notice(text), site_url.rstrip("/") + "/"), status)


# --- The endpoint ------------------------------------------------------------------------


async def _read_body(
    request: Request, limit: int, timeout_s: float = BODY_TIMEOUT_S
) -> bytes | None:
    """The request body, or None when it is longer than ``limit`` bytes.

    Raises ``SlowBody`` when the whole body has not arrived within ``timeout_s``.
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    try:
        async with asyncio.timeout(timeout_s):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    return None
    except TimeoutError:
        raise SlowBody from None
    return bytes(body)


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def create_app(
    get_intake: Callable[[], LeadIntake],
    *,
    api_url: str,
    site_url: str,
    allowed_origins: Iterable[str],
    trusted_hops: int,
    max_body_bytes: int,
    body_timeout_s: float = BODY_TIMEOUT_S,
) -> Starlette:
    """The Starlette app of the ``/_site/`` endpoints (mounted before Reflex's own)."""
    allowed = tuple(allowed_origins)
    refused_text = ANSWER_PAGE.refused_text

    def refuse(request: Request, status: int, title: str) -> Response:
        if _wants_json(request):
            return JSONResponse({"result": "refused"}, status_code=status)
        return _short_page(status, title, refused_text, site_url)

    async def post_form(request: Request) -> Response:
        try:
            kind = LeadKind(request.path_params["kind"])
        except ValueError:
            return refuse(request, 404, NOT_FOUND.heading)
        if not origin_allowed(request.headers, allowed):
            return refuse(request, 403, ANSWER_PAGE.refused)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != _FORM_TYPE:
            return refuse(request, 415, ANSWER_PAGE.refused)
        try:
            body = await _read_body(request, max_body_bytes, body_timeout_s)
        except SlowBody:
            return refuse(request, 408, ANSWER_PAGE.refused)
        if body is None:
            return refuse(request, 413, ANSWER_PAGE.too_large)
        # The body is capped, so parsing it is cheap; the intake refuses too many fields.
        values = dict(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))
        key = values.pop(IDEMPOTENCY_FIELD, None) or request.headers.get(IDEMPOTENCY_HEADER)
        peer = request.client.host if request.client else ""
        client_ip = client_address(peer, request.headers.getlist("x-forwarded-for"), trusted_hops)
        submission = await get_intake().submit(kind, values, client_ip, idempotency_key=key)
        status = _STATUS[submission.result]
        if _wants_json(request):
            body_json = {"result": str(submission.result), "errors": submission.errors}
            return JSONResponse(
                body_json, status_code=status, headers={"Cache-Control": "no-store"}
            )
        shown = values if len(values) <= MAX_FIELDS else {}
        html = answer_page(kind, submission, shown, api_url + paths.form_post(kind), site_url)
        return HTMLResponse(html, status_code=status)

    return Starlette(
        routes=[Route(paths.form_post("{kind}"), post_form, methods=["POST"])],
    )


def site_api() -> Starlette:
    """The ``/_site/`` endpoints of this backend, from the settings: forms and leads health."""
    from agency_site.bookings.runtime import booking_api
    from agency_site.leads.runtime import health_api, intake
    from agency_site.reflex_ext.internals import get_config
    from agency_site.settings import get_settings

    settings, config = get_settings(), get_config()
    forms = create_app(
        intake,
        api_url=config.api_url.rstrip("/"),
        site_url=settings.site_url,
        allowed_origins=settings.allowed_origins,
        trusted_hops=config.trusted_proxy_hops,
        max_body_bytes=settings.reflex.socket_max_http_buffer_size,
    )
    return Starlette(routes=[*forms.routes, *health_api().routes, *booking_api().routes])

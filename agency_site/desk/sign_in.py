"""Signing in and out of the desk with a passkey, enrolling one through an invite, and
proving it again before an export or an erasure.

Pages (GET) and their ceremonies (POST, JSON, driven by ``static/desk.js``):

- ``/sign-in``: one button; the browser offers the person's passkeys for this site
  (``/sign-in/options``, then ``/sign-in``: a session and its cookie).
- ``/enroll#<token>``: the invite's link. The token travels in the fragment, which no
  browser sends to a server: it is in no access log, no Referer; the page's script reads it
  and sends it in the ceremony's body (``/enroll/options``, then ``/enroll``: the passkey
  stored, the invite used, signed in).
- ``/confirm?next=``: the signed-in person's passkey again (``/confirm/options``,
  ``/confirm``), recorded on the session, then back to ``next``.
- ``POST /sign-out``: the session ended, its cookie dropped.

The sign-in and enrolment requests are rate-limited per address
(``DESK_SIGN_IN_ATTEMPTS`` in ``DESK_SIGN_IN_WINDOW_SECONDS``; Redis when configured).
"""

import asyncio
import logging

from limits import RateLimitItemPerSecond
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from agency_site import paths
from agency_site.desk import sessions
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import (
    NEXT_PARAM,
    client_ip,
    desk_of,
    json_body,
    record,
    refusal,
    render,
    safe_next,
    signed_in,
)
from agency_site.desk.passkeys import PasskeyRefused
from agency_site.leads.ratelimit import RateLimiter

logger = logging.getLogger(__name__)

SIGN_IN = f"{paths.DESK}/sign-in"
SIGN_IN_OPTIONS = f"{SIGN_IN}/options"
ENROLL = f"{paths.DESK}/enroll"
ENROLL_OPTIONS = f"{ENROLL}/options"
CONFIRM = f"{paths.DESK}/confirm"
CONFIRM_OPTIONS = f"{CONFIRM}/options"
SIGN_OUT = f"{paths.DESK}/sign-out"
# What anyone may open: no personal data behind them.
PUBLIC = frozenset({SIGN_IN, SIGN_IN_OPTIONS, ENROLL, ENROLL_OPTIONS})


class SignInLimiter(RateLimiter):
    """The forms' limiter (``leads/ratelimit.py``: moving window, per address or IPv6 /64,
    Redis when configured, let through when Redis is down), counting the desk's sign-in
    and enrolment requests apart from the forms' submissions."""

    def __init__(self, storage, attempts: int, window_s: int) -> None:
        super().__init__(storage, attempts, window_s)
        self.item = RateLimitItemPerSecond(attempts, window_s, namespace="DESK_SIGN_IN")


async def _limited(request: Request) -> bool:
    """Count one sign-in or enrolment request; whether it is over the limit."""
    address = client_ip(request)
    allowed = await desk_of(request).limiter().hit(address)
    if not allowed:
        logger.warning("Desk: sign-in requests from one address over the limit: refused.")
    return not allowed


def _options(json_text: str) -> Response:
    return Response(json_text, media_type="application/json")


def _signed_in(request: Request, person_id: int, next_path: str) -> Response:
    """The answer of a sign-in: the session's cookie, and where to go."""
    desk = desk_of(request)
    config = desk.config
    token = sessions.start(desk.engine(), person_id, desk.clock())
    response = JSONResponse({"next": safe_next(next_path)})
    response.set_cookie(
        config.cookie_name,
        token,
        max_age=int(config.max_age.total_seconds()),
        **config.cookie_attributes,
    )
    return response


# --- Sign in ----------------------------------------------------------------------------------


async def sign_in_page(request: Request) -> Response:
    if signed_in(request) is not None:
        return RedirectResponse(safe_next(request.query_params.get(NEXT_PARAM)), 303)
    return render(request, "sign_in.html", next=safe_next(request.query_params.get(NEXT_PARAM)))


async def sign_in_options(request: Request) -> Response:
    if await _limited(request):
        return refusal("rate_limited", 429)
    desk = desk_of(request)
    return _options(await asyncio.to_thread(desk.ceremonies.sign_in_options, desk.clock()))


async def sign_in(request: Request) -> Response:
    if await _limited(request):
        return refusal("rate_limited", 429)
    data = await json_body(request)
    credential = data and data.get("credential")
    if not isinstance(credential, dict):
        return refusal("passkey")
    desk = desk_of(request)
    now = desk.clock()
    try:
        proved = await asyncio.to_thread(desk.ceremonies.sign_in, credential, now)
    except PasskeyRefused as refused:
        return refusal(refused.code)
    response = await asyncio.to_thread(_signed_in, request, proved.person_id, data.get("next"))
    await record(request, AuditAction.SIGNED_IN, person_id=proved.person_id)
    return response


# --- Enroll through an invite -----------------------------------------------------------------


async def enroll_page(request: Request) -> Response:
    return render(request, "enroll.html")


async def enroll_options(request: Request) -> Response:
    if await _limited(request):
        return refusal("rate_limited", 429)
    data = await json_body(request)
    token = data and data.get("token")
    if not isinstance(token, str):
        return refusal("invite")
    desk = desk_of(request)
    try:
        options = await asyncio.to_thread(desk.ceremonies.enroll_options, token, desk.clock())
    except PasskeyRefused as refused:
        return refusal(refused.code)
    return _options(options)


async def enroll(request: Request) -> Response:
    if await _limited(request):
        return refusal("rate_limited", 429)
    data = await json_body(request)
    token, credential = (data or {}).get("token"), (data or {}).get("credential")
    if not isinstance(token, str) or not isinstance(credential, dict):
        return refusal("invite")
    desk = desk_of(request)
    try:
        person_id = await asyncio.to_thread(
            desk.ceremonies.enroll, token, credential, data.get("label"), desk.clock()
        )
    except PasskeyRefused as refused:
        return refusal(refused.code)
    return await asyncio.to_thread(_signed_in, request, person_id, paths.DESK)


# --- Confirm (the passkey again) --------------------------------------------------------------


async def confirm_page(request: Request) -> Response:
    return render(request, "confirm.html", next=safe_next(request.query_params.get(NEXT_PARAM)))


async def confirm_options(request: Request) -> Response:
    desk, person = desk_of(request), signed_in(request)
    options = await asyncio.to_thread(
        desk.ceremonies.confirm_options, person.person_id, desk.clock()
    )
    return _options(options)


async def confirm(request: Request) -> Response:
    data = await json_body(request)
    credential = data and data.get("credential")
    if not isinstance(credential, dict):
        return refusal("passkey")
    desk, person = desk_of(request), signed_in(request)
    now = desk.clock()
    try:
        await asyncio.to_thread(desk.ceremonies.confirm, person.person_id, credential, now)
    except PasskeyRefused as refused:
        return refusal(refused.code)
    await asyncio.to_thread(sessions.mark_fresh, desk.engine(), person.session_id, now)
    await record(request, AuditAction.CONFIRMED)
    return JSONResponse({"next": safe_next(data.get("next"))})


# --- Sign out ---------------------------------------------------------------------------------


def signed_out(request: Request) -> Response:
    """Back to the sign-in page, the cookie dropped."""
    config = desk_of(request).config
    response = RedirectResponse(SIGN_IN, status_code=303)
    response.delete_cookie(config.cookie_name, **config.cookie_attributes)
    return response


async def sign_out(request: Request) -> Response:
    desk, person = desk_of(request), signed_in(request)
    await asyncio.to_thread(sessions.end, desk.engine(), person.session_id)
    await record(request, AuditAction.SIGNED_OUT)
    return signed_out(request)


ROUTES = [
    Route(SIGN_IN, sign_in_page, methods=["GET"], name="sign_in"),
    Route(SIGN_IN_OPTIONS, sign_in_options, methods=["POST"], name="sign_in_options"),
    Route(SIGN_IN, sign_in, methods=["POST"], name="sign_in_verify"),
    Route(ENROLL, enroll_page, methods=["GET"], name="enroll"),
    Route(ENROLL_OPTIONS, enroll_options, methods=["POST"], name="enroll_options"),
    Route(ENROLL, enroll, methods=["POST"], name="enroll_verify"),
    Route(CONFIRM, confirm_page, methods=["GET"], name="confirm"),
    Route(CONFIRM_OPTIONS, confirm_options, methods=["POST"], name="confirm_options"),
    Route(CONFIRM, confirm, methods=["POST"], name="confirm_verify"),
    Route(SIGN_OUT, sign_out, methods=["POST"], name="sign_out"),
]

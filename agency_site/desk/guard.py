"""The desk's web app: pages the backend renders from Jinja2 templates, behind one guard.

``create_app(desk)`` is a Starlette app of every screen's routes; ``DeskMount`` puts it in
front of the backend (``agency_site.py``'s ``api_transformer``): a request under
``paths.DESK`` goes to the desk, anything else to the site as before. The guard
(``DeskGuard``) runs before any route, so a new screen is covered without a line of its own:

1. **Host**: with ``DESK_HOST`` set, any other host gets the site's not-found page (404).
2. **Origin**: a request that names another origin is refused (403, one bounded log line),
   whatever its method: no other site's script reads a desk page, even one the backend's
   CORS would let it (the site's own origins); a state-changing one (POST...) must name
   the desk's origin (``Origin``, else ``Referer``).
3. **Session**: the cookie's session is looked up (``sessions.resolve``: idle and absolute
   limits); every path but the sign-in and enrolment ones (``PUBLIC``) and the static files
   needs one: a page asked without one is sent to the sign-in (303, back here afterwards),
   anything else refused (401). Nothing personal reaches a browser without a session.
4. **Headers** on every answer: the strict policy (``POLICY``: no inline script or style,
   nothing from elsewhere), ``noindex``, ``no-store`` (but the content-hashed static files),
   ``Referrer-Policy: same-origin``.

A screen's handler reads the signed-in person with ``signed_in(request)``, draws a template
with ``render(request, "name.html", ...)``, writes the audit log with ``record(request,
AuditAction.X, lead_id=...)``, and is wrapped in ``requires_fresh_passkey`` when it exports or
erases (the person proves it with the passkey again within ``config.FRESH``).
"""

import asyncio
import datetime as dt
import functools
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit
from zoneinfo import ZoneInfo

import jinja2
import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agency_site import paths
from agency_site.bookings.desk import BookingDesk
from agency_site.desk import audit, sessions, static
from agency_site.desk.audit import AuditAction
from agency_site.desk.config import FRESH, DeskConfig
from agency_site.desk.lead_tools import LeadTools
from agency_site.desk.passkeys import Ceremonies
from agency_site.desk.sessions import SignedIn
from agency_site.forms.declarations import FORM_NAMES
from agency_site.leads.models import utcnow
from agency_site.leads.ratelimit import RateLimiter
from agency_site.rules import AGENCY_TIME_ZONE
from agency_site.site_api import client_address
from agency_site.web_base.request_body import SlowBody, read_body

if TYPE_CHECKING:  # It imports this module.
    from agency_site.desk.privacy_findings import PrivacyTools

logger = logging.getLogger(__name__)

TEMPLATES = Path(__file__).parent / "templates"
AGENCY_ZONE = ZoneInfo(AGENCY_TIME_ZONE)
# As strict as the site's pages, stricter where it can be: the desk's own script and
# stylesheet, nothing inline, nothing from elsewhere, no frame, no <base>.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Robots-Tag": "noindex, nofollow",
    "Referrer-Policy": "same-origin",
}
NO_STORE = "no-store"
# Methods that change nothing: every other one must come from the desk's own pages.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Where a page asked without a session is sent, with its path to come back to.
NEXT_PARAM = "next"
_NEXT_MAX = 500
# A ceremony's JSON body (a passkey's attestation is a few KB).
BODY_MAX = 64 * 1024
# A page's form (a few fields: a booking's answer, a privacy request).
FORM_MAX = 8 * 1024


def _bounded(value: str, limit: int = 80) -> str:
    """A header's value for a log line: printable, short."""
    return "".join(ch if ch.isprintable() else "?" for ch in value[:limit])


def safe_next(value: str | None) -> str:
    """Where to go after a sign-in or a confirmation: a path of the desk, else its inbox
    (never another site: no open redirect)."""
    if not value or len(value) > _NEXT_MAX or not value.isprintable():
        return paths.DESK
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or "\\" in value or "//" in value:
        return paths.DESK
    if parts.path != paths.DESK and not parts.path.startswith(paths.DESK + "/"):
        return paths.DESK
    return value


@dataclass(frozen=True)
class Desk:
    """What the desk's routes need, looked up per request (the database, the limiter)."""

    config: DeskConfig
    engine: Callable[[], sa.Engine]
    limiter: Callable[[], RateLimiter]
    site_url: str
    trusted_hops: int = 0
    clock: Callable[[], dt.datetime] = utcnow
    # Paths anyone may open (the sign-in and enrolment pages and their ceremonies).
    public: frozenset[str] = field(default=frozenset())
    # The lead core's delivery and settings the lead screens use (None: not wired).
    lead_tools: Callable[[], LeadTools] | None = None
    # The signed links' booking desk the bookings calendar answers through, where a
    # person's data lies for the privacy requests, the leads' health details for the
    # figures (None: not wired; runtime.py wires the process's own).
    booking_desk: Callable[[], BookingDesk] | None = None
    privacy_tools: "Callable[[], PrivacyTools] | None" = None
    leads_health: Callable[[], Mapping[str, Any] | None] | None = None

    @property
    def ceremonies(self) -> Ceremonies:
        return Ceremonies(self.config, self.engine())


# --- What a handler uses --------------------------------------------------------------------


def desk_of(request: Request) -> Desk:
    """The desk this request reached."""
    return request.scope["desk"]


def signed_in(request: Request) -> SignedIn:
    """The request's session and person (the guard let only signed-in requests through to a
    screen: a public route gets None)."""
    return request.scope.get("desk_session")


def client_ip(request: Request) -> str:
    """The visitor's address, as the forms resolve it (trusted proxy hops)."""
    peer = request.client.host if request.client else ""
    forwarded = request.headers.getlist("x-forwarded-for")
    return client_address(peer, forwarded, desk_of(request).trusted_hops)


async def record(
    request: Request, action: AuditAction, *, person_id: int | None = None, **ids: Any
) -> None:
    """One line of the audit log by the signed-in person (or ``person_id``, who just signed
    in), ``audit.record``'s ids: ``lead_id``, ``request_id``, ``subject_id``, ``digest``."""
    desk, person = desk_of(request), signed_in(request)
    who = person_id if person_id is not None else (person.person_id if person else None)
    await asyncio.to_thread(audit.record, desk.engine(), who, action, at=desk.clock(), **ids)


async def json_body(request: Request) -> dict[str, Any] | None:
    """A ceremony's JSON object (bounded in size and time), or None."""
    try:
        body = await read_body(request, BODY_MAX)
    except SlowBody:
        return None
    if body is None:
        return None
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


async def form_body(request: Request, limit: int = FORM_MAX) -> dict[str, str]:
    """A page's form (``application/x-www-form-urlencoded``, bounded in size and time), its
    last value of each name; empty when it is none, too long or too slow."""
    try:
        body = await read_body(request, limit)
    except SlowBody:
        return {}
    return dict(parse_qsl((body or b"").decode("utf-8", errors="replace")))


def refusal(code: str, status: int = 400) -> JSONResponse:
    """A ceremony's refusal: ``{"error": code}`` (``_words.html`` has its words)."""
    return JSONResponse({"error": code}, status_code=status)


def is_fresh(request: Request) -> bool:
    """Whether the signed-in person proved it with the passkey within ``FRESH``."""
    person = signed_in(request)
    return person is not None and desk_of(request).clock() - person.fresh_at <= FRESH


def confirm_url(next_path: str) -> str:
    """The confirmation page, coming back to ``next_path`` afterwards."""
    return f"{paths.DESK}/confirm?{urlencode({NEXT_PARAM: safe_next(next_path)})}"


Endpoint = Callable[[Request], Awaitable[Response]]


def requires_fresh_passkey(endpoint: Endpoint) -> Endpoint:
    """Wrap a route that exports or erases (or changes the passkeys): unless the person
    proved it with the passkey within ``FRESH`` (5 minutes), a page is sent to the
    confirmation first (303, back to it afterwards), and a form's POST back to the page it
    was sent from, through the confirmation (the person then presses its button again);
    a script's request gets 403 ``{"error": "fresh"}``."""

    @functools.wraps(endpoint)
    async def guarded(request: Request) -> Response:
        if is_fresh(request):
            return await endpoint(request)
        if "application/json" in request.headers.get("accept", ""):
            return refusal("fresh", 403)
        if request.method in SAFE_METHODS:
            back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        else:
            back = urlsplit(request.headers.get("referer", "")).path
        return RedirectResponse(confirm_url(back), status_code=303)

    return guarded


# --- Templates -------------------------------------------------------------------------------


def environment(url_path_for: Callable[..., Any]) -> jinja2.Environment:
    """The desk's templates: autoescaped, strict about unknown names."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        url=lambda name, **params: str(url_path_for(name, **params)),
        static=static.url,
        paths=paths,
        form_names=FORM_NAMES,
    )
    env.filters["local_time"] = local_time
    return env


def local_time(moment: dt.datetime) -> str:
    """A moment as the agency reads it: its day and time in Spain (``28/11/2026 19:24``)."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return aware.astimezone(AGENCY_ZONE).strftime("%d/%m/%Y %H:%M")


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A page of the desk: ``template`` with ``context``, the person and the desk's names."""
    desk = desk_of(request)
    html = (
        request.scope["desk_templates"]
        .get_template(template)
        .render(
            request=request,
            person=signed_in(request),
            agency=desk.config.rp_name,
            desk_origin=desk.config.origin,
            **context,
        )
    )
    return HTMLResponse(html, status_code=status)


# --- The guard -------------------------------------------------------------------------------


def is_desk_path(path: str) -> bool:
    """Whether a request's path is the desk's."""
    return path == paths.DESK or path.startswith(paths.DESK + "/")


class DeskGuard:
    """Host, origin and session checks and the headers of every desk answer (module doc)."""

    def __init__(
        self,
        app: ASGIApp,
        desk: Desk,
        templates: jinja2.Environment,
        not_found: Callable[[], Response],
    ) -> None:
        self.app, self.desk, self.templates, self.not_found = app, desk, templates, not_found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        config = self.desk.config
        host = request.headers.get("host", "").lower()
        if config.host and host != config.host:
            await self.not_found()(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.setdefault("headers", [])
                names = {name.lower() for name, _ in headers}
                for name, value in HEADERS.items():
                    if name.lower().encode() not in names:
                        headers.append((name.lower().encode(), value.encode()))
                if b"cache-control" not in names:
                    headers.append((b"cache-control", NO_STORE.encode()))
            await send(message)

        if not self._origin_allowed(request):
            logger.warning(
                "Desk: a %s to %s from another origin was refused (Origin %r, Referer %r).",
                request.method,
                _bounded(request.url.path),
                _bounded(request.headers.get("origin", "")),
                _bounded(request.headers.get("referer", "")),
            )
            response = render_in(request, self, "refused.html", 403)
            await response(scope, receive, with_headers)
            return

        scope["desk"] = self.desk
        scope["desk_templates"] = self.templates
        token = request.cookies.get(config.cookie_name)
        person = None
        if token:
            person = await asyncio.to_thread(
                sessions.resolve,
                self.desk.engine(),
                token,
                self.desk.clock(),
                config.idle,
                config.max_age,
            )
        scope["desk_session"] = person
        path = scope["path"]
        if person is None and path not in self.desk.public and not static.is_static(path):
            response = self._ask_sign_in(request)
            await response(scope, receive, with_headers)
            return
        await self.app(scope, receive, with_headers)

    def _origin_allowed(self, request: Request) -> bool:
        """No other origin named; a state-changing request names the desk's own."""
        own = self.desk.config.origin
        sent = request.headers.get("origin")
        if sent is not None and sent != own:
            return False
        if request.method in SAFE_METHODS:
            return True
        if sent == own:
            return True
        referer = request.headers.get("referer", "")
        return referer == own or referer.startswith(own + "/")

    def _ask_sign_in(self, request: Request) -> Response:
        if request.method in ("GET", "HEAD") and "application/json" not in request.headers.get(
            "accept", ""
        ):
            back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            query = "" if back == paths.DESK else "?" + urlencode({NEXT_PARAM: back})
            return RedirectResponse(f"{paths.DESK}/sign-in{query}", status_code=303)
        if "application/json" in request.headers.get("accept", ""):
            return refusal("session", 401)
        return render_in(request, self, "session_ended.html", 401)


def render_in(request: Request, guard: DeskGuard, template: str, status: int) -> HTMLResponse:
    """A page the guard answers itself (before a route: no person)."""
    request.scope.setdefault("desk", guard.desk)
    request.scope.setdefault("desk_templates", guard.templates)
    request.scope.setdefault("desk_session", None)
    return render(request, template, status)


class DeskMount:
    """The desk in front of the backend: its paths to the desk app, the rest to ``app``."""

    def __init__(self, desk_app: ASGIApp, app: ASGIApp) -> None:
        self.desk_app, self.app = desk_app, app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and is_desk_path(scope["path"]):
            await self.desk_app(scope, receive, send)
            return
        await self.app(scope, receive, send)


def create_app(
    desk: Desk,
    routes: Iterable[BaseRoute],
    not_found: Callable[[], Response],
) -> Starlette:
    """The desk's Starlette app: ``routes`` behind the guard."""
    app = Starlette(routes=list(routes))
    templates = environment(app.url_path_for)

    async def page_not_found(request: Request, _error: Exception) -> Response:
        request.scope.setdefault("desk", desk)
        request.scope.setdefault("desk_templates", templates)
        request.scope.setdefault("desk_session", None)
        return render(request, "not_found.html", 404)

    app.add_exception_handler(404, page_not_found)
    app.add_middleware(DeskGuard, desk=desk, templates=templates, not_found=not_found)
    return app


def query_string(params: Mapping[str, Any]) -> str:
    """``?a=1&b=2`` of the params that have a value ("" when none)."""
    kept = {name: value for name, value in params.items() if value not in (None, "")}
    return "?" + urlencode(kept) if kept else ""

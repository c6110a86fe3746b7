"""``POST /_site/client-errors``: a reader's JavaScript error, in the backend's log.

A reader never opens the websocket (``reflex_ext/lazy_socket.py``), so the browser's
error reports, which stock Reflex sends over it, come here instead as a small
``navigator.sendBeacon``. Nothing about the visitor is stored: the report becomes one
WARNING line of bounded length (the page path and the error's first characters, control
characters escaped so a report cannot forge log lines). The body is read up to
``MAX_BODY_BYTES`` and no further, within ``BODY_TIMEOUT_S``; each address may report
``PER_ADDRESS`` times a minute, counted in this process's memory (a reader's page never
depends on Redis).
"""

import json
import logging
from collections.abc import Iterable

from limits.aio.storage import MemoryStorage
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agency_site.leads.ratelimit import RateLimiter
from agency_site.paths import CLIENT_ERRORS
from agency_site.reflex_ext.lazy_socket import MAX_REPORT_CHARS
from agency_site.site_api import client_address, origin_allowed
from agency_site.web_base.request_body import SlowBody, read_body

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 4096
BODY_TIMEOUT_S = 5.0  # A report is one small beacon.
PER_ADDRESS = 10
LOGGED_CHARS = 500


def one_line(text: object, limit: int) -> str:
    """``text`` as one printable line of at most ``limit`` characters."""
    escaped = str(text).encode("unicode_escape").decode("ascii")
    return escaped if len(escaped) <= limit else escaped[: limit - 1] + "…"


def parse_report(body: bytes) -> tuple[str, str]:
    """(page, error) of a report; what cannot be read is reported as such."""
    try:
        report = json.loads(body.decode("utf-8", errors="replace"))
    except ValueError:
        return "?", "(not a JSON report)"
    if not isinstance(report, dict):
        return "?", "(not a JSON report)"
    return str(report.get("page", "?"))[:200], str(report.get("info", ""))[:MAX_REPORT_CHARS]


def create_app(
    *, allowed_origins: Iterable[str], trusted_hops: int, body_timeout_s: float = BODY_TIMEOUT_S
) -> Starlette:
    """The endpoint, refusing other sites' pages, large bodies and chatty addresses."""
    allowed = tuple(allowed_origins)
    limiter = RateLimiter(MemoryStorage(), per_ip=PER_ADDRESS, window_s=60)

    async def report(request: Request) -> Response:
        if not origin_allowed(request.headers, allowed):
            return Response(status_code=403)
        peer = request.client.host if request.client else ""
        client_ip = client_address(peer, request.headers.getlist("x-forwarded-for"), trusted_hops)
        if not await limiter.hit(client_ip):
            return Response(status_code=429)
        try:
            body = await read_body(request, MAX_BODY_BYTES, body_timeout_s)
        except SlowBody:
            return Response(status_code=408)
        if body is None:
            return Response(status_code=413)
        page, error = parse_report(body)
        logger.warning(
            "Browser error on %s: %s", one_line(page, 100), one_line(error, LOGGED_CHARS)
        )
        return Response(status_code=204)

    return Starlette(routes=[Route(CLIENT_ERRORS, report, methods=["POST"])])


def client_errors_api() -> Starlette:
    """The endpoint of this backend, from the settings."""
    from agency_site.reflex_ext.internals import get_config
    from agency_site.settings import get_settings

    return create_app(
        allowed_origins=get_settings().allowed_origins,
        trusted_hops=get_config().trusted_proxy_hops,
    )

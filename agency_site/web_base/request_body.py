"""A request's body read within a length and a time: every endpoint that reads one.

The forms (``site_api``), the booking buttons (``bookings/link_page.py``) and the
browser-error reports (``client_errors``) all read their body here, so a client reaching a
backend directly cannot send an endless or trickling one.
"""

import asyncio

from starlette.requests import Request

# Longest a client may take to send a form's body (a few KB at most).
BODY_TIMEOUT_S = 10.0


class SlowBody(Exception):
    """The client did not send its body in time."""


async def read_body(
    request: Request, limit: int, timeout_s: float = BODY_TIMEOUT_S
) -> bytes | None:
    """The request body, or None when it is longer than ``limit`` bytes (declared or, for
    a chunked body, counted as it arrives: the rest is not read).

    Every endpoint reading a body uses it (forms, booking buttons, error reports), so a
    client reaching a backend directly cannot send an endless or trickling one. Raises
    ``SlowBody`` when the whole body has not arrived within ``timeout_s``.
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

"""Where the pages reach the backend: their own origin when one server serves both.

``reflex run --env prod --single-port`` (``make prod``) and a proxy in front of pages and
backends (``make stack``, the generated Caddy and nginx sites) put the pages and the backend
on **one origin**: ``REFLEX_API_URL`` and ``REFLEX_DEPLOY_URL`` are the same
``scheme://host:port``. Such a build reaches the backend at the origin the page was opened
on, whichever name the visitor used (``localhost``, ``127.0.0.1``, the ``0.0.0.0`` Reflex
prints, the server's LAN address): the websocket (``utils/state.js``'s ``getBackendURL``,
patched in ``lazy_socket.py``), the forms' ``action`` and HTTP fallback, the booking form's
free slots. Baking ``http://localhost:3000`` would leave a visitor at ``127.0.0.1:3000`` with
a form the browser refuses to post cross-origin.

A build whose backend is elsewhere (a static host or CDN for the pages and
``api.<domain>`` for the backend) keeps the absolute ``REFLEX_API_URL``: **split origins**.

On the backend's side, a request whose ``Origin`` (or ``Referer``) names the host it was sent
to is same-origin and always allowed (``own_origin``), besides the configured origins: a
page of another site cannot send it.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from agency_site.reflex_ext.internals import get_config
from agency_site.settings import origin


def one_origin(api_url: str | None = None, deploy_url: str | None = None) -> bool:
    """Whether the pages and the backend share one origin (Reflex's config by default)."""
    config = get_config()
    api = api_url if api_url is not None else config.api_url
    site = deploy_url if deploy_url is not None else (config.deploy_url or "")
    return origin(api) == origin(site)


def backend_base() -> str:
    """What the pages put before a backend path: nothing on one origin (the page's own
    origin), else ``REFLEX_API_URL`` without its trailing slash."""
    return "" if one_origin() else get_config().api_url.rstrip("/")


def own_origin(sent: str, headers: Mapping[str, str]) -> bool:
    """Whether the origin a request says it comes from is the host it was sent to."""
    host = headers.get("host")
    parts = urlsplit(sent)
    return bool(host) and parts.scheme in ("http", "https") and parts.netloc == host


# ``getBackendURL`` in Reflex's utils/state.js, where it has parsed the URL baked in env.json.
GET_BACKEND_URL_ANCHOR = "  const endpoint = new URL(url_str);\n"
_ON_PAGE_ORIGIN = """  if (typeof window !== "undefined" && $ONE_ORIGIN) {
    // One server serves the pages and the backend (agency_site/reflex_ext/backend_origin.py):
    // the backend is at the page's own origin, whichever name the visitor used.
    endpoint.protocol = endpoint.protocol.startsWith("ws")
      ? window.location.protocol.replace("http", "ws")
      : window.location.protocol;
    endpoint.host = window.location.host;
    return endpoint;
  }
"""


def get_backend_url_edit() -> tuple[str, str]:
    """The anchor in ``getBackendURL`` and what replaces it: the page's origin on a
    one-origin build (``ONE_ORIGIN`` baked as ``true``/``false``)."""
    flag = "true" if one_origin() else "false"
    return GET_BACKEND_URL_ANCHOR, GET_BACKEND_URL_ANCHOR + _ON_PAGE_ORIGIN.replace(
        "$ONE_ORIGIN", flag
    )


def socket_origins(allowed: Iterable[str]) -> Callable[..., bool]:
    """python-engineio's origin check for the websocket: a configured origin, or the
    host the handshake was sent to (``own_origin``)."""
    accepted = frozenset(allowed)

    def check(sent: str | None, environ: Mapping[str, Any] | None = None) -> bool:
        if not sent:
            return False
        host = (environ or {}).get("HTTP_HOST", "")
        return sent in accepted or own_origin(sent, {"host": host})

    return check


def accept_own_origin(app: Any, allowed: Iterable[str]) -> None:
    """Let ``app``'s websocket accept its own host besides ``allowed`` (Reflex passes
    ``cors_allowed_origins`` to python-engineio as a fixed list)."""
    sio = getattr(app, "sio", None)
    if sio is None:
        msg = "The app has no socket.io server (no state?): its origins cannot be set."
        raise RuntimeError(msg)
    sio.eio.cors_allowed_origins = socket_origins(allowed)

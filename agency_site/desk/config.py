"""Where the desk answers and how its sign-in behaves, derived once from the settings.

The desk's **origin** (``scheme://host[:port]``) is what WebAuthn binds a passkey to (its
host name is the relying party's id) and what every state-changing request's ``Origin``
must be: ``DESK_HOST`` with the backend URL's scheme when a deployer sets one, else the
backend's own public origin (``REFLEX_API_URL``, or what Reflex derives from its port:
``http://localhost:8000`` under ``make run``). A passkey needs a domain name: the desk is
opened at ``localhost``, never at ``127.0.0.1`` or ``0.0.0.0`` (docs/desk.md).
"""

import datetime as dt
from dataclasses import dataclass
from urllib.parse import urlsplit

from agency_site import paths
from agency_site.settings import Settings, origin

# How long a ceremony may take, from its options to its answer.
CHALLENGE_VALID = dt.timedelta(minutes=5)
# An invite's link works this long, once.
INVITE_VALID = dt.timedelta(hours=24)
# Export, erase and the passkeys' changes ask for the passkey again unless the session's
# person proved it this recently (``web.requires_fresh_passkey``).
FRESH = dt.timedelta(minutes=5)


@dataclass(frozen=True)
class DeskConfig:
    """The desk of one site: its origin, its host check, its sessions' limits."""

    origin: str  # https://desk.example.es, http://localhost:8000
    # DESK_HOST: the only Host the desk answers on (None: any, the backend's own).
    host: str | None = None
    rp_name: str = "Impulso Digital"  # What the browser's passkey dialog names.
    idle: dt.timedelta = dt.timedelta(minutes=30)
    max_age: dt.timedelta = dt.timedelta(hours=12)
    sign_in_attempts: int = 20
    sign_in_window_s: int = 600
    audit_months: int = 24

    @property
    def rp_id(self) -> str:
        """WebAuthn's relying party id: the origin's host name (no port)."""
        return urlsplit(self.origin).hostname or ""

    @property
    def secure(self) -> bool:
        """Whether the desk is served over https (its cookie is then ``Secure``)."""
        return self.origin.startswith("https://")

    @property
    def cookie_name(self) -> str:
        """The session cookie's name: ``__Host-`` prefixed under https, so that only this
        host, over https, can ever have set it (never a sibling subdomain)."""
        return "__Host-desk" if self.secure else "desk_session"

    @property
    def cookie_path(self) -> str:
        """The cookie's ``Path``: the desk's under http; ``/`` under https, the only one a
        ``__Host-`` cookie may have (it stays HttpOnly: nothing else of the backend reads it)."""
        return "/" if self.secure else paths.DESK

    @property
    def cookie_attributes(self) -> dict:
        """What the session cookie is set and deleted with (a browser drops a cookie only
        when they match): its path, ``Secure`` under https, HttpOnly, SameSite=Strict."""
        return {"path": self.cookie_path, "secure": self.secure, "httponly": True,
                "samesite": "strict"}  # fmt: skip

    def url(self, path: str = paths.DESK) -> str:
        """The absolute URL of a desk path."""
        return f"{self.origin}{path}"


def desk_origin(settings: Settings, api_url: str) -> str:
    """The desk's origin: ``DESK_HOST`` with ``api_url``'s scheme, else ``api_url``'s origin."""
    if settings.desk.host:
        return f"{urlsplit(api_url).scheme}://{settings.desk.host}"
    return origin(api_url)


def desk_config(settings: Settings, api_url: str) -> DeskConfig:
    """The desk of these settings, its backend public at ``api_url``."""
    desk = settings.desk
    return DeskConfig(
        origin=desk_origin(settings, api_url),
        host=desk.host or None,
        rp_name=settings.agency.name,
        idle=dt.timedelta(minutes=desk.idle_minutes),
        max_age=dt.timedelta(hours=desk.max_hours),
        sign_in_attempts=desk.sign_in_attempts,
        sign_in_window_s=desk.sign_in_window_seconds,
        audit_months=desk.audit_months,
    )

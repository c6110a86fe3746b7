"""The owner's desk (``DESK_*``): its host, its sign-ins, its audit log's keeping."""

import ipaddress
from urllib.parse import urlsplit

from pydantic import PositiveInt, field_validator
from pydantic_settings import BaseSettings

from agency_site.settings.env_file import section


class DeskSettings(BaseSettings):
    """The owner's desk (``DESK_*``, ``agency_site/desk/``, docs/desk.md): where it answers,
    how long a sign-in lasts, how long its audit log is kept."""

    model_config = section("DESK_")

    # The host name (and port, if not the scheme's) the desk answers on, e.g.
    # desk.example.es; any other host gets the not-found page. Unset: the backend's own
    # origin (REFLEX_API_URL's). A passkey needs a domain name, never an IP address.
    host: str = ""
    # A session ends after this many minutes without a request, and this many hours after
    # its sign-in whatever happens (a new sign-in with the passkey then).
    idle_minutes: PositiveInt = 30
    max_hours: PositiveInt = 12
    # Sign-in and enrolment requests per visitor address in any window of this many seconds.
    sign_in_attempts: PositiveInt = 20
    sign_in_window_seconds: PositiveInt = 600
    # Months a line of the desk's audit log is kept (both privacy policies print it).
    audit_months: PositiveInt = 24

    @field_validator("host")
    @classmethod
    def _a_host(cls, value: str) -> str:
        value = value.strip().lower().rstrip("/")
        if not value:
            return value
        name = urlsplit(f"//{value}").hostname
        if name is None or "/" in value or "@" in value or _is_ip_address(name):
            msg = (
                "DESK_HOST is a domain name with an optional port (desk.example.es), not "
                f"{value!r}: a passkey is bound to a domain name, never to an IP address."
            )
            raise ValueError(msg)
        return value


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True

"""How a setting's text becomes a value: a URL without its final slash, an origin, a
comma-separated list of secrets or of dates."""

import datetime as dt
from urllib.parse import urlsplit

from pydantic import SecretStr


def strip_slash(value: str) -> str:
    return value.strip().rstrip("/")


def origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def iso_days(value: str) -> str:
    """A comma-separated list of ISO dates (YYYY-MM-DD), checked and normalised."""
    days = [part.strip() for part in value.split(",") if part.strip()]
    for day in days:
        dt.date.fromisoformat(day)  # ValueError: pydantic reports the setting.
    return ",".join(days)


def secret_list(value: SecretStr) -> tuple[str, ...]:
    """A comma-separated list of secrets, in order, blanks dropped."""
    return tuple(part.strip() for part in value.get_secret_value().split(",") if part.strip())

"""Runtime configuration from environment variables (documented in ``.env.example``).

Only the backend reads these; none of them reaches the frontend bundle.
"""

import hashlib
import os
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

# Public URL of the site when REFLEX_DEPLOY_URL is unset (the dev server).
DEFAULT_SITE_URL = "http://localhost:3000"


class EmailJSSettings(BaseModel):
    """Credentials and templates of the EmailJS account the forms deliver through."""

    model_config = ConfigDict(frozen=True)

    api_base: str = "https://api.emailjs.com"
    service_id: str = ""
    public_key: str = ""
    private_key: str = ""
    contact_template_id: str = ""
    booking_template_id: str = ""

    @property
    def configured(self) -> bool:
        """Whether delivery can be attempted (the private key is optional)."""
        return all(
            (self.service_id, self.public_key, self.contact_template_id, self.booking_template_id)
        )

    @property
    def fingerprint(self) -> str:
        """A short digest of the settings, to tell whether the configuration has changed."""
        joined = "\n".join(
            (
                self.api_base,
                self.service_id,
                self.public_key,
                self.private_key,
                self.contact_template_id,
                self.booking_template_id,
            )
        )
        return hashlib.sha256(joined.encode()).hexdigest()[:16]


class LeadsSettings(BaseModel):
    """Retry schedule and abuse limits of the lead forms."""

    model_config = ConfigDict(frozen=True)

    send_timeout_s: float = 10.0
    retry_base_s: float = 60.0  # First retry of a failed e-mail after this long...
    retry_max_s: float = 3600.0  # ...doubling each time up to this cap.
    retry_poll_s: float = 15.0  # How often each backend worker looks for due leads.
    rate_limit_per_client: int = 5  # Submissions per browser session and window.
    rate_limit_per_ip: int = 20  # Submissions per IP address and window (offices share IPs).
    rate_limit_window_s: float = 600.0


class Settings(BaseModel):
    """Everything the backend is configured with."""

    model_config = ConfigDict(frozen=True)

    site_url: str  # Without trailing slash; every absolute URL of the site starts with it.
    emailjs: EmailJSSettings
    leads: LeadsSettings


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, "").strip() or default


def _number(name: str, default: float) -> float:
    """A positive number from the environment, or the default when unset."""
    value = float(_env(name, str(default)))
    if value <= 0:
        raise ValueError(f"{name} must be a positive number, not {value}")
    return value


def load_settings() -> Settings:
    """Read the settings from the environment now."""
    return Settings(
        site_url=_env("REFLEX_DEPLOY_URL", DEFAULT_SITE_URL).rstrip("/"),
        emailjs=EmailJSSettings(
            api_base=_env("EMAILJS_API_BASE", "https://api.emailjs.com").rstrip("/"),
            service_id=_env("EMAILJS_SERVICE_ID"),
            public_key=_env("EMAILJS_PUBLIC_KEY"),
            private_key=_env("EMAILJS_PRIVATE_KEY"),
            contact_template_id=_env("EMAILJS_CONTACT_TEMPLATE_ID"),
            booking_template_id=_env("EMAILJS_BOOKING_TEMPLATE_ID"),
        ),
        leads=LeadsSettings(
            send_timeout_s=_number("EMAILJS_TIMEOUT_SECONDS", 10),
            retry_base_s=_number("LEADS_RETRY_BASE_SECONDS", 60),
            retry_max_s=_number("LEADS_RETRY_MAX_SECONDS", 3600),
            retry_poll_s=_number("LEADS_RETRY_POLL_SECONDS", 15),
            rate_limit_per_client=int(_number("LEADS_RATE_LIMIT_PER_CLIENT", 5)),
            rate_limit_per_ip=int(_number("LEADS_RATE_LIMIT_PER_IP", 20)),
            rate_limit_window_s=_number("LEADS_RATE_LIMIT_WINDOW_SECONDS", 600),
        ),
    )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings read once per process."""
    return load_settings()

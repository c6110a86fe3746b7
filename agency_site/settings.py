"""Runtime configuration from environment variables (documented in ``.env.example``).

Only the backend reads these; none of them reaches the frontend bundle.
"""

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


class Settings(BaseModel):
    """Everything the backend is configured with."""

    model_config = ConfigDict(frozen=True)

    site_url: str  # Without trailing slash; every absolute URL of the site starts with it.
    emailjs: EmailJSSettings


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, "").strip() or default


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
    )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings read once per process."""
    return load_settings()

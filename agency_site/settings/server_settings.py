"""The servers' own variables the site also needs: Reflex's (``REFLEX_*``: its URLs, the
database, Redis, proxy hops) and Granian's (``GRANIAN_*``: worker processes)."""

import os

from pydantic import Field, NonNegativeInt, PositiveInt, SecretStr, field_validator
from pydantic_settings import BaseSettings

from agency_site.settings.env_file import section
from agency_site.settings.text_values import strip_slash

# Reflex's default ports; with REFLEX_DEPLOY_URL / REFLEX_API_URL unset, the URLs are
# localhost on the ports Reflex runs on (``reflex run --frontend-port/--backend-port`` and
# ``--single-port`` put them in REFLEX_FRONTEND_PORT / REFLEX_BACKEND_PORT, then reload rxconfig).
DEFAULT_FRONTEND_PORT = 3000
DEFAULT_BACKEND_PORT = 8000
# In the git-ignored data folder, never packed into backend.zip (site_export.py).
DEFAULT_DB_URL = "sqlite:///data/reflex.db"


def local_url(port_variable: str, default_port: int) -> str:
    """Reflex's own URL when none is configured: localhost on the port it runs on."""
    port = os.environ.get(port_variable, "").strip() or default_port
    return f"http://localhost:{port}"


# The URL settings Reflex derives from its ports when they are not configured.
URL_SETTINGS = ("api_url", "deploy_url")


class ReflexSettings(BaseSettings):
    """Reflex's own variables that the site also needs (``REFLEX_*``)."""

    model_config = section("REFLEX_")

    # Public URL: canonical, Open Graph, sitemap. Unset: the frontend's port on localhost.
    deploy_url: str = Field(
        default_factory=lambda: local_url("REFLEX_FRONTEND_PORT", DEFAULT_FRONTEND_PORT)
    )
    # Where browsers reach the backend; baked in at export. Unset: the backend's port.
    api_url: str = Field(
        default_factory=lambda: local_url("REFLEX_BACKEND_PORT", DEFAULT_BACKEND_PORT)
    )
    db_url: SecretStr = SecretStr(DEFAULT_DB_URL)  # May carry a password.
    redis_url: SecretStr | None = None  # May carry a password.
    trusted_proxy_hops: NonNegativeInt = 0
    # Largest websocket message the backend reads (Reflex's own variable; socket.io's default
    # is 1 MB). A form submission is a few KB; a bigger message closes the socket unread.
    socket_max_http_buffer_size: PositiveInt = 32 * 1024

    _slash = field_validator("deploy_url", "api_url")(strip_slash)

    @property
    def configured_urls(self) -> dict[str, str]:
        """``api_url``/``deploy_url`` as set in the environment or ``.env``, only those.

        rxconfig.py passes just these to Reflex, which derives the others from the ports
        it runs on (``reflex run --single-port``, ``--frontend-port``, ``--backend-port``).
        """
        return {name: getattr(self, name) for name in URL_SETTINGS if name in self.model_fields_set}


class GranianSettings(BaseSettings):
    """The backend server's own variables (``GRANIAN_*``) that the site checks."""

    model_config = section("GRANIAN_")

    # Worker processes per backend. Unset: 1 without Redis, 2 with it (Reflex would
    # otherwise start up to 8 as soon as REFLEX_REDIS_URL is set).
    workers: PositiveInt | None = None


# Workers per backend process when they share Redis and nothing else is said.
DEFAULT_WORKERS_WITH_REDIS = 2

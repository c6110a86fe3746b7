"""The production topology (``DEPLOY_*``): where the site and its data live, the backends
the web server balances over, the access log, the certificates."""

import ipaddress

from pydantic import PositiveInt, field_validator
from pydantic_settings import BaseSettings

from agency_site.settings.env_file import section


class DeploySettings(BaseSettings):
    """How the production topology is laid out (``DEPLOY_*``), for ``deploy/`` and ``make stack``."""

    model_config = section("DEPLOY_")

    # Where the web server finds the exported static site (frontend.zip unpacked).
    static_root: str = "/srv/agency_site/frontend"
    # The backend processes the web server balances over: host:port, comma-separated.
    backends: str = "127.0.0.1:8001,127.0.0.1:8002"
    # The address the backend processes listen on (systemd units): 127.0.0.1 when the web
    # server runs on the same host; the backend host's private address (e.g. 10.0.0.5) when
    # it runs on another, with a firewall letting only the web server reach the ports.
    backend_host: str = "127.0.0.1"
    # Where the site's code and .env live on the backend hosts, and who runs it (systemd).
    app_dir: str = "/srv/agency_site/app"
    user: str = "agency"
    # The only folders the hardened units may write: the backend host's data (a SQLite
    # leads database: REFLEX_DB_URL=sqlite:////var/lib/agency_site/reflex.db) and the backups.
    data_dir: str = "/var/lib/agency_site"
    backup_dir: str = "/var/backups/agency_site"
    # Days a nightly backup of the leads is kept (the privacy policy states this many days):
    # older ones are deleted every night, whether or not that night's backup worked.
    backup_keep: PositiveInt = 14
    # The web server's access log (JSON, addresses shortened) that `python -m
    # agency_site.report ingest` reads into daily counts; rotated daily, kept 30 days.
    access_log: str = "/var/log/agency_site/access.log"
    # nginx only (Caddy gets its certificate by itself): default Let's Encrypt paths.
    tls_certificate: str = ""
    tls_certificate_key: str = ""

    @field_validator("backend_host")
    @classmethod
    def _an_ip_address(cls, value: str) -> str:
        value = value.strip()
        try:
            ipaddress.ip_address(value)
        except ValueError:
            msg = f"DEPLOY_BACKEND_HOST must be an IP address (127.0.0.1, 10.0.0.5...), not {value!r}."
            raise ValueError(msg) from None
        return value

    @field_validator("app_dir", "data_dir", "backup_dir", "access_log")
    @classmethod
    def _an_absolute_folder(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith("/"):
            msg = f"DEPLOY_APP_DIR, DEPLOY_DATA_DIR, DEPLOY_BACKUP_DIR and DEPLOY_ACCESS_LOG are absolute paths, not {value!r}."
            raise ValueError(msg)
        return value

    @property
    def backend_addresses(self) -> tuple[str, ...]:
        """Every backend address, in order."""
        return tuple(part.strip() for part in self.backends.split(",") if part.strip())

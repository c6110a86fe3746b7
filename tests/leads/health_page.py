"""The health page as the tests read it: its details, as the owner sees them (with the
``LEADS_HEALTH_TOKEN``), or its public answer (the status only)."""

import httpx

from agency_site.leads.health import LeadsHealth, leads_api
from agency_site.paths import LEADS_HEALTH
from tests.run_async import run

OWNER_TOKEN = "the-owner-s-health-token-of-the-tests"


def get_health(checks: LeadsHealth, token: str | None = OWNER_TOKEN) -> httpx.Response:
    """``GET /_site/leads/health`` of ``checks`` (its token ``OWNER_TOKEN``), sent with
    ``token`` as a bearer token (None: none, as anyone asks)."""
    app = leads_api(checks, token=lambda: OWNER_TOKEN)
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}

    async def request() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://site") as client:
            return await client.get(LEADS_HEALTH, headers=headers)

    return run(request())

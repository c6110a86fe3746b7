"""Behind the stack's web server, the rate limit counts the visitor's real address, in Redis,
across every worker."""

import uuid

import httpx

from agency_site.forms.declarations import HONEYPOT_FIELD
from agency_site.settings import load_settings
from tests.stack.conftest import Stack

CONTACT_POST = "/_site/forms/contact"
# A person's browser posting the form with no script running (site_api.py `_no_script`):
# the form token is not asked of it.
NO_SCRIPT_POST = {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-User": "?1"}


def _client(address: str, stack: Stack) -> httpx.Client:
    """A visitor whose connections leave from loopback ``address``."""
    return httpx.Client(
        base_url=f"http://127.0.0.1:{stack.port}",
        transport=httpx.HTTPTransport(local_address=address),
        headers={"Origin": stack.url, "Host": f"localhost:{stack.port}"},
    )


def _post(client: httpx.Client, email: str) -> int:
    # A forged X-Forwarded-For on every request: the web server replaces it with the real one.
    forged = f"10.{uuid.uuid4().int % 250}.0.1"
    response = client.post(
        CONTACT_POST,
        data={"email": email, HONEYPOT_FIELD: ""},
        headers={"X-Forwarded-For": forged, **NO_SCRIPT_POST},
    )
    return response.status_code


def test_an_abuser_is_stopped_and_other_visitors_are_not(stack: Stack) -> None:
    limit = load_settings().leads.rate_limit_per_ip
    with _client("127.0.0.2", stack) as abuser:
        # Junk counts too: the limit is reached without one valid submission.
        statuses = [_post(abuser, "no-es-un-correo") for _ in range(limit)]
        assert set(statuses) == {400}, statuses
        # Spread over 2 backends x 2 workers by the web server, the count is still one (Redis): a
        # valid submission past the limit is not stored, only asked for a proof of work
        # (202: leads/spam/challenge.py), which a person solves and a flood pays for.
        assert _post(abuser, "abuser@example.com") == 202
    with _client("127.0.0.3", stack) as visitor:
        assert _post(visitor, "stack-other-visitor@example.com") == 303  # Stored (PRG).

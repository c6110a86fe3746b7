"""Erasure follows the lead: ``leads erase`` queues a ``lead.erased`` message, in the
erasing transaction, for each endpoint a message of the person's leads may have reached;
it carries no personal data, goes to Standard Webhooks endpoints only (a chat or a CRM
skips it) and is retried like any message. Each receiver is a real local HTTP server."""

import json

import jsonschema
import pytest
from pytest_httpserver import HTTPServer
from standardwebhooks import Webhook

from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import utcnow
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks import payload as webhook_payload
from agency_site.leads.webhooks import queue as webhook_queue
from agency_site.leads.webhooks.channel import WebhookChannel
from tests.lead_store import LEASE, add_lead_id
from tests.leads.test_webhooks import AT_ONCE, HOOK, SECRET, received, receiver, rows, send

__all__ = ["receiver"]  # The receiver fixture, used by name.

ANA = "ana@example.com"


def lead(store: LeadStore, email: str, key: str | None = None) -> int:
    """A lead with a random-looking idempotency key, as browsers make them."""
    fields = {"name": "Anna", "email": email, "message": "Hola"}
    key = key or f"k{abs(hash(email)) % 10**8:08d}"
    source = {"page": "/ca/contacte", "utm_source": "newsletter"}
    return add_lead_id(
        store,
        LeadKind.HERO,
        fields,
        claim_token=None,
        lease=LEASE,
        idempotency_key=key,
        source=source,
    )


def test_an_erased_person_s_leads_are_announced_signed_with_their_ids_and_nothing_personal(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("")
    receiver.expect_request("/chat").respond_with_data("ok")
    hooks = WebhookChannel(
        store.engine,
        (receiver.url_for(HOOK), "slack+" + receiver.url_for("/chat")),
        (SECRET,),
        policy=AT_ONCE,
    )
    hooks.register()
    first = lead(store, ANA, "k1")
    second = lead(store, "ANA@example.com", "k2")
    lead(store, "pau@example.com")
    assert send(hooks) == 6
    receiver.clear_log()

    assert store.erase_email(ANA) == 2
    assert send(hooks) == 2  # Sent to the webhook, skipped by the chat.
    [(request, body)] = received(receiver)
    assert request.path == HOOK
    payload = Webhook(SECRET).verify(body, dict(request.headers))
    jsonschema.validate(payload, webhook_payload.schema())
    assert payload["type"] == "lead.erased"
    assert payload["data"]["lead_ids"] == [first, second]
    assert payload["data"]["webhook_ids"] == ["msg_k1_lead_created", "msg_k2_lead_created"]
    assert request.headers["webhook-id"].endswith("_lead_erased")
    for personal in ("ana", "hola", "example", "newsletter", "/ca/"):
        assert personal not in body.lower()
    erased = [row for row in rows(store) if row.event == "lead.erased"]
    assert sorted(row.status for row in erased) == ["sent", "skipped"]


def test_leads_whose_messages_never_left_announce_no_erasure(
    store: LeadStore, receiver: HTTPServer
) -> None:
    hooks = WebhookChannel(store.engine, (receiver.url_for(HOOK),), (SECRET,), policy=AT_ONCE)
    hooks.register()
    lead(store, ANA)  # Queued, never tried: the receiver knows nothing of it.
    store.erase_email(ANA)
    assert rows(store) == []


def test_an_erasure_message_outlives_later_deletes_and_is_retried_until_received(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("")
    hooks = WebhookChannel(store.engine, (receiver.url_for(HOOK),), (SECRET,), policy=AT_ONCE)
    hooks.register()
    lead(store, ANA)
    lead(store, "pau@example.com")
    send(hooks)
    store.erase_email(ANA)
    receiver.clear()
    receiver.expect_request(HOOK).respond_with_data("down", status=503)
    assert send(hooks) == 0
    store.erase_email("pau@example.com")  # Another erasure's delete keeps the first message.
    store.purge(utcnow())
    receiver.clear()
    receiver.expect_request(HOOK).respond_with_data("")
    assert send(hooks) == 2
    bodies = [json.loads(body) for _, body in received(receiver)]
    assert [body["type"] for body in bodies] == ["lead.erased", "lead.erased"]
    assert len({request.headers["webhook-id"] for request, _ in received(receiver)}) == 2
    first = [row for row in rows(store) if row.attempts == 2]
    assert len(first) == 1 and first[0].status == "sent"


def test_an_erasure_body_with_a_lead_s_data_is_refused_by_the_schema() -> None:
    now = utcnow()
    data = webhook_payload.erasure([3, 1], ["msg_k_lead_created"], now)
    body = webhook_payload.erased_body(now, data)
    jsonschema.validate(body, webhook_payload.schema())
    assert data["lead_ids"] == [1, 3]
    for personal in ({"fields": {"email": "a@b.es"}}, {"email": "a@b.es"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(body | {"data": data | personal}, webhook_payload.schema())
    created = {"type": "lead.created", "version": 1, "timestamp": body["timestamp"]}
    with pytest.raises(jsonschema.ValidationError):  # A lead's event needs a lead's data.
        jsonschema.validate(created | {"data": data}, webhook_payload.schema())


def test_nothing_to_announce_for_no_lead(store: LeadStore) -> None:
    with store.engine.begin() as connection:
        assert webhook_queue.queue_erasure(connection, []) == []

"""A **Standard Webhooks** endpoint (``https://…``, or ``http://``): the JSON body
(``webhooks/payload.py``), signed with each secret of ``LEADS_WEBHOOK_SECRET`` (``signed``:
never sent without it). ``lead.erased`` reaches it signed too: the receiver is told."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from standardwebhooks import Webhook

from agency_site.leads.models import utcnow
from agency_site.leads.webhooks import payload as webhook_payload
from agency_site.leads.webhooks.destinations.outgoing import Outgoing, answer_json, bounded


@dataclass(frozen=True)
class StandardWebhook:
    """The JSON body, signed per Standard Webhooks."""

    url: str
    signed: bool = True
    label: str = "webhook"
    erases: bool = True  # The receiver is told (``lead.erased``, signed).

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing:
        body = webhook_payload.encode(payload)
        return Outgoing(self.url, body.encode(), sign(signed_by, msg_id, body))

    def remote_id(self, response: httpx.Response) -> str | None:
        """The receiver's own id of the message, when its JSON answer has one (``id``)."""
        answer = answer_json(response)
        return bounded(answer.get("id")) if isinstance(answer, dict) else None


def sign(signed_by: Sequence[Webhook], msg_id: str, body: str) -> dict[str, str]:
    """The Standard Webhooks headers of ``body``: one ``v1`` signature per secret."""
    stamp = utcnow()
    signatures = " ".join(signer.sign(msg_id, stamp, body) for signer in signed_by)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(stamp.timestamp())),
        "webhook-signature": signatures,
        "content-type": "application/json",
    }

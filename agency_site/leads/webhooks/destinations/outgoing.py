"""One HTTP request of a webhook message (``Outgoing``), and the interface every destination
implements (``Destination``): the message turned into its request, the answer into the
destination's own id (``webhooks/destinations/``)."""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
from standardwebhooks import Webhook

REMOTE_ID_MAX = 200
ABSENT = (404, 410)  # A delete's answer when the record is gone already: done.


@dataclass(frozen=True)
class Outgoing:
    """One HTTP request of a message (a POST unless ``method`` says otherwise); ``follow``:
    the request a 2xx answer to it leads to (a CRM's record linked to the one just made,
    the next record to delete), None for none, the last answer being the message's.
    ``absent_ok``: a delete, for which 404 or 410 (the record is gone) is as good as 2xx."""

    url: str
    content: bytes
    headers: dict[str, str]
    follow: Callable[[httpx.Response], "Outgoing | None"] | None = None
    method: str = "POST"
    absent_ok: bool = False

    def took(self, response: httpx.Response) -> bool:
        """Whether ``response`` is this request done."""
        return response.is_success or (self.absent_ok and response.status_code in ABSENT)


class UnexpectedAnswer(httpx.HTTPError):
    """A 2xx answer without what the next request needs (a failure: tried again)."""


class Destination(Protocol):
    """Turns a message into a request, and the answer into the destination's own id."""

    signed: bool  # Needs LEADS_WEBHOOK_SECRET (nothing is sent without it).
    label: str  # What it is, for the operator ("Odoo", "Telegram chat").
    # Whether ``lead.erased`` removes what it holds (told, or its record deleted); if not,
    # the agency deletes it by hand (the ids listed by ``leads erase`` and the purge).
    erases: bool

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing | None:
        """The request of this message; None: this destination takes no such event."""

    def remote_id(self, response: httpx.Response) -> str | None: ...


def answer_json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def bounded(value: Any) -> str | None:
    ok = isinstance(value, str | int) and not isinstance(value, bool) and value != ""
    return str(value)[:REMOTE_ID_MAX] if ok else None


def post_json(url: str, value: dict[str, Any]) -> Outgoing:
    content = json.dumps(value, ensure_ascii=False).encode()
    return Outgoing(url, content, {"content-type": "application/json"})

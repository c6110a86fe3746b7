"""The chats a webhook URL may name: a **Slack-compatible** incoming webhook
(``slack+https://…``: ``{"text": …}``, the URL its own secret) and the owner's **Telegram**
bot writing to their chat (``telegram://<bot token>/<chat id>``, Bot API ``sendMessage``).
A chat takes every message but ``lead.erased`` (it cannot delete what it shows: the agency
does, by hand). ``chat_text`` is also what a CRM's record describes the lead with. Its
first line is the core's for a new lead, a plugin's for an event of its own
(``LeadPlugin.chat_line``, handed to the chat as ``line``).

The text is the owner's, in Spanish (``content/es/owner-alerts.yaml``: ``chat_*``), and
carries the visitor's words as text, never as markup: escaped for Slack's mrkdwn
(``slack_text``: ``&``, ``<``, ``>``, so ``<!channel>`` or ``<https://…|a label>`` is
shown, not run), sent with no ``parse_mode`` to Telegram (plain text, link previews off).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from standardwebhooks import Webhook

from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.leads import source as lead_source
from agency_site.leads.webhooks import payload as webhook_payload
from agency_site.leads.webhooks.destinations.outgoing import (
    Outgoing,
    answer_json,
    bounded,
    post_json,
)

TEXT_MAX = 3500  # Under Telegram's 4096 and Slack's 40 000 characters (escaped: 17 500).

# The first line of a plugin's event (``Plugins.chat_line``), or None for the core's.
ChatLine = Callable[[dict[str, Any]], str | None]


def slack_text(text: str) -> str:
    """``text`` for a Slack-compatible ``{"text": …}``, shown as written: Slack's own
    escaping of ``&``, ``<`` and ``>``, so no mention (``<!channel>``), link
    (``<https://…|label>``) or other control sequence is read from it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chat_takes(payload: dict[str, Any]) -> bool:
    return payload["type"] != webhook_payload.LEAD_ERASED


def no_line(payload: dict[str, Any]) -> str | None:
    """No plugin's line: every message says the core's (``chat_lead``)."""
    return None


def chat_text(payload: dict[str, Any], line: ChatLine = no_line) -> str:
    """The message in a few lines for a person: what happened (``line``: a plugin's first
    line of its own event, ``Plugins.chat_line``; else the core's of a new lead), then
    each field."""
    data = payload["data"]
    title = line(payload) or render(ALERTS.chat_lead, kind=data["kind"], lead_id=data["lead_id"])
    lines = [title]
    lines += [
        f"{name}: {value}" for name, value in data["fields"].items() if value not in ("", None)
    ]
    if data.get("source"):
        lines.append(lead_source.describe(data["source"]))
    return "\n".join(lines)[:TEXT_MAX]


@dataclass(frozen=True)
class SlackText:
    """A Slack-compatible incoming webhook: ``{"text": …}``."""

    url: str
    signed: bool = False
    label: str = "Slack-compatible chat"
    erases: bool = False  # An incoming webhook cannot delete its messages.
    line: ChatLine = field(default=no_line, compare=False, repr=False)

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing | None:
        if not chat_takes(payload):
            return None
        return post_json(self.url, {"text": slack_text(chat_text(payload, self.line))})

    def remote_id(self, response: httpx.Response) -> str | None:
        return None  # Slack answers "ok".


@dataclass(frozen=True)
class Telegram:
    """The owner's bot writes to their chat (Bot API ``sendMessage``)."""

    token: str
    chat_id: str
    api: str = "https://api.telegram.org"
    signed: bool = False
    label: str = "Telegram chat"
    erases: bool = False  # A bot may delete its messages for 48 hours only.
    line: ChatLine = field(default=no_line, compare=False, repr=False)

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing | None:
        if not chat_takes(payload):
            return None
        url = f"{self.api.rstrip('/')}/bot{self.token}/sendMessage"
        # No parse_mode: plain text, nothing in it is markup. No preview of a visitor's link.
        message = {
            "chat_id": self.chat_id,
            "text": chat_text(payload, self.line),
            "link_preview_options": {"is_disabled": True},
        }
        return post_json(url, message)

    def remote_id(self, response: httpx.Response) -> str | None:
        answer = answer_json(response)
        result = answer.get("result") if isinstance(answer, dict) else None
        return bounded(result.get("message_id")) if isinstance(result, dict) else None

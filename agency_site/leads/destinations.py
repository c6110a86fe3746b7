"""Where a webhook message goes, by the scheme of its URL in ``LEADS_WEBHOOK_URLS``: each
destination turns the body (``webhook_payload.py``) into its own HTTP request, behind one
interface, on the same queue, claims and retries (``webhooks.py``).

- ``https://…`` (or ``http://``): a **Standard Webhooks** endpoint: the JSON body, signed
  with ``LEADS_WEBHOOK_SECRET`` (``signed``: never sent without it).
- ``slack+https://hooks.slack.com/services/…``: a **Slack-compatible** incoming webhook
  (Slack, Mattermost, Rocket.Chat, Discord's ``/slack`` URLs, Teams workflows): ``{"text": …}``,
  the lead in a few lines. The URL is its own secret.
- ``telegram://<bot token>/<chat id>``: a message from the owner's **Telegram** bot to
  their chat (Bot API ``sendMessage``; ``?api=<url>``: a self-hosted Bot API server).
  Its remote id is the message's id.
- ``odoo://<api key>@<host>/<database>``: an **Odoo** (19+) CRM lead, ``crm.lead/create``
  over the JSON-2 API; its remote id is the record's id. New leads only.
- ``hubspot://<portal id>/<form guid>``: a submission of a **HubSpot** form (Forms API v3,
  no key: the form's own endpoint), which makes or updates the contact. New leads only.
- ``pipedrive://<api token>@<company domain>``: a **Pipedrive** lead in the Leads Inbox:
  the person first (``POST /v1/persons``), then the lead linked to it (``POST /v1/leads``;
  the request that follows the first answer, ``Outgoing.follow``); its remote id is the
  lead's id. New leads only.

A CRM takes ``lead.created`` only (``request`` answers None for a booking's change: the
message is ``skipped``, not sent); a chat takes the leads and their bookings' changes.
``lead.erased`` (a person's erasure, the retention purge) carries the ids each endpoint
answered (``remote_ids``): a Standard Webhooks receiver gets it signed; Odoo deletes the
records (``crm.lead/search`` for those still there, then ``unlink``); Pipedrive deletes
each lead and, when the lead was still there, the person made with it (a lead already
gone was converted or deleted by the agency: what it became is theirs). ``erases``
says which do; the others (the chats, HubSpot: its form API has no delete) skip it, and
what they keep is listed for the agency to delete by hand (``leads erase``, the purge's
alert). A record already gone (404) counts as deleted.
A CRM's create is not idempotent: a try whose answer was lost and is retried may make a
second record there (rare; the e-mail's same risk), and Pipedrive's lead refused after its
person was made makes a second person when retried.

The chat text is the owner's, in Spanish (``content/es/owner-alerts.yaml``: ``chat_*``),
and carries the visitor's words as text, never as markup: escaped for Slack's mrkdwn
(``slack_text``: ``&``, ``<``, ``>``, so ``<!channel>`` or ``<https://…|a label>`` is
shown, not run), sent with no ``parse_mode`` to Telegram (plain text, link previews
off), as HTML for Odoo's ``description`` (``odoo_html``).
"""

import dataclasses
import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, urlencode

import httpx
from standardwebhooks import Webhook

from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.leads import source as lead_source
from agency_site.leads import webhook_payload
from agency_site.leads.models import utcnow

TEXT_MAX = 3500  # Under Telegram's 4096 and Slack's 40 000 characters (escaped: 17 500).
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


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _bounded(value: Any) -> str | None:
    ok = isinstance(value, str | int) and not isinstance(value, bool) and value != ""
    return str(value)[:REMOTE_ID_MAX] if ok else None


def _post_json(url: str, value: dict[str, Any]) -> Outgoing:
    content = json.dumps(value, ensure_ascii=False).encode()
    return Outgoing(url, content, {"content-type": "application/json"})


def _erased_remote_ids(payload: dict[str, Any], prefix: str) -> list[str]:
    """Of a ``lead.erased`` body, the remote ids that start with ``prefix``, without it
    (``crm.lead 123`` -> ``123``); none for any other message."""
    if payload["type"] != webhook_payload.LEAD_ERASED:
        return []
    found = payload["data"].get(webhook_payload.REMOTE_IDS) or []
    return [value.removeprefix(prefix) for value in found if value.startswith(prefix)]


def slack_text(text: str) -> str:
    """``text`` for a Slack-compatible ``{"text": …}``, shown as written: Slack's own
    escaping of ``&``, ``<`` and ``>``, so no mention (``<!channel>``), link
    (``<https://…|label>``) or other control sequence is read from it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def odoo_html(text: str) -> str:
    """``text`` as an HTML field (Odoo's ``description``): each line escaped, the lines
    joined by ``<br>``, the only tag."""
    return "<br>".join(html.escape(line) for line in text.split("\n"))


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
        answer = _json(response)
        return _bounded(answer.get("id")) if isinstance(answer, dict) else None


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


def _crm_only_new(payload: dict[str, Any]) -> bool:
    return payload["type"] == webhook_payload.LEAD_CREATED


def _crm_record(payload: dict[str, Any]) -> tuple[dict[str, Any], str, str] | None:
    """A CRM's view of a new lead: its fields, who (the name, else the address) and the
    record's title (``contact: Anna``); None for any other message (a CRM takes new leads
    only)."""
    if not _crm_only_new(payload):
        return None
    data = payload["data"]
    fields = data["fields"]
    who = str(fields.get("name") or fields.get("email") or "")
    return fields, who, f"{data['kind']}: {who}"[:200]


def _chat_takes(payload: dict[str, Any]) -> bool:
    return payload["type"] != webhook_payload.LEAD_ERASED


def chat_text(payload: dict[str, Any]) -> str:
    """The message in a few lines for a person: what happened, then each field."""
    data = payload["data"]
    booking = data.get("booking") or {}
    if payload["type"] == webhook_payload.LEAD_CREATED:
        title = render(ALERTS.chat_lead, kind=data["kind"], lead_id=data["lead_id"])
    else:
        title = render(
            ALERTS.chat_booking,
            event=payload["type"].removeprefix("booking."),
            lead_id=data["lead_id"],
            date=booking.get("date", ""),
            time=booking.get("time", ""),
        )
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

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing | None:
        if not _chat_takes(payload):
            return None
        return _post_json(self.url, {"text": slack_text(chat_text(payload))})

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

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing | None:
        if not _chat_takes(payload):
            return None
        url = f"{self.api.rstrip('/')}/bot{self.token}/sendMessage"
        # No parse_mode: plain text, nothing in it is markup. No preview of a visitor's link.
        message = {
            "chat_id": self.chat_id,
            "text": chat_text(payload),
            "link_preview_options": {"is_disabled": True},
        }
        return _post_json(url, message)

    def remote_id(self, response: httpx.Response) -> str | None:
        answer = _json(response)
        result = answer.get("result") if isinstance(answer, dict) else None
        return _bounded(result.get("message_id")) if isinstance(result, dict) else None


@dataclass(frozen=True)
class Odoo:
    """An Odoo CRM lead (``crm.lead``), created over the JSON-2 API (Odoo 19+)."""

    key: str
    base: str  # https://<host>
    database: str = ""
    signed: bool = False
    label: str = "Odoo"
    erases: bool = True  # Its crm.lead records are deleted.

    def _call(self, method: str, value: dict[str, Any]) -> Outgoing:
        """A JSON-2 call of ``crm.lead``'s ``method`` with this key and database."""
        outgoing = _post_json(f"{self.base}/json/2/crm.lead/{method}", value)
        headers = outgoing.headers | {"authorization": f"bearer {self.key}"}
        if self.database:
            headers["x-odoo-database"] = self.database
        return Outgoing(outgoing.url, outgoing.content, headers)

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing | None:
        if payload["type"] == webhook_payload.LEAD_ERASED:
            return self._erase(payload)
        if (record := _crm_record(payload)) is None:
            return None
        fields, _, title = record
        lead = {
            "name": title,
            "contact_name": str(fields.get("name") or ""),
            "email_from": str(fields.get("email") or ""),
            "phone": str(fields.get("phone") or ""),
            "description": odoo_html(chat_text(payload)),
        }
        return self._call("create", {"vals_list": [lead]})

    def _erase(self, payload: dict[str, Any]) -> Outgoing | None:
        """Delete the records of a ``lead.erased``: those of them still there (archived
        ones too), then ``unlink``; None when it names none."""
        ids = [int(found) for found in _erased_remote_ids(payload, "crm.lead ") if found.isdigit()]
        if not ids:
            return None

        def unlink(answer: httpx.Response) -> Outgoing | None:
            there = _json(answer)
            if not isinstance(there, list):
                raise UnexpectedAnswer("Odoo answered no list of records")
            found = [record for record in there if isinstance(record, int) and record in ids]
            return self._call("unlink", {"ids": found}) if found else None

        search = {"domain": [["id", "in", ids]], "context": {"active_test": False}}
        return dataclasses.replace(self._call("search", search), follow=unlink)

    def remote_id(self, response: httpx.Response) -> str | None:
        answer = _json(response)  # The new records' ids: [123].
        found = answer[0] if isinstance(answer, list) and answer else None
        return f"crm.lead {found}" if _bounded(found) else None


@dataclass(frozen=True)
class HubSpot:
    """A submission of a HubSpot form (Forms API v3): the contact made or updated."""

    portal: str
    form: str
    api: str = "https://api.hsforms.com"
    signed: bool = False
    label: str = "HubSpot"
    erases: bool = False  # The forms API has no delete (no key): the agency deletes it.

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing | None:
        if not _crm_only_new(payload):
            return None
        fields = payload["data"]["fields"]
        values = {
            "email": fields.get("email"),
            "firstname": fields.get("name"),
            "phone": fields.get("phone"),
            "message": chat_text(payload),
        }
        submission = {
            "submittedAt": str(int(utcnow().timestamp() * 1000)),
            "fields": [
                {"objectTypeId": "0-1", "name": name, "value": str(value)}
                for name, value in values.items()
                if value not in ("", None)
            ],
        }
        url = f"{self.api.rstrip('/')}/submissions/v3/integration/submit/{self.portal}/{self.form}"
        return _post_json(url, submission)

    def remote_id(self, response: httpx.Response) -> str | None:
        return f"form {self.form}"  # HubSpot answers no id: the form's submissions have it.


@dataclass(frozen=True)
class Pipedrive:
    """A lead in Pipedrive's Leads Inbox (API v1): a lead needs a person, so the person is
    made first, then the lead linked to it (``person_id``), titled like Odoo's."""

    token: str
    base: str  # https://<company>.pipedrive.com
    signed: bool = False
    label: str = "Pipedrive"
    erases: bool = True  # Its leads are deleted, and the persons made with them.

    def _url(self, resource: str) -> str:
        return f"{self.base}/api/v1/{resource}?{urlencode({'api_token': self.token})}"

    def _delete(self, resource: str) -> Outgoing:
        return Outgoing(self._url(resource), b"", {}, method="DELETE", absent_ok=True)

    def _erase(self, records: list[tuple[str, str | None]]) -> Outgoing | None:
        """Delete each lead, then its person when the lead was still there (a lead gone
        already was converted into a deal or deleted by the agency: its person is
        theirs now); None when there is none."""
        if not records:
            return None
        (lead, person), rest = records[0], records[1:]

        def after_lead(answer: httpx.Response) -> Outgoing | None:
            if person is None or answer.status_code in ABSENT:
                return self._erase(rest)
            return dataclasses.replace(
                self._delete(f"persons/{person}"), follow=lambda _: self._erase(rest)
            )

        return dataclasses.replace(self._delete(f"leads/{lead}"), follow=after_lead)

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing | None:
        if payload["type"] == webhook_payload.LEAD_ERASED:
            records = []
            for found in _erased_remote_ids(payload, "lead "):
                lead, _, person = found.partition(" person ")
                if lead and "/" not in lead and (not person or person.isdigit()):
                    records.append((lead, person or None))
            return self._erase(records)
        if (record := _crm_record(payload)) is None:
            return None
        fields, name, title = record
        person: dict[str, Any] = {"name": name[:255]}
        for field in ("email", "phone"):
            if fields.get(field):
                person[field] = [{"value": str(fields[field]), "primary": True}]

        def the_lead(answer: httpx.Response) -> Outgoing:
            made = _json(answer)
            found = made.get("data") if isinstance(made, dict) else None
            person_id = found.get("id") if isinstance(found, dict) else None
            if not isinstance(person_id, int) or isinstance(person_id, bool):
                raise UnexpectedAnswer("Pipedrive answered no person id")
            return _post_json(self._url("leads"), {"title": title, "person_id": person_id})

        first = _post_json(self._url("persons"), person)
        return Outgoing(first.url, first.content, first.headers, follow=the_lead)

    def remote_id(self, response: httpx.Response) -> str | None:
        """``lead <uuid> person <id>``: the lead, and the person made for it (both
        deleted by ``lead.erased``)."""
        answer = _json(response)  # {"success": true, "data": {"id": "<uuid>", "person_id": 41}}
        found = answer.get("data") if isinstance(answer, dict) else None
        lead_id = _bounded(found.get("id")) if isinstance(found, dict) else None
        if not lead_id or " " in lead_id:
            return None
        person = found.get("person_id") if isinstance(found, dict) else None
        if isinstance(person, int) and not isinstance(person, bool):
            return f"lead {lead_id} person {person}"
        return f"lead {lead_id}"


def destination(url: str) -> Destination:
    """The destination a URL of ``LEADS_WEBHOOK_URLS`` names (``ValueError`` if none)."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        raise ValueError("a LEADS_WEBHOOK_URLS entry has no scheme (https://, slack+https://...)")
    kind, _, transport = scheme.lower().partition("+")
    if kind in ("http", "https") and not transport:
        return StandardWebhook(url)
    if kind == "slack" and transport in ("http", "https"):
        return SlackText(f"{transport}://{rest}")
    if kind == "telegram" and not transport:
        path, _, query = rest.partition("?")
        token, _, chat_id = path.rstrip("/").rpartition("/")
        if not token or not chat_id:
            raise ValueError("a telegram:// URL is telegram://<bot token>/<chat id>")
        api = parse_qs(query).get("api", ["https://api.telegram.org"])[0]
        return Telegram(token, chat_id, api)
    if kind == "odoo" and transport in ("", "http", "https"):
        key, at, place = rest.partition("@")
        host, _, database = place.partition("/")
        if not at or not key or not host:
            raise ValueError("an odoo:// URL is odoo://<api key>@<host>/<database>")
        return Odoo(key, f"{transport or 'https'}://{host}", database.strip("/"))
    if kind == "hubspot" and not transport:
        path, _, query = rest.partition("?")
        portal, _, form = path.strip("/").partition("/")
        if not portal or not form:
            raise ValueError("a hubspot:// URL is hubspot://<portal id>/<form guid>")
        api = parse_qs(query).get("api", ["https://api.hsforms.com"])[0]
        return HubSpot(portal, form, api)
    if kind == "pipedrive" and transport in ("", "http", "https"):
        token, at, host = rest.partition("@")
        host = host.strip("/")
        if not at or not token or not host:
            raise ValueError("a pipedrive:// URL is pipedrive://<api token>@<company domain>")
        if "." not in host and ":" not in host:  # Just the company: <company>.pipedrive.com
            host = f"{host}.pipedrive.com"
        return Pipedrive(token, f"{transport or 'https'}://{host}")
    raise ValueError(f"LEADS_WEBHOOK_URLS: unknown scheme {scheme}:// (see docs/leads.md)")

"""The CRMs a webhook URL may name, each taking ``lead.created`` only (``request`` answers
None for any other event: the message is ``skipped``, not sent):

- ``odoo://<api key>@<host>/<database>``: an **Odoo** (19+) CRM lead, ``crm.lead/create``
  over the JSON-2 API; its remote id is the record's id;
- ``hubspot://<portal id>/<form guid>``: a submission of a **HubSpot** form (Forms API v3,
  no key: the form's own endpoint), which makes or updates the contact;
- ``pipedrive://<api token>@<company domain>``: a **Pipedrive** lead in the Leads Inbox:
  the person first (``POST /v1/persons``), then the lead linked to it (``POST /v1/leads``;
  the request that follows the first answer, ``Outgoing.follow``); its remote id is the
  lead's id.

``lead.erased`` deletes the records where the CRM can: Odoo's (``crm.lead/search`` for
those still there, then ``unlink``), Pipedrive's lead and, when the lead was still there,
the person made with it (a lead already gone was converted or deleted by the agency: what
it became is theirs); HubSpot's form API has no delete: what it keeps is listed for the
agency. A record already gone (404) counts as deleted. A CRM's create is not idempotent: a
try whose answer was lost and is retried may make a second record there (rare; the
e-mail's same risk), and Pipedrive's lead refused after its person was made makes a
second person when retried. The record's description is the chat's text
(``chats.chat_text``), as HTML for Odoo's (``odoo_html``).
"""

import dataclasses
import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx
from standardwebhooks import Webhook

from agency_site.leads.models import utcnow
from agency_site.leads.webhooks import payload as webhook_payload
from agency_site.leads.webhooks.destinations.chats import chat_text
from agency_site.leads.webhooks.destinations.outgoing import (
    ABSENT,
    Outgoing,
    UnexpectedAnswer,
    answer_json,
    bounded,
    post_json,
)


def odoo_html(text: str) -> str:
    """``text`` as an HTML field (Odoo's ``description``): each line escaped, the lines
    joined by ``<br>``, the only tag."""
    return "<br>".join(html.escape(line) for line in text.split("\n"))


def erased_remote_ids(payload: dict[str, Any], prefix: str) -> list[str]:
    """Of a ``lead.erased`` body, the remote ids that start with ``prefix``, without it
    (``crm.lead 123`` -> ``123``); none for any other message."""
    if payload["type"] != webhook_payload.LEAD_ERASED:
        return []
    found = payload["data"].get(webhook_payload.REMOTE_IDS) or []
    return [value.removeprefix(prefix) for value in found if value.startswith(prefix)]


def crm_only_new(payload: dict[str, Any]) -> bool:
    return payload["type"] == webhook_payload.LEAD_CREATED


def crm_record(payload: dict[str, Any]) -> tuple[dict[str, Any], str, str] | None:
    """A CRM's view of a new lead: its fields, who (the name, else the address) and the
    record's title (``contact: Anna``); None for any other message (a CRM takes new leads
    only)."""
    if not crm_only_new(payload):
        return None
    data = payload["data"]
    fields = data["fields"]
    who = str(fields.get("name") or fields.get("email") or "")
    return fields, who, f"{data['kind']}: {who}"[:200]


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
        outgoing = post_json(f"{self.base}/json/2/crm.lead/{method}", value)
        headers = outgoing.headers | {"authorization": f"bearer {self.key}"}
        if self.database:
            headers["x-odoo-database"] = self.database
        return Outgoing(outgoing.url, outgoing.content, headers)

    def request(
        self, payload: dict[str, Any], msg_id: str, signed_by: Sequence[Webhook]
    ) -> Outgoing | None:
        if payload["type"] == webhook_payload.LEAD_ERASED:
            return self._erase(payload)
        if (record := crm_record(payload)) is None:
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
        ids = [int(found) for found in erased_remote_ids(payload, "crm.lead ") if found.isdigit()]
        if not ids:
            return None

        def unlink(answer: httpx.Response) -> Outgoing | None:
            there = answer_json(answer)
            if not isinstance(there, list):
                raise UnexpectedAnswer("Odoo answered no list of records")
            found = [record for record in there if isinstance(record, int) and record in ids]
            return self._call("unlink", {"ids": found}) if found else None

        search = {"domain": [["id", "in", ids]], "context": {"active_test": False}}
        return dataclasses.replace(self._call("search", search), follow=unlink)

    def remote_id(self, response: httpx.Response) -> str | None:
        answer = answer_json(response)  # The new records' ids: [123].
        found = answer[0] if isinstance(answer, list) and answer else None
        return f"crm.lead {found}" if bounded(found) else None


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
        if not crm_only_new(payload):
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
        return post_json(url, submission)

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
            for found in erased_remote_ids(payload, "lead "):
                lead, _, person = found.partition(" person ")
                if lead and "/" not in lead and (not person or person.isdigit()):
                    records.append((lead, person or None))
            return self._erase(records)
        if (record := crm_record(payload)) is None:
            return None
        fields, name, title = record
        person: dict[str, Any] = {"name": name[:255]}
        for field in ("email", "phone"):
            if fields.get(field):
                person[field] = [{"value": str(fields[field]), "primary": True}]

        def the_lead(answer: httpx.Response) -> Outgoing:
            made = answer_json(answer)
            found = made.get("data") if isinstance(made, dict) else None
            person_id = found.get("id") if isinstance(found, dict) else None
            if not isinstance(person_id, int) or isinstance(person_id, bool):
                raise UnexpectedAnswer("Pipedrive answered no person id")
            return post_json(self._url("leads"), {"title": title, "person_id": person_id})

        first = post_json(self._url("persons"), person)
        return Outgoing(first.url, first.content, first.headers, follow=the_lead)

    def remote_id(self, response: httpx.Response) -> str | None:
        """``lead <uuid> person <id>``: the lead, and the person made for it (both
        deleted by ``lead.erased``)."""
        answer = answer_json(
            response
        )  # {"success": true, "data": {"id": "<uuid>", "person_id": 41}}
        found = answer.get("data") if isinstance(answer, dict) else None
        lead_id = bounded(found.get("id")) if isinstance(found, dict) else None
        if not lead_id or " " in lead_id:
            return None
        person = found.get("person_id") if isinstance(found, dict) else None
        if isinstance(person, int) and not isinstance(person, bool):
            return f"lead {lead_id} person {person}"
        return f"lead {lead_id}"

"""The JSON body of every webhook the site sends: one versioned schema for every form.

``docs/lead-webhook.schema.json`` is its JSON Schema (draft 2020-12); a test checks that
every body ``body`` makes validates against it. The shape follows the Standard Webhooks
recommendation (``type``, ``timestamp``, ``data``) plus ``version``, raised only when a
field changes meaning or goes away (a new optional field keeps the version):

    {"type": "lead.created", "version": 1, "timestamp": "2026-11-26T09:15:02Z",
     "data": {"lead_id": 42, "kind": "booking", "language": "ca",
              "created_at": "2026-11-26T09:15:02Z",
              "fields": {"name": "Ana", "email": "ana@example.com", ...},
              "source": {"page": "/ca/reserva", "utm_source": "newsletter"},
              "booking": {"status": "pending", "date": "2026-12-01", "time": "10:00"}}}

``fields`` are the form's fields as the visitor sent them (checked by ``validation.py``);
``source`` is ``source.py``'s (null when the browser told nothing); ``booking`` is what
the plugins add (``LeadPlugin.webhook_data``; absent for a lead that is not a booking).

``lead.erased`` (a person erased by ``leads erase``, or leads past the retention period
deleted by the purge) carries no personal data, only what lets a receiver find and delete
what it keeps of them: the ids of the leads whose messages reached that receiver, the
``webhook-id`` of each of those messages, the ids the receiver answered for them (a CRM's
record), why and when they were erased:

    {"type": "lead.erased", "version": 1, "timestamp": "2026-12-02T10:00:00Z",
     "data": {"lead_ids": [42, 57], "webhook_ids": ["msg_<key>_lead_created", ...],
              "remote_ids": ["crm.lead 123"], "reason": "request",
              "erased_at": "2026-12-02T10:00:00Z"}}
"""

import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agency_site.leads.models import Lead

VERSION = 1
LEAD_CREATED = "lead.created"
# Leads erased (``leads erase``: ``request``; the retention purge: ``retention``): to
# every endpoint one of their messages reached; a CRM deletes its record, a chat skips it.
LEAD_ERASED = "lead.erased"
REQUEST, RETENTION = "request", "retention"
REMOTE_IDS = "remote_ids"  # Kept in the message until it is done (``settled``).
# The core's own events; a plugin adds its own (``LeadPlugin.webhook_events``).
EVENTS = (LEAD_CREATED, LEAD_ERASED)
SCHEMA = Path(__file__).resolve().parents[3] / "docs" / "lead-webhook.schema.json"


def moment(value: dt.datetime) -> str:
    """A timestamp of the body: UTC, to the second, ``Z`` (SQLite gives them back naive)."""
    aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    return aware.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def body(
    event: str, occurred_at: dt.datetime, lead: Lead, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The body of ``event`` of ``lead`` that happened at ``occurred_at``; ``extra``: what
    the plugins and the event add to ``data`` (``{"booking": {...}}``)."""
    data: dict[str, Any] = {
        "lead_id": lead.id,
        "kind": lead.kind,
        "language": lead.language,
        "created_at": moment(lead.created_at),
        "fields": dict(lead.fields),
        "source": dict(lead.source) if lead.source else None,
    }
    data |= extra or {}
    return {"type": event, "version": VERSION, "timestamp": moment(occurred_at), "data": data}


def erasure(
    lead_ids: Sequence[int],
    webhook_ids: Sequence[str],
    erased_at: dt.datetime,
    remote_ids: Sequence[str] = (),
    reason: str = REQUEST,
) -> dict[str, Any]:
    """The ``data`` of a ``lead.erased`` message: ids, why and a time, nothing personal;
    ``remote_ids``: what the endpoint answered for those messages (a CRM's record ids)."""
    data: dict[str, Any] = {
        "lead_ids": sorted(set(lead_ids)),
        "webhook_ids": list(dict.fromkeys(webhook_ids)),
        "reason": reason,
        "erased_at": moment(erased_at),
    }
    if remote_ids:
        data[REMOTE_IDS] = list(dict.fromkeys(remote_ids))
    return data


def settled(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """A ``lead.erased`` message's ``data`` once it is done (sent or skipped): without the
    remote ids, kept only until then."""
    if not data or REMOTE_IDS not in data:
        return data
    return {name: value for name, value in data.items() if name != REMOTE_IDS}


def erased_body(occurred_at: dt.datetime, data: dict[str, Any]) -> dict[str, Any]:
    """The body of a ``lead.erased`` message (its ``data``: ``erasure``'s)."""
    return {"type": LEAD_ERASED, "version": VERSION, "timestamp": moment(occurred_at), "data": data}


def encode(payload: dict[str, Any]) -> str:
    """The body as sent and signed: compact JSON, UTF-8 characters as they are."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def schema() -> dict[str, Any]:
    """The JSON Schema of the body (``docs/lead-webhook.schema.json``)."""
    return json.loads(SCHEMA.read_text(encoding="utf-8"))

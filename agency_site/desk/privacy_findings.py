"""What the site holds about one e-mail address, and its erasure everywhere.

- **Found** (``find``): its leads in the table (``LeadStore.of_email``, any case or
  script), the lines of this host's spool folder (``Spool.of_email``: waiting for the
  database or set aside, as ``leads find`` lists them) and the copies sent to the webhooks
  and CRMs, with the ids they answered.
- **Erased** (``erase``): ``leads erase``'s steps, in its order: the erasure log first, so
  a restore honours it; this host's spool; the table, whose transaction queues the
  ``lead.erased`` webhooks for every endpoint the leads reached; then what the agency must
  still delete by hand (``Findings.by_hand``).
"""

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from agency_site.leads import erasures
from agency_site.leads.models import Lead, LeadWebhook
from agency_site.leads.spool import SUFFIX, Spool, SpooledLead
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks.channel import WebhookChannel


@dataclass(frozen=True)
class PrivacyTools:
    """Where the site holds a person's data: the leads table (its store, with the plugins
    that forget a lead's booking), this host's spool folder, the erasure log, and the
    webhook channel (None: no endpoints) that names where copies went."""

    store: LeadStore
    spool: Spool
    erasure_log: Path
    webhooks: WebhookChannel | None = None


@dataclass(frozen=True)
class SpooledCopy:
    """A line of this host's spool folder about the address: waiting for the database
    (``waiting``) or set aside by the drain (quarantined, torn); its lead when readable."""

    file: str
    waiting: bool
    lead: SpooledLead | None
    line: str  # The line itself when it cannot be read as a lead.


@dataclass(frozen=True)
class CopyElsewhere:
    """A lead's message to a webhook endpoint: which (its number in ``LEADS_WEBHOOK_URLS``,
    None for a former one, and its kind), the event, how it stands, the id it answered."""

    lead_id: int
    endpoint: int | None
    label: str
    erases: bool  # ``lead.erased`` deletes what it holds (Odoo, Pipedrive, a receiver).
    event: str
    status: str
    remote_id: str | None
    sent_at: dt.datetime | None


@dataclass(frozen=True)
class Findings:
    """Everything the site holds about one address."""

    leads: list[Lead]
    notes: dict[int, str]  # The plugins' note of a lead (a booking's slot and state).
    spooled: list[SpooledCopy]
    copies: list[CopyElsewhere]

    @property
    def nothing(self) -> bool:
        return not (self.leads or self.spooled)

    def by_hand(self) -> list[dict[str, Any]]:
        """Where copies stay that ``lead.erased`` cannot delete (a chat's messages, HubSpot,
        a former endpoint), for the agency to delete by hand: each place with the ids it
        answered and the leads' numbers (never their data)."""
        places: dict[tuple[int | None, str], dict[str, Any]] = {}
        for copy in self.copies:
            if copy.erases or copy.status != "sent":
                continue
            place = places.setdefault(
                (copy.endpoint, copy.label),
                {"endpoint": copy.endpoint, "label": copy.label, "ids": [], "leads": []},
            )
            if copy.remote_id and copy.remote_id not in place["ids"]:
                place["ids"].append(copy.remote_id)
            if copy.lead_id not in place["leads"]:
                place["leads"].append(copy.lead_id)
        return list(places.values())


def _endpoint(channel: WebhookChannel | None, key: str) -> tuple[int | None, str, bool]:
    """An endpoint's number, kind and whether ``lead.erased`` clears it (a former one:
    none, nothing, no)."""
    target = channel.by_key.get(key) if channel is not None else None
    if channel is None or target is None:
        return None, "", False
    return list(channel.by_key).index(key) + 1, target.label, target.erases


def copies_of(
    engine: sa.Engine, channel: WebhookChannel | None, lead_ids: Sequence[int]
) -> list[CopyElsewhere]:
    """Every webhook message of these leads, the oldest first."""
    if not lead_ids:
        return []
    query = (
        select(LeadWebhook)
        .where(col(LeadWebhook.lead_id).in_(list(lead_ids)))
        .order_by(col(LeadWebhook.id))
    )
    with Session(engine) as session:
        rows = list(session.exec(query).all())
    found = []
    for row in rows:
        number, label, erases = _endpoint(channel, row.endpoint)
        found.append(
            CopyElsewhere(
                lead_id=row.lead_id,
                endpoint=number,
                label=label,
                erases=erases,
                event=row.event,
                status=row.status,
                remote_id=row.remote_id,
                sent_at=row.sent_at,
            )
        )
    return found


def spooled_of(spool: Spool, email: str) -> list[SpooledCopy]:
    """The lines of this host's spool folder about ``email`` (``Spool.of_email``)."""
    found = []
    for path, raw in spool.of_email(email):
        text = raw.decode("utf-8", errors="replace")
        try:
            lead = SpooledLead.parse(raw)
        except (ValueError, KeyError, TypeError):
            lead = None
        found.append(SpooledCopy(path.name, path.suffix == SUFFIX, lead, "" if lead else text))
    return found


def find(tools: PrivacyTools, email: str) -> Findings:
    """What the site holds about ``email`` (blocking: a thread's)."""
    leads = tools.store.of_email(email)
    ids = [lead.id for lead in leads if lead.id is not None]
    notes = tools.store.plugins.lead_notes(tools.store.engine, ids) if ids else {}
    return Findings(
        leads=leads,
        notes=dict(notes),
        spooled=spooled_of(tools.spool, email),
        copies=copies_of(tools.store.engine, tools.webhooks, ids),
    )


@dataclass(frozen=True)
class Erased:
    """What an erasure deleted, and where copies stay for the agency to delete by hand."""

    leads: int
    lines: int
    by_hand: list[dict[str, Any]]


def erase(tools: PrivacyTools, email: str, now: dt.datetime) -> Erased:
    """Erase ``email`` everywhere this site can, as ``leads erase`` does (blocking).

    Logged first (``erasures.record``): if a delete fails, a later restore still honours
    the request, and the drain drops any lead of this address it has not stored yet. The
    spool before the table: a drain storing this person's lead right now holds its file's
    lock, so the lead is in the table before the table's delete, whose transaction queues
    a ``lead.erased`` message for every endpoint the leads' messages reached."""
    places = find(tools, email).by_hand()
    erasures.record(tools.erasure_log, email, at=now)
    lines = tools.spool.erase(email)
    deleted = tools.store.erase_email(email)
    return Erased(deleted, lines, places)

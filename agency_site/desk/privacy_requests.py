""" "Personas" (``paths.DESK_PRIVACY``): the privacy requests (the RGPD's rights of access,
rectification, erasure...) the agency receives, from the day one arrives to its answer.

- **Record a request**: who (an e-mail address), which right (``PrivacyRight``), when it
  was received; its one-month deadline shows (``deadline``), amber a week before it and red
  once it has passed (``urgency``).
- **Find** everything the site holds about the address (``find``): its leads in the table
  (``LeadStore.of_email``, any case or script), the lines of this host's spool folder
  (``Spool.of_email``: waiting for the database or set aside, as ``leads find`` lists them)
  and the copies sent to the webhooks and CRMs, with the ids they answered.
- **Export** it (``export_json``, ``export_csv``: a CSV a Spanish Excel opens as it is,
  UTF-8 with its BOM, ``;`` between cells, CRLF, a cell that starts like a formula
  neutralised) and **erase** it everywhere (``erase``: ``leads erase``'s steps, in its
  order: the erasure log first, so a restore honours it; this host's spool; the table,
  whose transaction queues the ``lead.erased`` webhooks for every endpoint the leads
  reached; then what the agency must still delete by hand). Both ask for the passkey
  again (``requires_fresh_passkey``).
- **Close** it with its date and outcome (``PrivacyOutcome``): the address is cleared; the
  row keeps what proves the answer (the address's ``email_digest``, the right, the dates,
  what was exported or erased, the outcome), deleted ``DESK_AUDIT_MONTHS`` after the
  closing by the desk's daily round (``purge_closed``), as the audit log's lines about it.

Every step is a line of the audit log with the request's number and the address's digest,
never the address or anything the person wrote.
"""

import asyncio
import calendar as month_calendar
import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from agency_site import paths
from agency_site.desk import audit
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import (
    AGENCY_ZONE,
    desk_of,
    form_body,
    query_string,
    record,
    render,
    requires_fresh_passkey,
    signed_in,
)
from agency_site.desk.inbox import SHOWN_OF, Shown
from agency_site.desk.inbox_export import BOM, encoded, field_labels
from agency_site.desk.models import DeskPrivacyRequest
from agency_site.leads import erasures
from agency_site.leads import source as lead_source
from agency_site.leads.models import Lead, LeadWebhook, email_digest, email_key
from agency_site.leads.rgpd import months_before
from agency_site.leads.rgpd_commands import EXPORT_COLUMNS, EXPORT_FIELDS
from agency_site.leads.spool import SUFFIX, Spool, SpooledLead
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks.channel import WebhookChannel
from agency_site.rules import EMAIL_MAX

# The deadline turns amber this long before it.
NEAR = dt.timedelta(days=7)
# The forms' fields, each once, in the export's columns (the declarations say which).
FIELDS = EXPORT_FIELDS
# How many requests the list shows (the open ones first).
LISTED = 200


class PrivacyRight(StrEnum):
    """The right a person exercises (RGPD articles 15 to 21)."""

    ACCESS = "access"
    RECTIFICATION = "rectification"
    ERASURE = "erasure"
    RESTRICTION = "restriction"
    OBJECTION = "objection"
    PORTABILITY = "portability"


class PrivacyOutcome(StrEnum):
    """How a request was closed."""

    ANSWERED = "answered"  # The right was attended: the data sent, erased, corrected...
    NO_DATA = "no_data"  # The site held nothing of the address: the person was told so.
    REFUSED = "refused"  # Refused (identity not proved; unfounded or excessive: art. 12.5).


class Urgency(StrEnum):
    """How near a request's deadline is."""

    OK = "ok"
    NEAR = "near"  # Within ``NEAR`` of it.
    OVER = "over"  # Past it.


def deadline(received: dt.date) -> dt.date:
    """The last day to answer a request received on ``received``: one month later.

    The RGPD gives "one month of receipt of the request" (art. 12.3). A period of months
    runs from date to date: it ends on the day of the next month with the same number as
    the day of receipt, or, when that month has no such day, on its last day (Regulation
    (EEC, Euratom) No 1182/71, art. 3.2.c, which the EDPB's guidelines 01/2022 on the
    right of access apply to it; in Spain the same rule, Código Civil art. 5.1: "se
    computarán de fecha a fecha. Cuando en el mes del vencimiento no hubiera día
    equivalente al inicial del cómputo, se entenderá que el plazo expira el último del
    mes"). Received 15 March: 15 April; 31 January: 28 (or 29) February. The desk shows
    this day, not the next working day that art. 3.4 of 1182/71 would allow when it falls
    on a holiday: the owner answers in time either way.
    """
    year, month = received.year + received.month // 12, received.month % 12 + 1
    return dt.date(year, month, min(received.day, month_calendar.monthrange(year, month)[1]))


def urgency(due: dt.date, today: dt.date) -> Urgency:
    """Whether ``due`` is past (red), within ``NEAR`` (amber) or further (as usual)."""
    if today > due:
        return Urgency.OVER
    return Urgency.NEAR if due - today <= NEAR else Urgency.OK


@dataclass(frozen=True)
class PrivacyTools:
    """Where the site holds a person's data: the leads table (its store, with the plugins
    that forget a lead's booking), this host's spool folder, the erasure log, and the
    webhook channel (None: no endpoints) that names where copies went."""

    store: LeadStore
    spool: Spool
    erasure_log: Path
    webhooks: WebhookChannel | None = None


def privacy_tools(request: Request) -> PrivacyTools:
    """This process's (``Desk.privacy_tools``: ``desk/runtime.py``), or a test's."""
    wired = desk_of(request).privacy_tools
    if wired is None:
        raise RuntimeError("Desk.privacy_tools is not wired (desk/runtime.py)")
    return wired()


# --- The requests' table --------------------------------------------------------------------


def add_request(
    engine: sa.Engine, email: str, right: PrivacyRight, received: dt.date, now: dt.datetime
) -> DeskPrivacyRequest:
    """Record a request; the row (with its id)."""
    row = DeskPrivacyRequest(
        email=email.strip(),
        email_digest=email_digest(email),
        right=str(right),
        received_on=received,
        recorded_at=now,
    )
    with Session(engine, expire_on_commit=False) as session:
        session.add(row)
        session.commit()
        session.refresh(row)
    return row


def get_request(engine: sa.Engine, request_id: int) -> DeskPrivacyRequest | None:
    with Session(engine, expire_on_commit=False) as session:
        return session.get(DeskPrivacyRequest, request_id)


def list_requests(engine: sa.Engine, limit: int = LISTED) -> list[DeskPrivacyRequest]:
    """The open requests, the oldest received first, then the closed ones, newest first."""
    is_open = col(DeskPrivacyRequest.closed_on).is_(None)
    query = (
        select(DeskPrivacyRequest)
        .order_by(
            sa.case((is_open, 0), else_=1),
            sa.case((is_open, col(DeskPrivacyRequest.received_on)), else_=None),
            col(DeskPrivacyRequest.closed_on).desc(),
            col(DeskPrivacyRequest.id).desc(),
        )
        .limit(limit)
    )
    with Session(engine, expire_on_commit=False) as session:
        return list(session.exec(query).all())


def _update(
    engine: sa.Engine,
    request_id: int,
    values: Mapping[str, Any],
    person_id: int | None,
    action: AuditAction,
    digest: str,
    now: dt.datetime,
    done: bool = False,
) -> bool:
    """Change an open request (a closed one is left as it is) and write the audit line of
    ``action`` in the same transaction: when the request changed, or whatever it did when
    the action is ``done`` already (an erasure, an export); whether it was open."""
    with engine.begin() as connection:
        changed = connection.execute(
            sa.update(DeskPrivacyRequest)
            .where(
                col(DeskPrivacyRequest.id) == request_id,
                col(DeskPrivacyRequest.closed_on).is_(None),
            )
            .values(**values)
        ).rowcount
        if changed or done:
            audit.record(
                connection, person_id, action, request_id=request_id, digest=digest, at=now
            )
    return bool(changed)


def close_request(
    engine: sa.Engine,
    request_id: int,
    outcome: PrivacyOutcome,
    closed_on: dt.date,
    person_id: int | None,
    digest: str,
    now: dt.datetime,
) -> bool:
    """Close an open request: its date and outcome; the address and the by-hand list go
    (what is kept: the class's doc of ``DeskPrivacyRequest``). Whether it was open."""
    values = {"closed_on": closed_on, "outcome": str(outcome), "email": None, "by_hand": None}
    return _update(engine, request_id, values, person_id, AuditAction.PRIVACY_CLOSED, digest, now)


def purge_closed(engine: sa.Engine, months: int, now: dt.datetime) -> int:
    """Delete the requests closed more than ``months`` ago (the audit log's keeping: the
    desk's daily round); how many."""
    cutoff = months_before(now, months).astimezone(AGENCY_ZONE).date()
    with engine.begin() as connection:
        return connection.execute(
            sa.delete(DeskPrivacyRequest).where(col(DeskPrivacyRequest.closed_on) < cutoff)
        ).rowcount


# --- What the site holds about an address ---------------------------------------------------


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


# --- The exports ----------------------------------------------------------------------------


def _iso(moment: dt.datetime | dt.date | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _copy_json(copy: CopyElsewhere) -> dict[str, Any]:
    return {
        "lead": copy.lead_id,
        "endpoint": copy.endpoint,
        "destination": copy.label,
        "event": copy.event,
        "status": copy.status,
        "remote_id": copy.remote_id,
        "sent_at": _iso(copy.sent_at),
    }


def export_json(email: str, found: Findings, now: dt.datetime) -> bytes:
    """Everything about ``email`` as one JSON document (the right of access, portability):
    every stored column of each lead, the spool's lines, where copies went."""
    leads = [
        {
            "id": lead.id,
            "kind": lead.kind,
            "created_at": _iso(lead.created_at),
            "status": lead.status,
            "attempts": lead.attempts,
            "sent_at": _iso(lead.sent_at),
            "last_error": lead.last_error,
            "fields": lead.fields,
            "source": lead.source,
            "language": lead.language,
            "notes": found.notes.get(lead.id or 0),
        }
        for lead in found.leads
    ]
    spooled = [
        {
            "file": copy.file,
            "waiting": copy.waiting,
            "kind": str(copy.lead.kind),
            "created_at": _iso(copy.lead.created_at),
            "fields": copy.lead.fields,
            "source": copy.lead.source,
            "language": copy.lead.language,
        }
        if copy.lead
        else {"file": copy.file, "waiting": copy.waiting, "line": copy.line}
        for copy in found.spooled
    ]
    document = {
        "email": email,
        "exported_at": _iso(now),
        "leads": leads,
        "spooled": spooled,
        "copies": [_copy_json(copy) for copy in found.copies],
    }
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    return text.encode("utf-8", "backslashreplace")


def spanish_csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    """A CSV that a Spanish Excel opens as it is, accents and all, as the inbox's export
    writes one (``inbox_export``): UTF-8 with its BOM (else Excel reads it as
    Windows-1252), ``;`` between cells (``,`` is the decimal comma there), CRLF line ends,
    every cell neutralised (``excel_cell``: one that starts like a formula gets a ``'``)."""
    return BOM.encode("utf-8") + encoded([list(header), *(list(row) for row in rows)])


# The CSV's columns, by key (``_words.html``'s ``PRIVACY_COLUMNS``, and the forms' own
# labels of their fields: ``inbox_export.field_labels``): ``leads export``'s, and where each
# lead's copies went.
COLUMNS = (*EXPORT_COLUMNS, "copies")


def export_rows(found: Findings) -> list[list[object]]:
    """One row per lead (the table's, then the spool's: without a number), in ``COLUMNS``."""
    copies: dict[int, list[str]] = {}
    for copy in found.copies:
        if copy.status == "sent":
            where = f"{copy.endpoint or '-'} {copy.label}".strip()
            copies.setdefault(copy.lead_id, []).append(
                f"{where}: {copy.remote_id}" if copy.remote_id else where
            )
    rows: list[list[object]] = []
    for lead in found.leads:
        fields = lead.fields if isinstance(lead.fields, Mapping) else {}
        rows.append(
            [
                lead.id,
                _iso(lead.created_at),
                lead.kind,
                lead.status,
                lead.attempts,
                _iso(lead.sent_at),
                lead.last_error,
                *(fields.get(name, "") for name in FIELDS),
                lead_source.describe(lead.source),
                lead.language,
                found.notes.get(lead.id or 0, ""),
                " | ".join(copies.get(lead.id or 0, [])),
            ]
        )
    for copy in found.spooled:
        spooled = copy.lead
        fields = spooled.fields if spooled else {"message": copy.line}
        rows.append(
            [
                "",
                _iso(spooled.created_at) if spooled else "",
                str(spooled.kind) if spooled else "",
                "spooled" if copy.waiting else "set_aside",
                "",
                "",
                "",
                *(fields.get(name, "") for name in FIELDS),
                lead_source.describe(spooled.source) if spooled else "",
                spooled.language if spooled else "",
                "",
                "",
            ]
        )
    return rows


def export_csv(found: Findings, header: Sequence[str]) -> bytes:
    return spanish_csv(header, export_rows(found))


# --- The pages ------------------------------------------------------------------------------


def _words(request: Request) -> Any:
    """The desk's words (``_words.html``), for what is not a page (the CSV's header)."""
    return request.scope["desk_templates"].get_template("_words.html").module


def _today(request: Request) -> dt.date:
    return desk_of(request).clock().astimezone(AGENCY_ZONE).date()


def _address(value: str) -> str | None:
    """An e-mail address as typed in the form, or None when it cannot be one."""
    email = value.strip()
    if not (3 <= len(email) <= EMAIL_MAX) or not email.isprintable() or " " in email:
        return None
    local, at, domain = email.rpartition("@")
    return email if at and local and domain and not email_key(email).startswith("@") else None


def _day(value: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat((value or "")[:10])
    except ValueError:
        return None


async def list_page(
    request: Request,
    errors: Mapping[str, str] | None = None,
    sent: Mapping[str, str] | None = None,
) -> Response:
    desk = desk_of(request)
    rows = await asyncio.to_thread(list_requests, desk.engine())
    today = _today(request)
    return render(
        request,
        "privacy.html",
        status=422 if errors else 200,
        current="privacy",
        requests=rows,
        deadline=deadline,
        urgency=urgency,
        today=today,
        rights=list(PrivacyRight),
        errors=errors or {},
        sent=sent or {},
    )


async def privacy_page(request: Request) -> Response:
    return await list_page(request)


async def record_request(request: Request) -> Response:
    """The form of a new request: checked, recorded, audited; its page."""
    desk = desk_of(request)
    form = await form_body(request)
    email = _address(form.get("email", ""))
    right = form.get("right", "")
    received = _day(form.get("received"))
    today = _today(request)
    errors = {}
    if email is None:
        errors["email"] = "email"
    if right not in set(PrivacyRight):
        errors["right"] = "right"
    if received is None or not dt.date(2000, 1, 1) <= received <= today:
        errors["received"] = "received"
    if errors or email is None or received is None:
        return await list_page(request, errors, form)
    now = desk.clock()
    row = await asyncio.to_thread(
        add_request, desk.engine(), email, PrivacyRight(right), received, now
    )
    await record(request, AuditAction.PRIVACY_RECORDED, request_id=row.id, digest=row.email_digest)
    return RedirectResponse(f"{paths.DESK_PRIVACY}/{row.id}", status_code=303)


async def request_page(request: Request) -> Response:
    """A request: its deadline, what the site holds of the address (while open), its
    export, erasure and closing."""
    desk = desk_of(request)
    row = await asyncio.to_thread(get_request, desk.engine(), request.path_params["request_id"])
    if row is None:
        return render(request, "not_found.html", 404)
    found = None
    if row.closed_on is None and row.email:
        found = await asyncio.to_thread(find, privacy_tools(request), row.email)
        await record(
            request, AuditAction.PRIVACY_VIEWED, request_id=row.id, digest=row.email_digest
        )
    done = request.query_params.get("done")
    return render(
        request,
        "privacy_request.html",
        current="privacy",
        row=row,
        found=found,
        due=deadline(row.received_on),
        urgency=urgency(deadline(row.received_on), _today(request)),
        today=_today(request),
        outcomes=list(PrivacyOutcome),
        done=done if done in ("erased", "closed", "not_open") else None,
        error=request.query_params.get("error") == "1",
        status_of=lambda status: SHOWN_OF.get(status, Shown.WAITING),
        labels=field_labels(),
        describe=lead_source.describe,
    )


def _back(request_id: int, **query: str) -> RedirectResponse:
    url = f"{paths.DESK_PRIVACY}/{request_id}" + query_string(query)
    return RedirectResponse(url, status_code=303)


async def _open_row(request: Request) -> DeskPrivacyRequest | Response:
    """The request of the path while open (with its address), else where to go instead."""
    request_id = request.path_params["request_id"]
    row = await asyncio.to_thread(get_request, desk_of(request).engine(), request_id)
    if row is None:
        return render(request, "not_found.html", 404)
    if row.closed_on is not None or not row.email:
        return _back(request_id, done="not_open")
    return row


async def _done(
    request: Request, row: DeskPrivacyRequest, action: AuditAction, values: Mapping[str, Any]
) -> None:
    """Note on the request what was just done (``values``) with its audit line, together
    (the line is written even if the request was closed meanwhile: it was done)."""
    desk, person = desk_of(request), signed_in(request)
    update = partial(
        _update,
        desk.engine(),
        row.id or 0,
        values,
        person.person_id,
        action,
        row.email_digest,
        desk.clock(),
        done=True,
    )
    await asyncio.to_thread(update)


@requires_fresh_passkey
async def export(request: Request) -> Response:
    """The address's data as a file (the form's ``format``: ``json`` or ``csv``), audited."""
    row = await _open_row(request)
    if isinstance(row, Response):
        return row
    desk = desk_of(request)
    form = await form_body(request)
    kind = "csv" if form.get("format") == "csv" else "json"
    now = desk.clock()
    found = await asyncio.to_thread(find, privacy_tools(request), row.email or "")
    if kind == "csv":
        words, labels = _words(request), field_labels()
        header = [words.PRIVACY_COLUMNS.get(name) or labels.get(name, name) for name in COLUMNS]
        body, media = export_csv(found, header), "text/csv; charset=utf-8"
    else:
        body, media = export_json(row.email or "", found, now), "application/json"
    await _done(request, row, AuditAction.PRIVACY_EXPORTED, {"exported_at": now})
    stamp = now.astimezone(AGENCY_ZONE).strftime("%Y%m%d-%H%M")
    name = f"privacidad-{row.id}-{stamp}.{kind}"
    return Response(
        body, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@requires_fresh_passkey
async def erase_everywhere(request: Request) -> Response:
    """Erase the address everywhere (its form's box ticked), audited; its page says what
    was deleted and what the agency must still delete by hand."""
    row = await _open_row(request)
    if isinstance(row, Response):
        return row
    desk = desk_of(request)
    form = await form_body(request)
    if form.get("confirm") != "yes":
        return _back(row.id or 0, error="1")
    now = desk.clock()
    erased = await asyncio.to_thread(erase, privacy_tools(request), row.email or "", now)
    values = {"erased_at": now, "erased_leads": erased.leads, "by_hand": erased.by_hand}
    await _done(request, row, AuditAction.PRIVACY_ERASED, values)
    return _back(row.id or 0, done="erased", lines=str(erased.lines))


async def close(request: Request) -> Response:
    """Close the request with its date and outcome (the address goes), audited."""
    row = await _open_row(request)
    if isinstance(row, Response):
        return row
    desk, person = desk_of(request), signed_in(request)
    form = await form_body(request)
    outcome = form.get("outcome", "")
    closed_on = _day(form.get("closed_on"))
    if (
        outcome not in set(PrivacyOutcome)
        or closed_on is None
        or not row.received_on <= closed_on <= _today(request)
    ):
        return _back(row.id or 0, error="1")
    await asyncio.to_thread(
        close_request,
        desk.engine(),
        row.id or 0,
        PrivacyOutcome(outcome),
        closed_on,
        person.person_id,
        row.email_digest,
        desk.clock(),
    )
    return _back(row.id or 0, done="closed")


_ONE = f"{paths.DESK_PRIVACY}/{{request_id:int}}"
ROUTES = [
    Route(paths.DESK_PRIVACY, privacy_page, methods=["GET"], name="privacy"),
    Route(paths.DESK_PRIVACY, record_request, methods=["POST"], name="privacy_record"),
    Route(_ONE, request_page, methods=["GET"], name="privacy_request"),
    Route(f"{_ONE}/export", export, methods=["POST"], name="privacy_export"),
    Route(f"{_ONE}/erase", erase_everywhere, methods=["POST"], name="privacy_erase"),
    Route(f"{_ONE}/close", close, methods=["POST"], name="privacy_close"),
]

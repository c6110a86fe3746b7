""" "Personas" (``paths.DESK_PRIVACY``): the privacy requests (the RGPD's rights of access,
rectification, erasure...) the agency receives, from the day one arrives to its answer.
The screen's pages and forms; what they stand on, a module each:

- **Record a request**: who (an e-mail address), which right (``PrivacyRight``), when it
  was received; its one-month deadline shows (``deadline``), amber a week before it and red
  once it has passed (``urgency``): ``privacy_rules.py``. The requests' table:
  ``privacy_table.py``.
- **Find** everything the site holds about the address (``find``: its leads in the table,
  its lines in this host's spool folder, the copies sent to the webhooks and CRMs, with the
  ids they answered) and **erase** it everywhere (``erase``: ``leads erase``'s steps, in
  its order, then what the agency must still delete by hand): ``privacy_findings.py``.
- **Export** it (``export_json``, ``export_csv``: a CSV a Spanish Excel opens as it is):
  ``privacy_export.py``. Export and erase ask for the passkey again
  (``requires_fresh_passkey``).
- **Close** it with its date and outcome (``PrivacyOutcome``): the address is cleared; the
  row keeps what proves the answer (the address's ``email_digest``, the right, the dates,
  what was exported or erased, the outcome), deleted ``DESK_AUDIT_MONTHS`` after the
  closing by the desk's daily round (``privacy_table.purge_closed``), as the audit log's
  lines about it.

Every step is a line of the audit log with the request's number and the address's digest,
never the address or anything the person wrote.
"""

import asyncio
import datetime as dt
from collections.abc import Mapping
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from agency_site import paths
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
from agency_site.desk.inbox_export import field_labels
from agency_site.desk.models import DeskPrivacyRequest
from agency_site.desk.privacy_export import COLUMNS, export_csv, export_json
from agency_site.desk.privacy_findings import PrivacyTools, erase, find
from agency_site.desk.privacy_rules import PrivacyOutcome, PrivacyRight, deadline, urgency
from agency_site.desk.privacy_table import (
    add_request,
    close_request,
    get_request,
    list_requests,
    update_request,
)
from agency_site.leads import source as lead_source
from agency_site.leads.models import email_key
from agency_site.rules import EMAIL_MAX


def privacy_tools(request: Request) -> PrivacyTools:
    """This process's (``Desk.privacy_tools``: ``desk/runtime.py``), or a test's."""
    wired = desk_of(request).privacy_tools
    if wired is None:
        raise RuntimeError("Desk.privacy_tools is not wired (desk/runtime.py)")
    return wired()


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
        update_request,
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

"""The inbox as a CSV file that opens as it should in a Spanish Excel
(``{paths.DESK}/export.csv``, the inbox's link "Exportar CSV"):

- UTF-8 with a byte-order mark (Excel reads UTF-8 only after one: ``ñ``, ``à``, ``ç`` stay
  themselves), ``;`` between cells (a Spanish Excel's list separator, the comma being its
  decimal one), CRLF line ends, the dates as the agency's local time (``28/11/2026 19:24``);
- the inbox's current filters (search, form, status, month, stage), newest first;
- one column per field of every form (``forms.declarations.export_fields``), labelled as
  its form labels it, in Spanish: a field added to a form is a column by itself; then where
  the lead came from, one column per fact (``leads/source.py``); every word (forms,
  statuses, stages, sources) from ``_words.html``, as the pages say them;
- every cell that a spreadsheet would read as a formula (starting with ``=``, ``+``, ``-``,
  ``@``, a tab or a carriage return: CSV injection) starts with ``'``, so it is shown as
  text, never run.

Asks for the passkey again (``requires_fresh_passkey``) and is a line of the audit log
(``inbox_exported``) with its filters (``detail``; the search text, which may be a name,
kept only as its digest, ``email_digest``: the same as a privacy request's for an address).
Streamed: the leads are read ``CHUNK`` at a time through the inbox's keyset (the arrival
index), so a year of leads (30,000) is never in memory at once.
"""

import csv
import datetime as dt
import io
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from agency_site import locale, paths
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import AGENCY_ZONE, desk_of, local_time, record, requires_fresh_passkey
from agency_site.desk.inbox import Filters, InboxCursor, Row, search
from agency_site.forms.declarations import BY_KIND, export_fields, export_forms
from agency_site.forms.email import field_text
from agency_site.forms.fields import Control, FormField
from agency_site.forms.kinds import LeadKind
from agency_site.leads import source as lead_source
from agency_site.leads.models import email_digest
from agency_site.leads.monitor import spam_reason_words

EXPORT = f"{paths.DESK}/export.csv"
BOM = "\ufeff"
DELIMITER = ";"
# Leads read (and written) per step.
CHUNK = 500
# A cell starting with one of these is a formula to a spreadsheet (CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def excel_cell(value: Any) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula (``'`` before it)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def _declared() -> dict[str, FormField]:
    """Each exported field name and the first form field declaring it (its column)."""
    fields: dict[str, FormField] = {}
    for form in export_forms():
        for each in form.fields:
            fields.setdefault(each.name, each)
    return {name: fields[name] for name in export_fields()}


def field_labels() -> dict[str, str]:
    """Each exported field's column title: the label of the first form declaring it
    (``export_forms``)."""
    labels: dict[str, str] = {}
    with locale.active(locale.DEFAULT_LOCALE):
        for form in export_forms():
            for each in form.fields:
                labels.setdefault(each.name, form.field_words(each).label)
    return {name: labels[name] for name in export_fields()}


def _value(kind: str, name: str, column: FormField, value: Any) -> str:
    """A lead's field as a cell: its own form's choice by name, a date ``dd/mm/yyyy``."""
    try:
        declared = BY_KIND[LeadKind(kind)].field(name)
    except (ValueError, KeyError):
        declared = column
    if declared.control is Control.DATE and isinstance(value, str):
        try:
            return dt.date.fromisoformat(value).strftime("%d/%m/%Y")
        except ValueError:
            return value
    return field_text(declared, value)


class InboxCsv:
    """The CSV of the inbox: its header and rows, in the words of ``words`` (the template
    module of ``_words.html``)."""

    def __init__(self, words: Any) -> None:
        self.words = words
        self.columns = _declared()
        self.labels = field_labels()

    def header(self) -> list[str]:
        words = self.words
        return [
            "N.º",
            "Recibida",
            "Formulario",
            "Estado",
            "Etapa",
            "Idioma",
            *self.labels.values(),
            *(words.SOURCE[key] for key in lead_source.KEYS),
            "Motivo de spam",
        ]

    def row(self, row: Row) -> list[str]:
        words, fields = self.words, row.fields or {}
        with locale.active(locale.DEFAULT_LOCALE):
            values = [
                _value(row.kind, name, column, fields.get(name))
                for name, column in self.columns.items()
            ]
        return [
            str(row.id),
            local_time(row.created_at),
            words.KINDS.get(row.kind, row.kind),
            words.STATUS[row.status],
            words.STAGES[row.stage],
            words.LANGUAGES.get(row.language, row.language),
            *values,
            *(row.source.get(key, "") for key in lead_source.KEYS),
            spam_reason_words(row.spam_reason) if row.spam_reason else "",
        ]


def encoded(rows: list[list[str]]) -> bytes:
    """CSV lines of ``rows`` (every cell ``excel_cell``), ``;``, CRLF, UTF-8 (a lone
    surrogate an old row may hold written as its escape)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=DELIMITER, lineterminator="\r\n")
    writer.writerows([excel_cell(value) for value in row] for row in rows)
    return buffer.getvalue().encode("utf-8", "backslashreplace")


def chunks(
    engine: sa.Engine, filters: Filters, sheet: InboxCsv, size: int = CHUNK
) -> Iterator[bytes]:
    """The file, a step at a time: the mark and the header, then ``size`` leads per step,
    newest first, read from where the last step ended."""
    yield BOM.encode("utf-8") + encoded([sheet.header()])
    before: InboxCursor | None = None
    while True:
        page = search(engine, filters, before=before, size=size)
        if page.rows:
            yield encoded([sheet.row(row) for row in page.rows])
        if page.older is None:
            return
        before = page.older


def audit_detail(filters: Filters) -> str:
    """The filters an export applied, as the audit log keeps them: the search text (which
    may be a name) only as ``q=…`` (its digest is the line's ``digest``), e.g.
    ``form=quote status=delivered month=2026-11 q=…``; ``-`` for none."""
    kept = [f"{name}={value}" for name, value in filters.params().items() if value]
    return " ".join(part if not part.startswith("q=") else "q=…" for part in kept) or "-"


def file_name(now: dt.datetime, filters: Filters) -> str:
    """``solicitudes-2026-11-28.csv`` (``-filtradas`` when filtered)."""
    day = now.astimezone(AGENCY_ZONE).date().isoformat()
    return f"solicitudes-{day}{'-filtradas' if filters.any else ''}.csv"


@requires_fresh_passkey
async def export(request: Request) -> Response:
    desk = desk_of(request)
    filters = Filters.from_query(request.query_params)
    await record(
        request,
        AuditAction.INBOX_EXPORTED,
        detail=audit_detail(filters),
        digest=email_digest(filters.q) if filters.q else None,
    )
    words = request.scope["desk_templates"].get_template("_words.html").module
    sheet = InboxCsv(words)
    name = file_name(desk.clock(), filters)
    return StreamingResponse(
        chunks(desk.engine(), filters, sheet),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


ROUTES = [Route(EXPORT, export, methods=["GET"], name="inbox_export")]

"""A person's data as a file, for the rights of access and portability: one JSON document
(``export_json``: every stored column of each lead, the spool's lines, where copies went)
or a CSV a Spanish Excel opens as it is (``export_csv``: UTF-8 with its BOM, ``;`` between
cells, CRLF, a cell that starts like a formula neutralised)."""

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agency_site.desk.inbox_export import BOM, encoded
from agency_site.desk.privacy_findings import CopyElsewhere, Findings
from agency_site.leads import source as lead_source
from agency_site.leads.rgpd_commands import EXPORT_COLUMNS, EXPORT_FIELDS

# The forms' fields, each once, in the export's columns (the declarations say which).
FIELDS = EXPORT_FIELDS


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

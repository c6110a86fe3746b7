"""The agency's own pipeline on each lead (new → contacted → won / lost) and its private
notes on it: two small tables of the desk (``models.DeskLeadStage``, ``models.DeskNote``),
changed by POST forms of the lead's page (no JavaScript needed), each change a line of the
audit log written in the change's own transaction.

A lead with no stage row is ``new``: nothing is written for the thousands of leads the
agency never moves. The inbox shows the stage as a column and filters by it
(``stage_condition``). A note is personal data about the lead's person: it is deleted with
the lead, by the erasure and the purges (``forget``, called by the desk's plugin of the
lead core, and the foreign key's cascade on PostgreSQL).
"""

import asyncio
import datetime as dt
import unicodedata
from enum import StrEnum
from typing import Any
from urllib.parse import parse_qs

import sqlalchemy as sa
from sqlmodel import col
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from agency_site import paths
from agency_site.desk import audit
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import desk_of, signed_in
from agency_site.desk.models import NOTE_MAX, DeskLeadStage, DeskNote
from agency_site.leads.models import Lead
from agency_site.web_base.request_body import SlowBody, read_body

# A form's body: a note (2,000 characters, 4 bytes each at most, URL-encoded) and a little.
FORM_MAX = 40 * 1024
# Where the lead's page shows what happened (``?done=``): its words in lead.html.
DONE = ("stage", "stage_unknown", "note", "note_empty", "note_long")


class Stage(StrEnum):
    """Where the agency stands with a lead, in order."""

    NEW = "new"
    CONTACTED = "contacted"
    WON = "won"
    LOST = "lost"


def stage_condition(stage: Stage) -> Any:
    """The leads at ``stage`` (an inbox filter): ``new`` is also no row at all."""
    rows = sa.select(DeskLeadStage.lead_id).where(DeskLeadStage.stage == str(stage))
    if stage is Stage.NEW:
        moved = sa.select(DeskLeadStage.lead_id).where(DeskLeadStage.stage != str(Stage.NEW))
        return col(Lead.id).not_in(moved)
    return col(Lead.id).in_(rows)


def stages_of(engine: sa.Engine, lead_ids: list[int]) -> dict[int, Stage]:
    """The stage of each of ``lead_ids`` that has one other than ``new``."""
    if not lead_ids:
        return {}
    query = sa.select(DeskLeadStage.lead_id, DeskLeadStage.stage).where(
        col(DeskLeadStage.lead_id).in_(lead_ids)
    )
    with engine.connect() as connection:
        rows = connection.execute(query).all()
    return {lead_id: Stage(stage) for lead_id, stage in rows if stage in set(Stage)}


def set_stage(
    engine: sa.Engine, lead_id: int, stage: Stage, person_id: int, now: dt.datetime
) -> bool:
    """Put lead ``lead_id`` at ``stage``, with its audit line, in one transaction; False
    when there is no such lead (nothing written)."""
    with engine.begin() as connection:
        if connection.execute(sa.select(Lead.id).where(Lead.id == lead_id)).first() is None:
            return False
        table = DeskLeadStage.__table__
        changed = connection.execute(
            sa.update(table)
            .where(table.c.lead_id == lead_id)
            .values(stage=str(stage), changed_at=now, person_id=person_id)
        ).rowcount
        if not changed:
            connection.execute(
                sa.insert(table).values(
                    lead_id=lead_id, stage=str(stage), changed_at=now, person_id=person_id
                )
            )
        audit.record(connection, person_id, AuditAction.STAGE_CHANGED, lead_id=lead_id, at=now)
    return True


def clean_note(text: str) -> str:
    """A note as kept: NFC, its line ends ``\\n``, no other control character, trimmed."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    kept = "".join(ch for ch in text if ch == "\n" or ch.isprintable())
    return kept.strip()


def add_note(engine: sa.Engine, lead_id: int, text: str, person_id: int, now: dt.datetime) -> bool:
    """Add a note (already ``clean_note``, at most ``NOTE_MAX``) with its audit line, in one
    transaction; False when there is no such lead."""
    assert 0 < len(text) <= NOTE_MAX
    with engine.begin() as connection:
        if connection.execute(sa.select(Lead.id).where(Lead.id == lead_id)).first() is None:
            return False
        connection.execute(
            sa.insert(DeskNote).values(lead_id=lead_id, person_id=person_id, at=now, text=text)
        )
        audit.record(connection, person_id, AuditAction.NOTE_ADDED, lead_id=lead_id, at=now)
    return True


def notes_of(engine: sa.Engine, lead_id: int) -> list[DeskNote]:
    """A lead's notes, newest first."""
    query = (
        sa.select(DeskNote)
        .where(DeskNote.lead_id == lead_id)
        .order_by(col(DeskNote.at).desc(), col(DeskNote.id).desc())
    )
    with engine.connect() as connection:
        return [DeskNote.model_validate(row._mapping) for row in connection.execute(query)]


def forget(connection: sa.Connection) -> None:
    """In the transaction that just deleted leads: delete their stages and notes."""
    for table in (DeskNote, DeskLeadStage):
        connection.execute(sa.delete(table).where(col(table.lead_id).not_in(sa.select(Lead.id))))


async def form_fields(request: Request) -> dict[str, str]:
    """A form's fields (URL-encoded, bounded in size and time; the first value of each);
    {} for a body too long, too slow or not UTF-8."""
    try:
        body = await read_body(request, FORM_MAX)
        text = body.decode("utf-8") if body is not None else ""
    except (SlowBody, UnicodeDecodeError):
        return {}
    try:
        fields = parse_qs(text, keep_blank_values=True, max_num_fields=10)
    except ValueError:  # More fields than any form of the desk has.
        return {}
    return {name: values[0] for name, values in fields.items()}


def _back(lead_id: int, done: str) -> RedirectResponse:
    return RedirectResponse(f"{paths.desk_lead(lead_id)}?done={done}", status_code=303)


async def change_stage(request: Request) -> Response:
    desk, person = desk_of(request), signed_in(request)
    lead_id = request.path_params["lead_id"]
    stage = (await form_fields(request)).get("stage", "")
    if stage not in set(Stage):
        return _back(lead_id, "stage_unknown")
    found = await asyncio.to_thread(
        set_stage, desk.engine(), lead_id, Stage(stage), person.person_id, desk.clock()
    )
    if not found:
        return RedirectResponse(paths.desk_lead(lead_id), status_code=303)
    return _back(lead_id, "stage")


async def note(request: Request) -> Response:
    desk, person = desk_of(request), signed_in(request)
    lead_id = request.path_params["lead_id"]
    text = clean_note((await form_fields(request)).get("text", ""))
    if not text:
        return _back(lead_id, "note_empty")
    if len(text) > NOTE_MAX:
        return _back(lead_id, "note_long")
    found = await asyncio.to_thread(
        add_note, desk.engine(), lead_id, text, person.person_id, desk.clock()
    )
    if not found:
        return RedirectResponse(paths.desk_lead(lead_id), status_code=303)
    return _back(lead_id, "note")


ROUTES = [
    Route(
        f"{paths.desk_lead('{lead_id:int}')}/stage",
        change_stage,
        methods=["POST"],
        name="lead_stage",
    ),
    Route(f"{paths.desk_lead('{lead_id:int}')}/notes", note, methods=["POST"], name="lead_notes"),
]

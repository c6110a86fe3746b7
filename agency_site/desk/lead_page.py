"""A lead's own page (``paths.desk_lead``): everything the site knows about it, in Spanish.

- **Its fields**, each labelled as its form labels it (the form's declaration and its words,
  ``forms/declarations.py``, ``content/es/forms.yaml``): every field the form declares, in
  the form's order, an empty one said so; a choice by its option's name, a date in words.
  A field the lead holds that its form no longer declares follows, by its name. Nothing is
  listed by hand: a field added to a form shows by itself.
- **Where it came from** (``leads/source.py``: each fact the browser told, by its words in
  ``_words.html``), its language, when it arrived, its status in the owner's words.
- **Its delivery**: each attempt (``lead_attempts``: when, how it ended, the provider's
  short answer), what is known of the attempts made before they were recorded one by one,
  sends without an answer, the next try.
- **Its copies** at the webhooks and CRMs (``lead_webhooks``): destination (named from
  ``LEADS_WEBHOOK_URLS``, never by its URL), event, state, the receiver's own id.
- **A booking's history** (``booking_history``: each change as it happened; for a change
  made before that table, what the booking's own columns still say).
- **The agency's pipeline stage and private notes** (``pipeline.py``), and what the desk did
  with the lead (its lines of the audit log).

Opening it is a line of the audit log (``lead_viewed``); the page after one's own change
(``?done=``) is not a new one.
"""

import asyncio
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agency_site import locale, paths
from agency_site.bookings.models import Booking, BookingChange, BookingStatus
from agency_site.desk import audit, people, pipeline
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import desk_of, record, render
from agency_site.desk.inbox import SHOWN_OF, Shown
from agency_site.desk.models import NOTE_MAX, DeskAudit, DeskNote, DeskPerson
from agency_site.desk.pipeline import Stage
from agency_site.forms.declarations import BY_KIND, FormDeclaration
from agency_site.forms.email import field_text
from agency_site.forms.kinds import LeadKind
from agency_site.leads import source as lead_source
from agency_site.leads.models import Lead, LeadAttempt, LeadWebhook
from agency_site.leads.monitor import spam_reason_words
from agency_site.leads.rgpd import spam_purge_after
from agency_site.leads.statuses import LeadStatus

# How much of a copy's last error the page shows.
ERROR_SHOWN = 160
# The desk's lines about one lead shown on its page (the rest in "Registro").
AUDIT_SHOWN = 20


@dataclass(frozen=True)
class FieldShown:
    """One field of a lead as its page shows it."""

    name: str
    label: str
    value: str  # "" when the visitor left it empty.


def fields_shown(form: FormDeclaration | None, fields: Mapping[str, Any]) -> list[FieldShown]:
    """Every field ``form`` declares, in order, labelled by its words (Spanish), then any
    other field the lead holds (a field the form has dropped since), by its name."""
    shown: list[FieldShown] = []
    with locale.active(locale.DEFAULT_LOCALE):
        for each in form.fields if form else ():
            label = form.field_words(each).label
            shown.append(FieldShown(each.name, label, field_text(each, fields.get(each.name))))
    declared = {each.name for each in shown}
    for name, value in fields.items():
        if name not in declared:
            shown.append(FieldShown(name, name, "" if value is None else str(value)))
    return shown


@dataclass(frozen=True)
class WebhookCopy:
    """The lead's message for one destination."""

    destination: str
    event: str
    status: str
    attempts: int
    sent_at: dt.datetime | None
    remote_id: str | None
    error: str


@dataclass(frozen=True)
class BookingStep:
    """One step of a booking's history."""

    at: dt.datetime
    event: str  # requested, confirmed, declined, cancelled, rescheduled, expired, attended...
    date: dt.date
    time: str
    moved_from: str | None = None
    slot_lost: bool = False

    @property
    def slot_text(self) -> str:
        return slot_text(self.date, self.time)

    @property
    def moved_from_text(self) -> str:
        """The slot it was moved from (``slot_key``: ``2026-12-14T10:00``), as written."""
        day, _, time = (self.moved_from or "").partition("T")
        try:
            return slot_text(dt.date.fromisoformat(day), time)
        except ValueError:
            return self.moved_from or ""


def slot_text(date: dt.date, time: str) -> str:
    """A booking's slot as the page writes it: ``14/12/2026 a las 10:00``."""
    return f"{date.strftime('%d/%m/%Y')} a las {time}"


def _utc(moment: dt.datetime) -> dt.datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def booking_history(booking: Booking, changes: list[BookingChange]) -> list[BookingStep]:
    """A booking's steps, oldest first: each recorded change (``booking_history``), and
    what the booking's columns say of the changes made before that table (its request,
    its last decision, its last move, its attendance) when no recorded change says it."""
    steps = [
        BookingStep(_utc(c.at), c.event, c.date, c.time, c.moved_from, c.slot_lost) for c in changes
    ]
    events = {step.event for step in steps}
    here = (booking.date, booking.time)
    if "requested" not in events:
        steps.append(BookingStep(_utc(booking.created_at), "requested", *here))
    decided = booking.state != BookingStatus.PENDING and booking.state not in events
    if decided and booking.decided_at is not None:
        steps.append(BookingStep(_utc(booking.decided_at), booking.state, *here))
    if booking.moved_at is not None and "rescheduled" not in events:
        steps.append(BookingStep(_utc(booking.moved_at), "rescheduled", *here, booking.moved_from))
    if booking.attendance and booking.attendance not in events and booking.attendance_at:
        steps.append(BookingStep(_utc(booking.attendance_at), booking.attendance, *here))
    return sorted(steps, key=lambda step: step.at)


@dataclass(frozen=True)
class LeadView:
    """What a lead's page shows."""

    lead: Lead
    form: FormDeclaration | None
    status: Shown
    fields: list[FieldShown]
    attempts: list[LeadAttempt]
    copies: list[WebhookCopy]
    booking: Booking | None
    history: list[BookingStep]
    stage: Stage
    notes: list[DeskNote]
    lines: list[DeskAudit]
    people: dict[int, DeskPerson] = field(default_factory=dict)

    @property
    def who(self) -> str:
        """The lead's person as the page's title names them: name, else address."""
        values = {each.name: each.value for each in self.fields}
        return values.get("name") or values.get("email") or ""

    @property
    def booking_slot(self) -> str:
        return slot_text(self.booking.date, self.booking.time) if self.booking else ""

    @property
    def unrecorded_attempts(self) -> int:
        """Attempts made before they were recorded one by one (the lead's own count)."""
        return max(self.lead.attempts - len(self.attempts), 0)


def read(engine: sa.Engine, lead_id: int, names: Mapping[str, str]) -> LeadView | None:
    """Everything about lead ``lead_id`` (None: no such lead); ``names``: each webhook
    endpoint's name (``LeadTools.endpoint_names``)."""
    with Session(engine, expire_on_commit=False) as session:
        lead = session.get(Lead, lead_id)
        if lead is None:
            return None
        attempts = session.exec(
            select(LeadAttempt)
            .where(LeadAttempt.lead_id == lead_id)
            .order_by(col(LeadAttempt.at), col(LeadAttempt.id))
        ).all()
        hooks = session.exec(
            select(LeadWebhook)
            .where(LeadWebhook.lead_id == lead_id)
            .order_by(col(LeadWebhook.created_at), col(LeadWebhook.id))
        ).all()
        booking = session.get(Booking, lead_id)
        changes = session.exec(
            select(BookingChange)
            .where(BookingChange.lead_id == lead_id)
            .order_by(col(BookingChange.at), col(BookingChange.id))
        ).all()
    copies = [
        WebhookCopy(
            destination=names.get(hook.endpoint, f"webhook {hook.endpoint[:6]}"),
            event=hook.event,
            status=hook.status,
            attempts=hook.attempts,
            sent_at=hook.sent_at,
            remote_id=hook.remote_id,
            error=" ".join((hook.last_error or "").split())[:ERROR_SHOWN],
        )
        for hook in hooks
    ]
    try:
        form = BY_KIND[LeadKind(lead.kind)]
    except ValueError:
        form = None
    fields = lead.fields if isinstance(lead.fields, Mapping) else {}
    lines = audit.read(engine, lead_id=lead_id, size=AUDIT_SHOWN).lines
    notes = pipeline.notes_of(engine, lead_id)
    authors = {note.person_id for note in notes} | {line.person_id for line in lines}
    return LeadView(
        lead=lead,
        form=form,
        status=SHOWN_OF.get(lead.status, Shown.WAITING),
        fields=fields_shown(form, fields),
        attempts=list(attempts),
        copies=copies,
        booking=booking,
        history=booking_history(booking, list(changes)) if booking is not None else [],
        stage=pipeline.stages_of(engine, [lead_id]).get(lead_id, Stage.NEW),
        notes=notes,
        lines=lines,
        people=people.people_named(engine, {each for each in authors if each is not None}),
    )


async def lead_page(request: Request) -> Response:
    desk = desk_of(request)
    lead_id = request.path_params["lead_id"]
    tools = desk.lead_tools() if desk.lead_tools else None
    names = tools.endpoint_names() if tools else {}
    done, spam = request.query_params.get("done"), request.query_params.get("spam")
    view = await asyncio.to_thread(read, desk.engine(), lead_id, names)
    if view is None:
        raise HTTPException(404)
    if done is None and spam is None:  # Opened, not the page after one's own change.
        await record(request, AuditAction.LEAD_VIEWED, lead_id=lead_id)
    keep_days = tools.spam_keep_days if tools else None
    purge_after = (
        spam_purge_after(view.lead, keep_days)
        if keep_days and view.lead.status == LeadStatus.SPAM
        else None
    )
    return render(
        request,
        "lead.html",
        current="inbox",
        view=view,
        stages=list(Stage),
        note_max=NOTE_MAX,
        done=done if done in pipeline.DONE else None,
        # What "No es spam" / "Es spam" did (spam_review.py): shown when _words has it.
        spam_done=spam or "",
        lost=request.query_params.get("lost", ""),
        spam_reason=spam_reason_words(view.lead.spam_reason) if view.lead.spam_reason else "",
        purge_after=purge_after,
        source_keys=lead_source.KEYS,
    )


ROUTES = [Route(paths.desk_lead("{lead_id:int}"), lead_page, methods=["GET"], name="lead")]

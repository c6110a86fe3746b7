"""The spam review (``paths.DESK_SPAM``): the leads in quarantine (status ``spam``), newest
first, each with why it was taken for spam (the spam digest's words, ``owner-alerts.yaml``),
when it will be purged (``rgpd.spam_purge_after``) and its fields; and the owner's two
answers, POST forms that work without JavaScript:

- **No es spam** releases it (``LeadStore.release_spam``, the owner's ``OWNER_RELEASE``):
  delivered as if it had just arrived, sent at once through the lead core's delivery (the
  intake's way: claimed in the release's transaction, then sent) when EmailJS is
  configured, else queued; a booking holds its slot again, or is released without it and
  the page says why (taken, busy, the day full), so the owner proposes another hour.
- **Es spam** confirms it (``leads.spam_confirmed_at``): it is purged a day later
  (``rgpd.CONFIRMED_SPAM_GRACE``) instead of ``LEADS_SPAM_KEEP_DAYS`` after it was shown;
  until then "No es spam" still undoes it.

**Opening the page marks what it shows as shown** (``rgpd.mark_spam_listed``): the leads of
the page drawn, no other (a lead that arrives after, or is on an older page never opened,
keeps waiting: no quarantined lead is purged without having been shown). Each answer and
each opening is a line of the audit log.
"""

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import Session, col, select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from agency_site import paths
from agency_site.desk import audit
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import desk_of, query_string, record, render, signed_in
from agency_site.desk.inbox import Filters, InboxCursor, Shown, search
from agency_site.desk.lead_page import FieldShown, fields_shown
from agency_site.desk.lead_tools import LeadTools
from agency_site.desk.pipeline import form_fields
from agency_site.emailjs import Outcome
from agency_site.forms.declarations import BY_KIND
from agency_site.forms.kinds import LeadKind
from agency_site.leads.lease import new_claim_token
from agency_site.leads.models import Lead
from agency_site.leads.monitor import spam_reason_words
from agency_site.leads.problems import problem
from agency_site.leads.rgpd import mark_spam_listed, spam_purge_after
from agency_site.leads.statuses import LeadStatus

logger = logging.getLogger(__name__)

PAGE_SIZE = 50
# What an answer did (``?spam=``): its words in _words.html's SPAM_DONE.
RELEASE_OUTCOMES = {
    Outcome.SENT: "sent",
    Outcome.CONTENT: "rejected",
    Outcome.CONFIGURATION: "held",
}
DONE = ("sent", "queued", "held", "rejected", "not_spam", "confirmed")
# Why a released booking holds no slot (``Release.lost``): its words in SLOT_LOST.
LOST = ("taken", "busy", "day_full", "email_cap", "network_cap")


@dataclass(frozen=True)
class SpamRow:
    """A lead in quarantine as the review shows it."""

    lead: Lead
    reason: str  # In the owner's words.
    purge_after: dt.datetime | None
    fields: list[FieldShown]


def _leads(engine: sa.Engine, ids: list[int]) -> dict[int, Lead]:
    with Session(engine, expire_on_commit=False) as session:
        found = session.exec(select(Lead).where(col(Lead.id).in_(ids))).all()
    return {lead.id: lead for lead in found if lead.id is not None}


def review(
    engine: sa.Engine, keep_days: int, now: dt.datetime, before: InboxCursor | None
) -> tuple[list[SpamRow], InboxCursor | None]:
    """One page of the quarantine, newest first (older than ``before``), marked as shown
    to the owner at ``now``; and the cursor of the next, older page (None: the last)."""
    page = search(engine, Filters(status=Shown.SPAM), before=before, size=PAGE_SIZE)
    ids = [row.id for row in page.rows]
    mark_spam_listed(engine, ids, now)
    leads = _leads(engine, ids)
    rows = []
    for lead_id in ids:
        lead = leads.get(lead_id)
        if lead is None or lead.status != LeadStatus.SPAM:  # Released meanwhile.
            continue
        try:
            form = BY_KIND[LeadKind(lead.kind)]
        except ValueError:
            form = None
        rows.append(
            SpamRow(
                lead=lead,
                reason=spam_reason_words(lead.spam_reason),
                purge_after=spam_purge_after(lead, keep_days),
                fields=[each for each in fields_shown(form, lead.fields or {}) if each.value],
            )
        )
    return rows, page.older


def confirm(engine: sa.Engine, lead_id: int, person_id: int, now: dt.datetime) -> bool:
    """ "Es spam": lead ``lead_id`` confirmed as spam at ``now`` (shown, too, if it was not
    yet), with its audit line, in one transaction; False if it is not in quarantine."""
    with engine.begin() as connection:
        changed = connection.execute(
            sa.update(Lead)
            .where(col(Lead.id) == lead_id, Lead.status == LeadStatus.SPAM)
            .values(
                spam_confirmed_at=now,
                spam_listed_at=sa.func.coalesce(Lead.spam_listed_at, now),
            )
        ).rowcount
        if changed:
            audit.record(connection, person_id, AuditAction.SPAM_CONFIRMED, lead_id=lead_id, at=now)
    return bool(changed)


async def release(tools: LeadTools, lead_id: int) -> tuple[str, str | None]:
    """ "No es spam": what happened (``DONE``) and, for a booking released without its
    slot, why (``LOST``)."""
    delivery, store = tools.delivery, tools.store
    token = new_claim_token() if delivery.configured else None
    lease = delivery.policy.lease if token else None
    released = await asyncio.to_thread(store.release_spam, lead_id, token, lease)
    if not released:
        return "not_spam", None
    outcome = "queued"
    if token is not None and (lead := await asyncio.to_thread(store.get, lead_id)) is not None:
        try:
            sent = await delivery.attempt_claimed(lead, token)
        except Exception as error:  # The store's own: its claim expires, the loop sends it.
            logger.error("Lead %s released from spam, not sent yet: %s", lead_id, problem(error))
        else:
            outcome = RELEASE_OUTCOMES.get(sent.outcome, "queued")
    return outcome, released.lost


def _after(lead_id: int, form: dict[str, str], done: str, lost: str | None) -> Response:
    """Back where the button was: the lead's page or the review, saying what happened."""
    where = paths.desk_lead(lead_id) if form.get("back") == "lead" else paths.DESK_SPAM
    query = query_string({"spam": done, "lead": lead_id, "lost": lost or ""})
    return RedirectResponse(where + query, status_code=303)


async def spam_page(request: Request) -> Response:
    desk = desk_of(request)
    tools = desk.lead_tools() if desk.lead_tools else None
    keep_days = tools.spam_keep_days if tools else 7
    before = InboxCursor.parse(request.query_params.get("before"))
    rows, older = await asyncio.to_thread(review, desk.engine(), keep_days, desk.clock(), before)
    done = request.query_params.get("spam")
    if done is None:  # Opened, not the page after one's own answer.
        await record(request, AuditAction.SPAM_REVIEWED)
    lost = request.query_params.get("lost")
    answered = request.query_params.get("lead", "")
    return render(
        request,
        "spam.html",
        current="spam",
        rows=rows,
        keep_days=keep_days,
        spam_done=done if done in DONE else "",
        lost=lost if lost in LOST else "",
        answered=int(answered) if answered.isdigit() and len(answered) < 19 else None,
        older_url=older and paths.DESK_SPAM + query_string({"before": str(older)}),
        wired=tools is not None,
    )


async def release_lead(request: Request) -> Response:
    desk = desk_of(request)
    lead_id = request.path_params["lead_id"]
    form = await form_fields(request)
    if desk.lead_tools is None:  # Not wired to the lead core: nothing can be sent.
        return _after(lead_id, form, "not_spam", None)
    done, lost = await release(desk.lead_tools(), lead_id)
    if done != "not_spam":
        await record(request, AuditAction.SPAM_RELEASED, lead_id=lead_id)
    return _after(lead_id, form, done, lost)


async def confirm_lead(request: Request) -> Response:
    desk, person = desk_of(request), signed_in(request)
    lead_id = request.path_params["lead_id"]
    form = await form_fields(request)
    confirmed = await asyncio.to_thread(
        confirm, desk.engine(), lead_id, person.person_id, desk.clock()
    )
    return _after(lead_id, form, "confirmed" if confirmed else "not_spam", None)


ROUTES = [
    Route(paths.DESK_SPAM, spam_page, methods=["GET"], name="spam"),
    Route(
        f"{paths.DESK_SPAM}/{{lead_id:int}}/release",
        release_lead,
        methods=["POST"],
        name="spam_release",
    ),
    Route(
        f"{paths.DESK_SPAM}/{{lead_id:int}}/confirm",
        confirm_lead,
        methods=["POST"],
        name="spam_confirm",
    ),
]

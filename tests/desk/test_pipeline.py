"""The agency's pipeline on a lead (new → contacted → won / lost) and its private notes:
POST forms of the lead's page, audited; the stage a column and a filter of the inbox; and
everything the desk and the lead core keep about a lead (its notes, stage, delivery
attempts, booking history) deleted with it by every erasure and purge. On SQLite (where
foreign keys do not cascade: the ``forget`` hooks do it) and PostgreSQL."""

import datetime as dt

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agency_site import paths
from agency_site.bookings.models import BookingChange
from agency_site.desk import pipeline
from agency_site.desk.inbox import Filters, search
from agency_site.desk.models import NOTE_MAX, DeskAudit, DeskLeadStage, DeskNote
from agency_site.desk.pipeline import Stage
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead, LeadAttempt, email_digest
from agency_site.leads.rgpd import mark_spam_listed
from agency_site.leads.statuses import SpamReason
from agency_site.leads.store import LeadStore
from tests.desk.conftest import DeskSite
from tests.desk.lead_desk import QUOTE_FIELDS, add, wire
from tests.desk.test_lead_page import _text


def _audit(site: DeskSite) -> list[tuple]:
    with site.engine.connect() as connection:
        query = sa.select(DeskAudit.action, DeskAudit.lead_id).order_by(DeskAudit.id)
        rows = connection.execute(query.where(DeskAudit.action != "lead_viewed"))
        return [tuple(row) for row in rows if row.lead_id is not None]


def test_moving_a_lead_along_the_pipeline_shows_in_the_inbox_and_filters_it(
    desk_site: DeskSite,
) -> None:
    site, tools = wire(desk_site)
    first, second = add(tools.store), add(tools.store, LeadKind.HERO, {"email": "b@example.com"})
    browser = site.signed_in()
    answer = browser.post(f"{paths.desk_lead(first)}/stage", data={"stage": "contacted"})
    assert answer.status_code == 303
    assert answer.headers["location"] == f"{paths.desk_lead(first)}?done=stage"
    assert "Etapa guardada." in browser.get(answer.headers["location"]).text

    inbox = _text(browser.get(paths.DESK).text)
    assert "Contactada" in inbox and "Nueva" in inbox
    assert [row.id for row in search(site.engine, Filters(stage=Stage.CONTACTED)).rows] == [first]
    assert [row.id for row in search(site.engine, Filters(stage=Stage.NEW)).rows] == [second]
    filtered = browser.get(paths.DESK, params={"stage": "contacted"}).text
    assert paths.desk_lead(first) in filtered and paths.desk_lead(second) not in filtered

    browser.post(f"{paths.desk_lead(first)}/stage", data={"stage": "won"})
    browser.post(f"{paths.desk_lead(first)}/stage", data={"stage": "new"})
    stages = pipeline.stages_of(site.engine, [first, second])
    assert stages == {first: Stage.NEW}
    assert {row.id for row in search(site.engine, Filters(stage=Stage.NEW)).rows} == {
        first,
        second,
    }
    assert _audit(site) == [("stage_changed", first)] * 3


def test_an_unknown_stage_or_lead_changes_nothing(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store)
    browser = site.signed_in()
    answer = browser.post(f"{paths.desk_lead(lead_id)}/stage", data={"stage": "closed"})
    assert answer.headers["location"].endswith("?done=stage_unknown")
    browser.post(f"{paths.desk_lead(999)}/stage", data={"stage": "won"})
    browser.post(f"{paths.desk_lead(999)}/notes", data={"text": "hola"})
    with site.engine.connect() as connection:
        assert not connection.execute(sa.select(DeskLeadStage)).all()
        assert not connection.execute(sa.select(DeskNote)).all()
    assert _audit(site) == []


@pytest.mark.parametrize("stage", list(Stage))
def test_every_stage_filter_keeps_exactly_the_leads_at_it(desk_site: DeskSite, stage) -> None:
    site, tools = wire(desk_site)
    ids = [add(tools.store) for _ in range(len(Stage) + 1)]
    for lead_id, each in zip(ids, [*Stage, Stage.CONTACTED], strict=True):
        if each is not Stage.NEW:
            pipeline.set_stage(site.engine, lead_id, each, 1, site.clock())
    expected = [
        lead_id
        for lead_id, each in zip(ids, [*Stage, Stage.CONTACTED], strict=True)
        if each is stage
    ]
    assert sorted(row.id for row in search(site.engine, Filters(stage=stage)).rows) == expected


def test_notes_are_kept_newest_first_with_their_author(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store)
    browser = site.signed_in("ana@example.com")
    browser.post(f"{paths.desk_lead(lead_id)}/notes", data={"text": "Llamada: volver el lunes"})
    site.clock.advance(minutes=2)
    answer = browser.post(
        f"{paths.desk_lead(lead_id)}/notes", data={"text": "Presupuesto enviado\r\n¡Año nuevo!"}
    )
    assert answer.headers["location"] == f"{paths.desk_lead(lead_id)}?done=note"
    page = browser.get(answer.headers["location"]).text
    text = _text(page)
    assert "Nota guardada." in text
    assert text.index("Presupuesto enviado") < text.index("Llamada: volver el lunes")
    assert "ana@example.com" in text
    notes = pipeline.notes_of(site.engine, lead_id)
    assert [note.text for note in notes] == [
        "Presupuesto enviado\n¡Año nuevo!",
        "Llamada: volver el lunes",
    ]
    assert _audit(site) == [("note_added", lead_id)] * 2


def test_an_empty_or_too_long_note_is_refused(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store)
    browser = site.signed_in()
    empty = browser.post(f"{paths.desk_lead(lead_id)}/notes", data={"text": " \u200b\x00 "})
    assert empty.headers["location"].endswith("?done=note_empty")
    long = browser.post(f"{paths.desk_lead(lead_id)}/notes", data={"text": "a" * (NOTE_MAX + 1)})
    assert long.headers["location"].endswith("?done=note_long")
    fits = browser.post(f"{paths.desk_lead(lead_id)}/notes", data={"text": "ñ" * NOTE_MAX})
    assert fits.headers["location"].endswith("?done=note")
    assert [len(note.text) for note in pipeline.notes_of(site.engine, lead_id)] == [NOTE_MAX]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_a_kept_note_is_printable_text_and_its_line_ends(text: str) -> None:
    kept = pipeline.clean_note(text)
    assert kept == kept.strip()
    assert all(ch == "\n" or ch.isprintable() for ch in kept)
    assert pipeline.clean_note(kept) == kept


def _everything_about(store: LeadStore, lead_id: int) -> dict[str, int]:
    """How many rows of each kind belong to lead ``lead_id``."""
    tables = {
        "lead": (Lead, Lead.id),
        "notes": (DeskNote, DeskNote.lead_id),
        "stage": (DeskLeadStage, DeskLeadStage.lead_id),
        "attempts": (LeadAttempt, LeadAttempt.lead_id),
        "history": (BookingChange, BookingChange.lead_id),
    }
    with store.engine.connect() as connection:
        return {
            name: connection.execute(
                sa.select(sa.func.count()).select_from(table).where(column == lead_id)
            ).scalar_one()
            for name, (table, column) in tables.items()
        }


def _lead_with_everything(site: DeskSite, store: LeadStore, *, spam: bool = False) -> int:
    """A booking lead with a note, a stage, an attempt and its booking's history."""
    lead_id = add(store, LeadKind.BOOKING, spam=SpamReason.DISPOSABLE if spam else None)
    if spam:  # Released and quarantined again: a booking's history, no attempt yet.
        store.release_spam(lead_id)
        with store.engine.begin() as connection:
            connection.execute(sa.update(Lead).where(Lead.id == lead_id).values(status="spam"))
    pipeline.set_stage(site.engine, lead_id, Stage.CONTACTED, 1, site.clock())
    pipeline.add_note(site.engine, lead_id, "Ana prefiere por la tarde", 1, site.clock())
    with store.engine.begin() as connection:
        connection.execute(sa.insert(LeadAttempt).values(lead_id=lead_id, outcome="retry"))
    return lead_id


ERASURES = ["erase_email", "erase_digests", "purge", "purge_spam"]


@pytest.mark.parametrize("how", ERASURES)
def test_erasing_or_purging_a_lead_deletes_its_notes_stage_attempts_and_history(
    desk_site: DeskSite, how: str
) -> None:
    site, tools = wire(desk_site)
    store = tools.store
    lead_id = _lead_with_everything(site, store, spam=how == "purge_spam")
    kept = add(store, LeadKind.QUOTE, QUOTE_FIELDS)  # Another person's: untouched.
    pipeline.add_note(site.engine, kept, "Cliente de siempre", 1, site.clock())
    assert _everything_about(store, lead_id) == {
        "lead": 1,
        "notes": 1,
        "stage": 1,
        "attempts": 1,
        "history": 1,
    }
    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
    if how == "erase_email":
        assert store.erase_email("ANA@example.com") == 1
    elif how == "erase_digests":
        assert store.erase_digests({email_digest("ana@example.com"): later}) == 1
    elif how == "purge":
        with store.engine.begin() as connection:  # Received long ago: past its keeping.
            connection.execute(
                sa.update(Lead).where(Lead.id == lead_id).values(created_at=later - dt.timedelta(days=800))
            )  # fmt: skip
        assert store.purge(later - dt.timedelta(days=700)).deleted == 1
    else:
        mark_spam_listed(store.engine, [lead_id], later - dt.timedelta(days=30))
        assert store.purge_spam(later - dt.timedelta(days=7)) == 1
    assert _everything_about(store, lead_id) == dict.fromkeys(
        ("lead", "notes", "stage", "attempts", "history"), 0
    )
    assert [note.text for note in pipeline.notes_of(site.engine, kept)] == ["Cliente de siempre"]

"""A lead's own page: every field its form declares, labelled by the form's words (the
declarations walked: a form or field added later is covered by itself), where it came
from, each delivery attempt (a failure then a success, through the fake EmailJS), its
copies at the webhooks with the receiver's id, a booking's history after confirm, move and
cancel; opening it is a line of the audit log. On SQLite and PostgreSQL."""

import datetime as dt
import html
import re

import pytest
import sqlalchemy as sa
from pytest_httpserver import HTTPServer

from agency_site import locale, paths
from agency_site.bookings import reschedule, slots
from agency_site.bookings.models import Booking, BookingChange, BookingStatus
from agency_site.desk import lead_page
from agency_site.desk.models import DeskAudit
from agency_site.forms.declarations import FORMS, FormDeclaration
from agency_site.forms.fields import Control, FormField
from agency_site.leads.models import AttemptOutcome, Lead, LeadAttempt
from agency_site.leads.source import KEYS
from agency_site.leads.statuses import LeadStatus
from agency_site.rules import TIME_SLOTS
from tests.bookings.test_bookings import MONDAY, book
from tests.bookings.test_reschedule import TUESDAY, move
from tests.desk.conftest import DeskSite
from tests.desk.lead_desk import SOURCE, add, wire
from tests.desk.test_pages import _words
from tests.emailjs_fake import accept_sends, refuse_sends, sent_payloads
from tests.leads.test_webhooks import HOOK, channel, receiver, send

__all__ = ["receiver"]  # The webhook receiver fixture, used by name.


def _text(page: str) -> str:
    """A page's visible text, its spaces folded (what a reader sees, roughly)."""
    without_tags = re.sub(r"<[^>]+>", " ", page)
    return " ".join(html.unescape(without_tags).split())


def _value(field: FormField) -> str:
    """A value of ``field`` its form accepts."""
    if field.control is Control.CHOICE:
        return field.choices()[0].value
    if field.control is Control.DATE:
        return "2026-12-14"
    if field.control is Control.SLOT:
        return TIME_SLOTS[0]
    if field.control is Control.EMAIL:
        return "ana@example.com"
    if field.control is Control.PHONE:
        return "+34 600 12 34 56"
    return f"Valor de {field.name}: ñ à ç"


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.kind)
def test_the_page_shows_every_field_its_form_declares_by_its_label(
    desk_site: DeskSite, form: FormDeclaration
) -> None:
    site, tools = wire(desk_site)
    fields = {field.name: _value(field) for field in form.fields}
    # An optional field left empty is said so; a field the form no longer has shows by name.
    optional = [field for field in form.fields if not field.required]
    for field in optional[:1]:
        fields[field.name] = ""
    fields["old_field"] = "dato antiguo"
    lead_id = add(tools.store, form.kind, fields)

    page = site.signed_in().get(paths.desk_lead(lead_id))

    assert page.status_code == 200, page.text
    text = _text(page.text)
    with locale.active(locale.DEFAULT_LOCALE):
        for field in form.fields:
            label = form.field_words(field).label
            assert label in text, label
            shown = lead_page.field_text(field, fields[field.name]) or "Sin rellenar"
            assert f"{label} {shown}" in text, (label, shown)
    assert "old_field dato antiguo" in text


def test_a_choice_shows_its_option_s_name_and_a_date_its_words(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store)  # A quote for the service "branding".
    booking = add(tools.store, lead_page.LeadKind.BOOKING)
    browser = site.signed_in()
    assert "Servicio Branding y Diseño" in _text(browser.get(paths.desk_lead(lead_id)).text)
    assert "martes, 10 de marzo de 2026" in _text(browser.get(paths.desk_lead(booking)).text)


def test_the_page_says_where_the_lead_came_from_its_language_and_status(
    desk_site: DeskSite,
) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store, language="ca")
    text = _text(site.signed_in().get(paths.desk_lead(lead_id)).text)
    words = _words()
    for key, value in SOURCE.items():
        assert f"{words.SOURCE[key]} {value}" in text
    assert "Idioma Català" in text
    assert "Estado En espera" in text
    assert "Etapa Nueva" in text


def test_every_source_fact_attempt_outcome_and_booking_step_has_its_words() -> None:
    words = _words()
    assert set(words.SOURCE) == set(KEYS)
    assert set(words.ATTEMPTS) == {str(outcome) for outcome in AttemptOutcome}
    assert set(words.BOOKING_STATUS) == {str(status) for status in BookingStatus}
    steps = {"requested", "confirmed", "declined", "cancelled", "rescheduled", "expired"}
    assert set(words.BOOKING_STEPS) == steps | {"attended", "no_show"}


def test_each_attempt_shows_a_failure_then_the_success(
    desk_site: DeskSite, emailjs: HTTPServer
) -> None:
    """A send EmailJS refuses (HTTP 500) then one it accepts: two rows of ``lead_attempts``,
    each written with its outcome, both on the page in order with the provider's answer."""
    site, tools = wire(desk_site, emailjs)
    lead_id = add(tools.store)
    refuse_sends(emailjs, 500, "Internal trouble")
    assert pipeline_run(tools) == 0
    accept_sends(emailjs)
    assert pipeline_run(tools) == 1
    assert len(sent_payloads(emailjs)) == 2

    with tools.store.engine.connect() as connection:
        rows = connection.execute(
            sa.select(LeadAttempt.outcome, LeadAttempt.answer)
            .where(LeadAttempt.lead_id == lead_id)
            .order_by(LeadAttempt.id)
        ).all()
    assert [tuple(row) for row in rows] == [
        ("retry", "HTTP 500: Internal trouble"),
        ("sent", "HTTP 200: OK"),
    ]
    assert tools.store.get(lead_id).status == LeadStatus.SENT

    text = _text(site.signed_in().get(paths.desk_lead(lead_id)).text)
    failed = text.index("Falló: se reintentará Respuesta: HTTP 500: Internal trouble")
    assert failed < text.index("Enviada al correo de la agencia Respuesta: HTTP 200: OK")
    assert "Estado Entregada" in text


def test_an_attempt_keeps_a_bounded_answer_of_one_line(
    desk_site: DeskSite, emailjs: HTTPServer
) -> None:
    _, tools = wire(desk_site, emailjs)
    lead_id = add(tools.store)
    refuse_sends(emailjs, 400, "The template\nhas " + "x" * 5000)
    assert pipeline_run(tools) == 0
    with tools.store.engine.connect() as connection:
        answer = connection.execute(
            sa.select(LeadAttempt.answer).where(LeadAttempt.lead_id == lead_id)
        ).scalar_one()
    assert answer.startswith("HTTP 400: The template") and len(answer) == 200
    assert "\n" not in answer


def test_attempts_made_before_they_were_recorded_are_said(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store)
    with tools.store.engine.begin() as connection:
        connection.execute(
            sa.update(Lead).where(Lead.id == lead_id).values(attempts=3, last_error="HTTP 503")
        )
    text = _text(site.signed_in().get(paths.desk_lead(lead_id)).text)
    assert "3 intento(s) anterior(es) sin detalle" in text
    assert "el último dijo: HTTP 503" in text


def test_the_copies_at_the_webhooks_show_their_destination_state_and_id(
    desk_site: DeskSite, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK, method="POST").respond_with_json({"id": "crm-123"})
    url = receiver.url_for(HOOK)
    site, tools = wire(desk_site, webhook_urls=(url,))
    hooks = channel(tools.store, receiver)
    lead_id = add(tools.store)
    assert send(hooks) == 1

    page = site.signed_in().get(paths.desk_lead(lead_id)).text
    text = _text(page)
    assert "webhook (1) lead.created Entregada" in text
    assert "crm-123" in text
    assert url not in page and receiver.host not in page  # Never the URL: it may hold a token.


def test_a_booking_s_history_after_confirm_move_and_cancel(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = book(tools.store, MONDAY, "10:00")
    assert slots.decide(tools.store.engine, lead_id, BookingStatus.CONFIRMED)[0] is (
        slots.Decision.DONE
    )
    assert move(tools.store, lead_id, TUESDAY, "16:00")[0] is reschedule.Moved.DONE
    assert slots.decide(tools.store.engine, lead_id, BookingStatus.CANCELLED)[0] is (
        slots.Decision.DONE
    )

    text = _text(site.signed_in().get(paths.desk_lead(lead_id)).text)
    steps = [
        "Pedida · 14/12/2026 a las 10:00",
        "Confirmada por la agencia · 14/12/2026 a las 10:00",
        "Cambiada de hora: del 14/12/2026 a las 10:00 al 15/12/2026 a las 16:00",
        "Cancelada · 15/12/2026 a las 16:00",
    ]
    header = "La reserva Cancelada · 15/12/2026 a las 16:00 "
    history = text[text.index(header) + len(header) :]
    places = [history.index(step) for step in steps]
    assert places == sorted(places)


def test_a_booking_changed_before_its_history_was_kept_shows_what_its_columns_say(
    desk_site: DeskSite,
) -> None:
    """A booking of before the migration has no ``booking_history`` rows: its request,
    last decision and last move come from its columns."""
    _, tools = wire(desk_site)
    lead_id = book(tools.store, MONDAY, "10:00")
    slots.decide(tools.store.engine, lead_id, BookingStatus.CONFIRMED)
    move(tools.store, lead_id, TUESDAY, "16:00")
    with tools.store.engine.begin() as connection:
        connection.execute(sa.delete(BookingChange))
    view = lead_page.read(tools.store.engine, lead_id, {})
    assert [step.event for step in view.history] == ["requested", "confirmed", "rescheduled"]
    assert view.history[-1].moved_from_text == "14/12/2026 a las 10:00"


def test_history_from_columns_adds_only_what_no_recorded_change_says() -> None:
    at = dt.datetime(2026, 12, 1, 9, tzinfo=dt.UTC)
    booking = Booking(
        lead_id=1,
        date=MONDAY,
        time="10:00",
        state=BookingStatus.CANCELLED,
        created_at=at,
        decided_at=at + dt.timedelta(hours=3),
    )
    recorded = [
        BookingChange(lead_id=1, at=at + dt.timedelta(hours=1), event="confirmed", date=MONDAY, time="10:00")
    ]  # fmt: skip
    steps = lead_page.booking_history(booking, recorded)
    assert [step.event for step in steps] == ["requested", "confirmed", "cancelled"]


def test_opening_the_page_is_a_line_of_the_audit_log(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store)
    browser = site.signed_in()
    browser.get(paths.desk_lead(lead_id))
    browser.get(paths.desk_lead(lead_id) + "?done=note")  # After one's own change: not again.
    with site.engine.connect() as connection:
        lines = connection.execute(
            sa.select(DeskAudit.action, DeskAudit.lead_id).where(DeskAudit.action == "lead_viewed")
        ).all()
    assert [tuple(line) for line in lines] == [("lead_viewed", lead_id)]
    assert "abrió la ficha de una solicitud" in _text(browser.get(paths.desk_lead(lead_id)).text)


def test_an_unknown_lead_is_the_desk_s_not_found_page(desk_site: DeskSite) -> None:
    site, _ = wire(desk_site)
    browser = site.signed_in()
    assert browser.get(paths.desk_lead(999_999)).status_code == 404
    with site.engine.connect() as connection:
        assert not connection.execute(
            sa.select(DeskAudit).where(DeskAudit.lead_id == 999_999)
        ).all()


def test_the_page_needs_a_session(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store)
    page = site.stranger().get(paths.desk_lead(lead_id))
    assert page.status_code == 303 and "Núria" not in page.text


def pipeline_run(tools) -> int:
    """One attempt of the delivery loop (one due lead); how many delivered."""
    from tests.run_async import run

    return run(tools.delivery.retry_due(limit=1))

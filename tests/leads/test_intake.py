"""A submission from start to end: honeypot, validation, rate limit, storage, delivery."""

import datetime as dt

import pytest
from limits.aio.storage import MemoryStorage
from pytest_httpserver import HTTPServer

from agency_site.bookings import slots
from agency_site.content.form_words import COPY
from agency_site.emailjs import SEND_PATH
from agency_site.forms.declarations import HONEYPOT_FIELD
from agency_site.forms.email import date_es, kind_params
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result
from agency_site.leads.intake import LeadIntake, agency_today
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.source import describe
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import LeadStore
from agency_site.locale import active
from agency_site.working_calendar import default_calendar
from tests.emailjs_fake import (
    accept_sends,
    expected_payload,
    make_client,
    refuse_sends,
    sent_payloads,
)
from tests.lead_store import AGENCY_INBOX, make_delivery, new_engine
from tests.run_async import run

BOOKING_FORM = {
    "name": "Ana García",
    "email": "ana@example.com",
    "phone": "+34 600 12 34 56",
    "time": "16:00",
    "message": "Necesitamos una tienda online.",
    HONEYPOT_FIELD: "",
}


def booking_form(**changes) -> dict:
    """A booking as the browser sends it, for the first working day after today by default."""
    day = default_calendar().next_working_day(agency_today() + dt.timedelta(days=1))
    return {**BOOKING_FORM, "date": day.isoformat(), **changes}


def make_intake(store: LeadStore, server: HTTPServer | None, per_ip: int = 20) -> LeadIntake:
    client = make_client(server) if server is not None else None
    limiter = RateLimiter(MemoryStorage(), per_ip=per_ip, window_s=600)
    return LeadIntake(store, make_delivery(store, client), limiter)


def submit(intake: LeadIntake, kind: LeadKind, form, ip: str = "203.0.113.7"):
    return run(intake.submit(kind, form, ip))


def test_a_booking_is_stored_then_sent_with_the_spec_payload(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    form = booking_form()
    emailjs.expect_oneshot_request(
        SEND_PATH,
        method="POST",
        json=expected_payload(
            "template_booking",
            {
                "to_email": AGENCY_INBOX,
                "from_name": "Ana García",
                "reply_name": "Ana García",
                "from_email": "ana@example.com",
                "phone": "+34 600 12 34 56",
                "date": form["date"],
                "time": "16:00",
                "message": "Necesitamos una tienda online.",
                "reply_to": "ana@example.com",
                "date_es": date_es(form["date"]),
                "source": describe(None),
                "language": "Español",
                "reply_subject": COPY.booking.autoreply_subject,
                "reply_message": (
                    f"Hola, Ana García: hemos recibido tu solicitud de consulta para el "
                    f"{date_es(form['date'])} a las 16:00 (hora de Madrid). Te escribiremos "
                    "pronto para confirmar la cita."
                ),
                "confirm_url": "",
                "decline_url": "",
            }
            | kind_params(LeadKind.BOOKING),  # One template may serve several kinds.
        ),
    ).respond_with_data("OK")

    result = submit(make_intake(store, emailjs), LeadKind.BOOKING, form)

    emailjs.check_assertions()
    assert result.result is Result.SENT and result.errors == {}
    [lead] = store.all()
    assert (lead.kind, lead.status, lead.attempts) == ("booking", LeadStatus.SENT, 1)
    assert lead.fields["name"] == "Ana García"


def test_the_hero_sends_the_visitors_email_in_a_spanish_message(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    result = submit(make_intake(store, emailjs), LeadKind.HERO, {"email": "bea@example.com"})
    assert result.result is Result.SENT
    [payload] = sent_payloads(emailjs)
    assert payload["template_id"] == "template_contact"
    assert payload["template_params"] == {
        "to_email": AGENCY_INBOX,
        "from_email": "bea@example.com",
        "message": COPY.hero.email_message.format(email="bea@example.com"),
        "source": describe(None),
        "language": "Español",
    } | kind_params(LeadKind.HERO)


def test_a_catalan_booking_is_answered_and_auto_replied_in_catalan_and_stores_its_language(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    """The form of /ca/schedule sends language=ca: its messages are Catalan, the lead keeps
    the language, the agency's e-mail names it (in Spanish otherwise) and the visitor's
    auto-reply is Catalan."""
    accept_sends(emailjs)
    intake = make_intake(store, emailjs)
    refused = submit(intake, LeadKind.BOOKING, booking_form(language="ca", email="no"))
    assert refused.result is Result.INVALID
    assert refused.errors["email"] == COPY.of("ca").booking.fields["email"].error
    assert refused.errors["email"] != COPY.of("es").booking.fields["email"].error

    form = booking_form(language="ca")
    assert submit(intake, LeadKind.BOOKING, form).result is Result.SENT
    [lead] = store.all()
    assert lead.language == "ca"
    [payload] = sent_payloads(emailjs)
    params = payload["template_params"]
    assert params["language"] == "Català"
    assert params["date_es"] == date_es(form["date"])  # The agency's: Spanish.
    assert params["reply_subject"] == COPY.of("ca").booking.autoreply_subject
    with active("ca"):
        catalan_date = date_es(form["date"])
    assert catalan_date != date_es(form["date"])
    assert f"per al {catalan_date} a les 16:00" in params["reply_message"]


def test_an_unknown_language_is_answered_in_spanish(store: LeadStore, emailjs: HTTPServer) -> None:
    accept_sends(emailjs)
    intake = make_intake(store, emailjs)
    assert submit(intake, LeadKind.BOOKING, booking_form(language="fr")).result is Result.SENT
    assert store.all()[0].language == "es"


def test_a_provider_failure_keeps_the_lead_queued_and_is_not_a_success(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    refuse_sends(emailjs, 500, "Internal Server Error")
    result = submit(make_intake(store, emailjs), LeadKind.BOOKING, booking_form())
    assert result.result is Result.QUEUED
    [lead] = store.all()
    assert (lead.status, lead.last_error) == (LeadStatus.QUEUED, "HTTP 500: Internal Server Error")


@pytest.mark.parametrize(
    "form",
    [
        booking_form(time="03:00"),
        booking_form(message="x" * 100_000),
        booking_form(date="2020-01-01"),
        booking_form(name="A"),
    ],
    ids=["injected-time", "huge-message", "past-date", "short-name"],
)
def test_an_invalid_submission_stores_and_sends_nothing(
    store: LeadStore, emailjs: HTTPServer, form: dict
) -> None:
    accept_sends(emailjs)
    result = submit(make_intake(store, emailjs), LeadKind.BOOKING, form)
    assert result.result is Result.INVALID
    assert len(result.errors) == 1
    assert store.all() == []
    assert sent_payloads(emailjs) == []


def test_a_crafted_payload_that_is_not_a_form_is_invalid(store: LeadStore) -> None:
    result = submit(make_intake(store, None), LeadKind.HERO, ["ana@example.com"])
    assert result.result is Result.INVALID
    assert result.errors == {"email": COPY.hero.fields["email"].error}
    assert store.all() == []


def test_a_filled_honeypot_is_answered_as_success_and_kept_as_spam_never_sent(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    """A browser's autofill may fill the hidden field of a real visitor: the lead is kept
    (status spam, for the owner to release), never e-mailed, holding no slot."""
    accept_sends(emailjs)
    intake = make_intake(store, emailjs)
    form = booking_form(**{HONEYPOT_FIELD: "https://spam.example", "idempotency_key": "h" * 20})
    assert submit(intake, LeadKind.BOOKING, form).result is Result.SENT
    assert submit(intake, LeadKind.BOOKING, form).result is Result.SENT  # Sent twice: one lead.
    [lead] = store.all()
    assert lead.status == LeadStatus.SPAM and lead.fields["email"] == "ana@example.com"
    assert lead.spam_reason == SpamReason.HONEYPOT
    assert not lead.autoreply
    assert run(intake.delivery.retry_due()) == 0
    assert sent_payloads(emailjs) == []
    summary = store.summary()
    assert (summary.queued, summary.sending, summary.oldest_waiting_at) == (0, 0, None)
    assert slots.get(store.engine, lead.id) is None  # Holds no slot.
    # Without delivery configured a real lead is "queued": so is this one.
    unconfigured = submit(
        make_intake(store, None), LeadKind.HERO, {"email": "b@x.es", HONEYPOT_FIELD: "x"}
    )
    assert unconfigured.result is Result.QUEUED
    # An invalid one is answered as a real one is: the errors to fix.
    invalid = submit(
        intake, LeadKind.BOOKING, booking_form(**{HONEYPOT_FIELD: "x", "phone": "abc"})
    )
    assert invalid.result is Result.INVALID and "phone" in invalid.errors


def test_an_address_over_the_rate_limit_is_refused_politely_others_are_not(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    intake = make_intake(store, emailjs, per_ip=3)
    # Invalid attempts count too: two typos and one good one use the budget.
    attempts = [{"email": "x@"}, {"email": "y@"}, {"email": "v@example.com"}]
    results = [submit(intake, LeadKind.HERO, form).result for form in attempts]
    assert results == [Result.INVALID, Result.INVALID, Result.SENT]
    assert submit(intake, LeadKind.HERO, {"email": "w@example.com"}).result is (Result.RATE_LIMITED)
    assert len(store.all()) == 1
    # Another address is not affected by the abuser's count.
    other = submit(intake, LeadKind.HERO, {"email": "w@example.com"}, ip="198.51.100.9")
    assert other.result is Result.SENT


def test_without_configuration_the_lead_is_stored_for_later(store: LeadStore) -> None:
    result = submit(make_intake(store, None), LeadKind.HERO, {"email": "ana@example.com"})
    assert result.result is Result.QUEUED
    [lead] = store.all()
    assert (lead.status, lead.attempts) == (LeadStatus.QUEUED, 0)


def test_when_the_lead_cannot_be_stored_nothing_is_sent_and_the_visitor_is_told(
    tmp_path, emailjs: HTTPServer, caplog
) -> None:
    accept_sends(emailjs)
    unmigrated = LeadStore(new_engine(f"sqlite:///{tmp_path / 'empty.db'}"))
    result = submit(make_intake(unmigrated, emailjs), LeadKind.BOOKING, booking_form())
    assert result.result is Result.STORE_FAILED
    assert sent_payloads(emailjs) == []
    assert any("could NOT be stored" in r.getMessage() for r in caplog.records)


def test_field_errors_are_the_spanish_copy(store: LeadStore) -> None:
    result = submit(make_intake(store, None), LeadKind.BOOKING, booking_form(phone="abc"))
    assert result.errors == {"phone": COPY.booking.fields["phone"].error}

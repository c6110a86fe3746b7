"""The spam review: the quarantine newest first with each lead's reason, purge date and
fields; opening it marks what it shows as shown (and nothing else); "No es spam" delivers a
quote through the (fake) EmailJS at once and tells of a booking whose slot was taken
meanwhile; "Es spam" confirms, and a confirmed spam goes a day later. Every answer audited.
On SQLite and PostgreSQL."""

import datetime as dt

import sqlalchemy as sa
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.bookings.models import Booking
from agency_site.desk import spam_review
from agency_site.desk.guard import local_time
from agency_site.desk.models import DeskAudit
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead
from agency_site.leads.rgpd import CONFIRMED_SPAM_GRACE
from agency_site.leads.statuses import LeadStatus, SpamReason
from tests.desk.conftest import DeskSite
from tests.desk.lead_desk import add, wire
from tests.desk.test_lead_page import _text
from tests.emailjs_fake import accept_sends, refuse_sends, sent_payloads
from tests.lead_store import BOOKING_FIELDS, TEMPLATES


def _listed(site: DeskSite) -> dict[int, dt.datetime | None]:
    with site.engine.connect() as connection:
        rows = connection.execute(sa.select(Lead.id, Lead.spam_listed_at)).all()
    return dict(rows)


def _actions(site: DeskSite) -> list[tuple]:
    with site.engine.connect() as connection:
        query = (
            sa.select(DeskAudit.action, DeskAudit.lead_id)
            .where(DeskAudit.action.like("spam%"))
            .order_by(DeskAudit.id)
        )
        return [tuple(row) for row in connection.execute(query)]


def test_the_review_lists_the_quarantine_newest_first_with_reasons_and_fields(
    desk_site: DeskSite,
) -> None:
    site, tools = wire(desk_site)
    older = add(tools.store, spam=SpamReason.HONEYPOT)
    newer = add(
        tools.store,
        LeadKind.BOOKING,
        BOOKING_FIELDS | {"email": "ana@mailinator.com"},
        spam=SpamReason.DISPOSABLE,
    )
    add(tools.store)  # Not spam: not listed.

    text = _text(site.signed_in().get(paths.DESK_SPAM).text)

    assert text.index(f"Solicitud n.º {newer}") < text.index(f"Solicitud n.º {older}")
    assert "Por qué dirección de correo desechable" in text
    assert "Por qué campo oculto rellenado" in text
    assert "Correo electrónico ana@mailinator.com" in text
    assert "Nombre Núria Peñalver" in text
    purge = local_time(site.clock() + dt.timedelta(days=7))
    assert f"Se borra a partir del {purge}" in text
    assert text.count("No es spam") >= 2 and "Es spam" in text


def test_opening_the_review_marks_what_it_shows_and_nothing_else(
    desk_site: DeskSite, monkeypatch
) -> None:
    monkeypatch.setattr(spam_review, "PAGE_SIZE", 2)
    site, tools = wire(desk_site)
    oldest, middle, newest = (add(tools.store, spam=SpamReason.NO_MX) for _ in range(3))
    browser = site.signed_in()
    assert set(_listed(site).values()) == {None}

    first = browser.get(paths.DESK_SPAM)
    listed = _listed(site)
    assert listed[newest] is not None and listed[middle] is not None
    assert listed[oldest] is None  # On the next page, never opened: not shown.

    later = add(tools.store, spam=SpamReason.NO_MX)  # Arrived after: not shown either.
    assert _listed(site)[later] is None

    site.clock.advance(minutes=10)
    older_page = first.text.split('rel="next"')[0].rsplit('href="', 1)[1].split('"')[0]
    assert browser.get(older_page.replace("&amp;", "&")).status_code == 200
    listed_now = _listed(site)
    assert listed_now[oldest] is not None
    # The first showing stays: its keeping counts from then.
    assert listed_now[newest] == listed[newest]


def test_no_es_spam_delivers_a_quote_at_once(desk_site: DeskSite, emailjs: HTTPServer) -> None:
    accept_sends(emailjs)
    site, tools = wire(desk_site, emailjs)
    lead_id = add(tools.store, spam=SpamReason.HONEYPOT)
    browser = site.signed_in()
    browser.get(paths.DESK_SPAM)

    answer = browser.post(f"{paths.DESK_SPAM}/{lead_id}/release")

    assert answer.status_code == 303
    sent = sent_payloads(emailjs)
    assert [payload["template_id"] for payload in sent] == [TEMPLATES[LeadKind.QUOTE]]
    assert sent[0]["template_params"]["from_name"] == "Núria Peñalver"
    lead = tools.store.get(lead_id)
    assert lead.status == LeadStatus.SENT and lead.spam_reason == SpamReason.HONEYPOT
    page = _text(browser.get(answer.headers["location"]).text)
    assert "Liberada y enviada al correo de la agencia." in page
    assert f"Solicitud n.º {lead_id} ·" not in page  # No longer in quarantine.
    assert _actions(site) == [("spam_reviewed", None), ("spam_released", lead_id)]

    again = browser.post(f"{paths.DESK_SPAM}/{lead_id}/release")
    assert "ya no estaba en spam" in _text(browser.get(again.headers["location"]).text)
    assert len(sent_payloads(emailjs)) == 1
    assert _actions(site)[-1] == ("spam_released", lead_id)  # Not a second line.


def test_no_es_spam_on_a_booking_whose_slot_was_taken_says_so(
    desk_site: DeskSite, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    site, tools = wire(desk_site, emailjs)
    quarantined = add(
        tools.store,
        LeadKind.BOOKING,
        BOOKING_FIELDS | {"email": "ana@mailinator.com"},
        spam=SpamReason.DISPOSABLE,
    )
    add(tools.store, LeadKind.BOOKING, BOOKING_FIELDS | {"email": "otra@example.com"})
    browser = site.signed_in()

    answer = browser.post(f"{paths.DESK_SPAM}/{quarantined}/release", data={"back": "lead"})

    assert answer.headers["location"].startswith(paths.desk_lead(quarantined) + "?")
    assert "lost=taken" in answer.headers["location"]
    text = _text(browser.get(answer.headers["location"]).text)
    assert "Liberada y enviada al correo de la agencia." in text
    assert "la hora pedida ya no estaba libre, así que la reserva queda sin hora" in text
    with site.engine.connect() as connection:
        booking = connection.execute(
            sa.select(Booking.slot_lost, Booking.slot_lost_reason).where(
                Booking.lead_id == quarantined
            )
        ).one()
    assert tuple(booking) == (True, "taken")
    templates = [payload["template_id"] for payload in sent_payloads(emailjs)]
    assert templates == [TEMPLATES[LeadKind.BOOKING]]
    assert tools.store.get(quarantined).status == LeadStatus.SENT


def test_no_es_spam_when_emailjs_refuses_leaves_it_waiting(
    desk_site: DeskSite, emailjs: HTTPServer
) -> None:
    refuse_sends(emailjs, 503, "Busy")
    site, tools = wire(desk_site, emailjs)
    lead_id = add(tools.store, spam=SpamReason.TOO_FAST)
    browser = site.signed_in()
    answer = browser.post(f"{paths.DESK_SPAM}/{lead_id}/release")
    assert "spam=queued" in answer.headers["location"]
    assert tools.store.get(lead_id).status == LeadStatus.QUEUED


def test_without_emailjs_a_released_lead_waits_queued(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)  # Delivery not configured.
    lead_id = add(tools.store, spam=SpamReason.BAD_TOKEN)
    answer = site.signed_in().post(f"{paths.DESK_SPAM}/{lead_id}/release")
    assert "spam=queued" in answer.headers["location"]
    assert tools.store.get(lead_id).status == LeadStatus.QUEUED


def test_es_spam_confirms_and_it_goes_a_day_later(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    confirmed, shown = (add(tools.store, spam=SpamReason.HONEYPOT) for _ in range(2))
    browser = site.signed_in()
    browser.get(paths.DESK_SPAM)

    answer = browser.post(f"{paths.DESK_SPAM}/{confirmed}/confirm")

    text = _text(browser.get(answer.headers["location"]).text)
    assert "Confirmada como spam: se borrará en un día" in text
    assert "Confirmada como spam · a partir del" in text
    lead = tools.store.get(confirmed)
    assert lead.status == LeadStatus.SPAM and lead.spam_confirmed_at is not None
    assert _actions(site) == [("spam_reviewed", None), ("spam_confirmed", confirmed)]

    at = site.clock()
    keep = dt.timedelta(days=tools.spam_keep_days)
    assert tools.store.purge_spam(at - keep, now=at + CONFIRMED_SPAM_GRACE / 2) == 0
    assert tools.store.purge_spam(at - keep, now=at + CONFIRMED_SPAM_GRACE * 1.01) == 1
    assert tools.store.get(confirmed) is None
    assert tools.store.get(shown) is not None  # Shown, not confirmed: its days are not up.


def test_es_spam_on_a_lead_never_shown_counts_as_shown(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store, spam=SpamReason.HONEYPOT)
    site.signed_in().post(f"{paths.DESK_SPAM}/{lead_id}/confirm", data={"back": "lead"})
    assert _listed(site)[lead_id] is not None


def test_a_released_lead_can_no_longer_be_confirmed(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    lead_id = add(tools.store, spam=SpamReason.HONEYPOT)
    browser = site.signed_in()
    browser.post(f"{paths.DESK_SPAM}/{lead_id}/release")
    answer = browser.post(f"{paths.DESK_SPAM}/{lead_id}/confirm")
    assert "spam=not_spam" in answer.headers["location"]
    assert tools.store.get(lead_id).spam_confirmed_at is None


def test_every_answer_has_its_words() -> None:
    from tests.desk.test_pages import _words

    words = _words()
    assert set(words.SPAM_DONE) == set(spam_review.DONE)
    assert set(words.SLOT_LOST) == set(spam_review.LOST)

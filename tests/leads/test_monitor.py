"""The owner's side: health endpoint, webhook alerts and the held-leads canary.

EmailJS and the owner's webhook receiver are both real local HTTP servers
(pytest-httpserver); several "workers" are several engines on the same database.
"""

import dataclasses
import datetime as dt
import threading
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from agency_site.bookings import slots
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.content.bookings import COPY as BOOKINGS
from agency_site.emailjs import SEND_PATH
from agency_site.forms.kinds import LeadKind
from agency_site.leads.health import LeadsHealth
from agency_site.leads.monitor import Monitor
from agency_site.leads.plugins import LeadPlugin, Plugins
from agency_site.leads.rgpd import months_before
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import LeadStore
from agency_site.locale import active
from tests.bookings.test_booking_pages import desk_for
from tests.emailjs_fake import make_client, sent_payloads
from tests.lead_store import (
    BOOKING_FIELDS,
    LEASE,
    add_held_booking,
    add_lead_id,
    aged,
    bookings_of,
    make_delivery,
    new_engine,
)
from tests.leads.health_page import get_health as owner_health
from tests.run_async import run

HOOK_PATH = "/hook"
CANARY_EVERY = dt.timedelta(minutes=15)
MAX_AGE = dt.timedelta(hours=1)


class FakeEmailJS:
    """EmailJS answering 403 (non-browser access off) until ``fix()``, then 200."""

    def __init__(self, server: HTTPServer) -> None:
        self.status = 403
        self.lock = threading.Lock()
        server.expect_request(SEND_PATH, method="POST").respond_with_handler(self.answer)

    def answer(self, _request: Request) -> Response:
        with self.lock:
            if self.status == 200:
                return Response("OK")
            return Response("API calls are disabled for non-browser applications", status=403)

    def fix(self) -> None:
        with self.lock:
            self.status = 200


def hook_texts(server: HTTPServer) -> list[str]:
    """The ``text`` of every alert the webhook receiver got (and nothing else in them)."""
    bodies = [request.get_json() for request, _ in server.log if request.path == HOOK_PATH]
    assert all(set(body) == {"text"} for body in bodies)
    return [body["text"] for body in bodies]


def held_lead(store: LeadStore, email: str) -> int:
    """A lead that EmailJS refused for configuration "config-a"."""
    lead_id = add_lead_id(store, LeadKind.HERO, {"email": email}, claim_token="t", lease=LEASE)
    store.mark_held(lead_id, "t", "HTTP 403: API calls are disabled", "config-a")
    return lead_id


def make_monitor(
    store: LeadStore, server: HTTPServer, canary_every: dt.timedelta = CANARY_EVERY
) -> Monitor:
    return Monitor(
        delivery=make_delivery(store, make_client(server)),
        webhook_url=server.url_for(HOOK_PATH),
        canary_every=canary_every,
        retention_months=12,
        site_url="https://www.agencia.test",
    )


@pytest.fixture
def receiver(emailjs: HTTPServer) -> HTTPServer:
    """The same local server also plays the owner's Slack/Teams/ntfy webhook."""
    emailjs.expect_request(HOOK_PATH, method="POST").respond_with_data("ok")
    return emailjs


# --- Health endpoint -------------------------------------------------------------------


def get_health(store: LeadStore, configured: bool = True) -> httpx.Response:
    """The page's details, as the owner reads them."""
    return owner_health(LeadsHealth(lambda: store, lambda: configured, lambda: MAX_AGE))


def test_health_is_200_with_nothing_waiting(store: LeadStore) -> None:
    response = get_health(store)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert response.json() == {
        "status": "ok",
        "queued": 0,
        "held": 0,
        "rejected": 0,
        "oldest_queued_age_seconds": None,
        "max_queued_age_seconds": 3600,
        "last_delivery_at": None,
        "delivery_configured": True,
    }


def test_health_is_200_with_a_recent_lead_queued_and_shows_the_last_delivery(
    store: LeadStore,
) -> None:
    sent = add_lead_id(
        store, LeadKind.HERO, {"email": "a@example.com"}, claim_token="t", lease=LEASE
    )
    store.mark_sent(sent, "t")
    add_lead_id(store, LeadKind.HERO, {"email": "b@example.com"}, claim_token=None, lease=LEASE)
    response = get_health(store)
    body = response.json()
    assert response.status_code == 200
    assert (body["status"], body["queued"], body["held"]) == ("ok", 1, 0)
    assert 0 <= body["oldest_queued_age_seconds"] < 60
    assert dt.datetime.fromisoformat(body["last_delivery_at"]) == store.get(sent).sent_at


def test_health_is_503_when_a_lead_has_waited_too_long(store: LeadStore) -> None:
    lead_id = add_lead_id(
        store, LeadKind.HERO, {"email": "a@example.com"}, claim_token=None, lease=LEASE
    )
    aged(store, lead_id, 2 / 24)
    response = get_health(store, configured=False)
    body = response.json()
    assert response.status_code == 503
    assert (body["status"], body["queued"], body["delivery_configured"]) == ("delayed", 1, False)
    assert body["oldest_queued_age_seconds"] >= 7200 - 60


def test_health_is_503_while_a_lead_is_held(store: LeadStore) -> None:
    held_lead(store, "a@example.com")
    response = get_health(store)
    assert response.status_code == 503
    assert response.json()["status"] == "held"
    assert response.json()["held"] == 1


def test_health_is_503_when_the_database_cannot_be_read(tmp_path) -> None:
    broken = LeadStore(new_engine(f"sqlite:///{tmp_path / 'missing' / 'x.db'}"))
    response = get_health(broken)
    assert (response.status_code, response.json()) == (503, {"status": "error"})


def test_health_shows_the_plugins_notes_and_keeps_its_status(store: LeadStore) -> None:
    """``LeadPlugin.health``: each plugin's notes under ``notes``; one that raises costs
    its notes only, never the page."""

    class Noting(LeadPlugin):
        def health(self, now: dt.datetime) -> dict[str, Any]:
            return {"feature_failing": [now.tzinfo is not None]}

    class Broken(LeadPlugin):
        def health(self, now: dt.datetime) -> dict[str, Any]:
            raise RuntimeError("boom")

    noted = LeadStore(store.engine, Plugins((LeadPlugin(), Noting())))
    response = get_health(noted)
    assert response.status_code == 200 and response.json()["status"] == "ok"
    assert response.json()["notes"] == {"feature_failing": [True]}
    assert "notes" not in get_health(LeadStore(store.engine, Plugins((LeadPlugin(),)))).json()
    broken = get_health(LeadStore(store.engine, Plugins((Noting(), Broken()))))
    assert broken.status_code == 200 and "notes" not in broken.json()


# --- Alerts and canary -------------------------------------------------------------------


def another_worker(store: LeadStore) -> sa.Engine:
    """An engine of its own on the same database, like another backend worker's."""
    url = store.engine.url
    if url.get_backend_name() == "sqlite":
        return new_engine(url.render_as_string(hide_password=False))
    return sa.create_engine(url)


def test_held_leads_alert_once_then_come_back_by_themselves_and_are_delivered_once(
    any_store: LeadStore, receiver: HTTPServer
) -> None:
    store = any_store
    fake = FakeEmailJS(receiver)
    emails = [f"persona{n}@example.com" for n in range(3)]
    ids = [held_lead(store, email) for email in emails]
    # Two workers, each with its own engine, over the same database.
    other_engine = another_worker(store)
    workers = [
        make_monitor(store, receiver, dt.timedelta(0)),
        make_monitor(LeadStore(other_engine), receiver, dt.timedelta(0)),
    ]

    for worker in workers:  # Both see the held leads: the owner is told once.
        run(worker.tick())
    [held_alert] = hook_texts(receiver)
    assert "3 solicitudes" in held_alert and "retenidas" in held_alert
    assert "HTTP 403" in held_alert and "python -m agency_site.leads retry" in held_alert
    assert "https://www.agencia.test/_site/leads/health" in held_alert

    # EmailJS still refuses: the canary tries ONE lead per round, the others stay held.
    before = len(sent_payloads(receiver))
    run(workers[0].tick())
    assert len(sent_payloads(receiver)) == before + 1
    assert [store.get(i).status for i in ids] == [LeadStatus.HELD] * 3

    fake.fix()  # The owner enables non-browser access in the EmailJS dashboard.
    run(workers[1].tick())  # The canary gets through: every held lead is queued again.
    assert [store.get(i).status for i in ids].count(LeadStatus.HELD) == 0
    run(workers[0].delivery.retry_due())  # The normal retry loop, paced.
    run(workers[1].delivery.retry_due())
    assert [store.get(i).status for i in ids] == [LeadStatus.SENT] * 3

    accepted = [
        body["template_params"]["from_email"]
        for (request, response) in receiver.log
        if request.path == SEND_PATH and response.status_code == 200
        for body in [request.get_json()]
    ]
    assert sorted(accepted) == sorted(emails)  # Exactly one delivery per lead.

    for worker in workers:  # Nothing held any more: the owner is told once.
        run(worker.tick())
    assert len(hook_texts(receiver)) == 2
    assert "vuelve a aceptar" in hook_texts(receiver)[1]
    other_engine.dispose()


def test_the_canary_waits_its_interval_and_one_worker_at_a_time(
    any_store: LeadStore, receiver: HTTPServer
) -> None:
    store = any_store
    FakeEmailJS(receiver)
    held_lead(store, "a@example.com")
    held_lead(store, "b@example.com")
    engines = [another_worker(store) for _ in range(4)]
    workers = [make_monitor(LeadStore(engine), receiver) for engine in engines]

    run(workers[0].tick())  # Alert; the canary is due only a full interval later.
    for worker in workers:
        run(worker.tick())
    assert sent_payloads(receiver) == []

    with store.engine.begin() as connection:  # The interval has passed.
        connection.exec_driver_sql("UPDATE lead_monitor SET due_at = NULL WHERE name='canary'")
    results = []
    threads = [
        threading.Thread(target=lambda w=worker: results.append(run(w.canary())))
        for worker in workers
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(sent_payloads(receiver)) == 1  # One worker tried one lead.
    assert store.count(LeadStatus.HELD) == 2
    for engine in engines:
        engine.dispose()


def test_no_webhook_means_no_alert_but_the_canary_still_runs(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    fake = FakeEmailJS(emailjs)
    fake.fix()
    lead_id = held_lead(store, "a@example.com")
    monitor = make_monitor(store, emailjs, dt.timedelta(0))
    monitor.webhook_url = ""
    run(monitor.tick())  # Alert state recorded, nothing posted.
    run(monitor.tick())  # Canary delivers the lead itself.
    assert store.get(lead_id).status == LeadStatus.SENT
    assert [r.path for r, _ in emailjs.log] == [SEND_PATH]


def test_a_refusing_webhook_is_retried_then_logged(
    store: LeadStore, emailjs: HTTPServer, caplog: pytest.LogCaptureFixture, monkeypatch
) -> None:
    FakeEmailJS(emailjs)
    emailjs.expect_request(HOOK_PATH, method="POST").respond_with_data("nope", status=500)
    monkeypatch.setattr("agency_site.leads.monitor.asyncio.sleep", _no_sleep)
    held_lead(store, "a@example.com")
    run(make_monitor(store, emailjs).tick())
    assert len([r for r, _ in emailjs.log if r.path == HOOK_PATH]) == 3
    assert "could not be delivered" in caplog.text


async def _no_sleep(_seconds: float) -> None:
    return None


def test_months_before_keeps_the_day_or_takes_the_month_end() -> None:
    moment = dt.datetime(2027, 3, 31, 12, 0, tzinfo=dt.UTC)
    assert months_before(moment, 12) == dt.datetime(2026, 3, 31, 12, 0, tzinfo=dt.UTC)
    assert months_before(moment, 1) == dt.datetime(2027, 2, 28, 12, 0, tzinfo=dt.UTC)
    assert months_before(moment, 3) == dt.datetime(2026, 12, 31, 12, 0, tzinfo=dt.UTC)


def test_the_backend_purges_once_a_day_whichever_worker_runs_first(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    old = add_lead_id(
        store, LeadKind.HERO, {"email": "vieja@example.com"}, claim_token=None, lease=LEASE
    )
    aged(store, old, 400)
    engine = another_worker(store)
    workers = [make_monitor(store, emailjs), make_monitor(LeadStore(engine), emailjs)]
    run(workers[0].tick())
    assert store.get(old) is None  # Past the 12 months: gone.

    late = add_lead_id(
        store, LeadKind.HERO, {"email": "otra@example.com"}, claim_token=None, lease=LEASE
    )
    aged(store, late, 400)
    run(workers[1].tick())  # The purge already ran today: not again until tomorrow.
    assert store.get(late) is not None
    engine.dispose()


def test_a_booking_unanswered_after_a_working_day_alerts_the_owner_once(
    store: LeadStore, receiver: HTTPServer
) -> None:
    from agency_site.bookings.models import Booking
    from tests.bookings.test_bookings import book

    lead_id = book(store, dt.date(2026, 12, 14), "10:00")
    monitor = make_monitor(store, receiver)
    bookings = bookings_of(store)
    run(bookings.watch_unanswered(monitor))
    assert hook_texts(receiver) == []  # Requested just now.
    long_ago = dt.datetime.now(dt.UTC) - dt.timedelta(days=6)
    with store.engine.begin() as connection:
        connection.execute(sa.update(Booking).values(created_at=long_ago))
    run(bookings.watch_unanswered(monitor))
    run(bookings.watch_unanswered(monitor))
    [alert] = hook_texts(receiver)
    assert f"n.º {lead_id}: 2026-12-14 10:00" in alert and "confirm ID" in alert


def test_spam_is_deleted_its_keep_days_after_it_was_shown_and_never_unseen(
    store: LeadStore, emailjs
) -> None:
    from agency_site.leads.rgpd import mark_spam_listed

    def spam(email: str, days: int) -> int:
        lead_id = add_lead_id(
            store,
            LeadKind.HERO,
            {"email": email},
            claim_token=None,
            lease=LEASE,
            spam=SpamReason.HONEYPOT,
        )
        aged(store, lead_id, days)
        return lead_id

    shown_long_ago, shown_lately, never_shown = (
        spam("a@example.com", 20),
        spam("b@example.com", 20),
        spam("d@example.com", 30),
    )
    kept = add_lead_id(
        store, LeadKind.HERO, {"email": "c@example.com"}, claim_token=None, lease=LEASE
    )
    aged(store, kept, 30)  # A real lead: kept for the retention period.
    now = dt.datetime.now(dt.UTC)
    mark_spam_listed(store.engine, [shown_long_ago], now - dt.timedelta(days=8))
    mark_spam_listed(store.engine, [shown_lately], now - dt.timedelta(days=6))
    make_monitor(store, emailjs).purge()
    assert store.get(shown_long_ago) is None
    assert store.get(shown_lately) is not None and store.get(kept) is not None
    # Thirty days old, but the owner never saw it: kept (until the retention purge).
    assert store.get(never_shown) is not None


def test_an_unanswered_booking_expires_and_its_visitor_is_told_once_in_their_language(
    store: LeadStore, emailjs
) -> None:
    day = dt.date(2026, 12, 14)
    fields = BOOKING_FIELDS | {"date": str(day), "email": "jordi@example.com"}
    lead_id = add_held_booking(store, fields, language="ca")
    fresh = add_held_booking(store, fields | {"time": "11:00"})
    long_ago = dt.datetime.now(dt.UTC) - dt.timedelta(days=10)
    with store.engine.begin() as connection:
        connection.execute(
            sa.update(Booking).where(Booking.lead_id == lead_id).values(created_at=long_ago)
        )
    sent: list = []
    template_works = False
    desk = desk_for(store, 14, sent)

    async def send(template: str, params: dict[str, str]) -> bool:
        return template_works and await desk.send(template, params)

    monitor = make_monitor(store, emailjs)
    bookings = bookings_of(store)
    bookings.pending_expiry_days = 3
    bookings.desk = lambda: dataclasses.replace(desk, send=send)
    assert run(bookings.expire(monitor)) == 1
    assert sent == []  # The visitor template did not take it: tried again next round.
    assert slots.get(store.engine, lead_id).state == BookingStatus.EXPIRED
    assert slots.taken(store.engine, [day]) == {day: {"11:00"}}  # Its slot is free.
    template_works = True
    assert run(bookings.expire(monitor)) == 0
    run(bookings.expire(monitor))
    [(template, params)] = sent  # Told once.
    with active("ca"):
        subject = BOOKINGS.mails.expired.subject
    assert template == "visitor" and params["subject"] == subject
    assert params["to_email"] == "jordi@example.com" and params["book_again_url"]
    assert slots.get(store.engine, fresh).state == BookingStatus.PENDING


def test_the_expiry_job_runs_on_one_worker_per_interval(store: LeadStore, emailjs) -> None:
    from agency_site.bookings.plugin import BOOKING_EXPIRY, EXPIRY_EVERY

    assert store.claim_job(BOOKING_EXPIRY, EXPIRY_EVERY)
    assert not LeadStore(another_worker(store)).claim_job(BOOKING_EXPIRY, EXPIRY_EVERY)

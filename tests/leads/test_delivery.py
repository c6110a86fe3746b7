"""Store and delivery: nothing lost, retried with backoff, delivered once by racing workers."""

import dataclasses
import datetime as dt
import json
import random
import threading
import time
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer
from werkzeug import Response

from agency_site.content.form_words import COPY
from agency_site.content.template import render
from agency_site.emailjs import SEND_PATH, EmailJSClient
from agency_site.forms.email import date_es
from agency_site.forms.kinds import LeadKind
from agency_site.leads.delivery import RetryPolicy, template_params
from agency_site.leads.lease import new_claim_token
from agency_site.leads.models import Lead
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import LeadStore
from tests.emailjs_fake import accept_sends, make_client, refuse_sends, sent_payloads
from tests.lead_store import (
    AGENCY_INBOX,
    BOOKING_FIELDS,
    LEASE,
    add_lead_id,
    make_delivery,
    new_engine,
)
from tests.run_async import run


def queue(store: LeadStore, email: str = "ana@example.com") -> int:
    """A contact lead waiting for delivery."""
    return add_lead_id(store, LeadKind.HERO, {"email": email}, claim_token=None, lease=LEASE)


def test_template_params_follow_the_spec() -> None:
    assert template_params(LeadKind.BOOKING, BOOKING_FIELDS, AGENCY_INBOX, autoreply=True) == {
        "to_email": AGENCY_INBOX,
        "from_name": "Ana García",
        "reply_name": "Ana García",
        "from_email": "ana@example.com",
        "phone": "+34 600 12 34 56",
        "date": "2026-03-10",
        "time": "10:00",
        "message": "",
        # For the template's Auto-Reply: the visitor's confirmation e-mail.
        "reply_to": "ana@example.com",
        "date_es": "martes, 10 de marzo de 2026",
    }
    # Without its address's auto-reply of the day: no visitor e-mail (reply_to empty).
    assert template_params(LeadKind.BOOKING, BOOKING_FIELDS, AGENCY_INBOX)["reply_to"] == ""
    contact = template_params(LeadKind.HERO, {"email": "ana@example.com"}, AGENCY_INBOX)
    assert contact["to_email"] == AGENCY_INBOX
    assert contact["from_email"] == "ana@example.com"
    assert "ana@example.com" in contact["message"]


def test_dates_in_spanish_for_the_visitor_confirmation() -> None:
    # The words are forms.yaml's; the weekday (Monday = 0) and month are the facts.
    def spelled(weekday: int, day: int, month: int, year: int) -> str:
        return COPY.dates.format.format(
            weekday=COPY.dates.weekdays[weekday],
            day=day,
            month=COPY.dates.months[month - 1],
            year=year,
        )

    assert date_es("2026-12-14") == spelled(0, 14, 12, 2026)
    assert date_es("2027-08-01") == spelled(6, 1, 8, 2027)
    assert date_es("2026-09-16") == spelled(2, 16, 9, 2026)


def test_backoff_doubles_from_the_first_retry_up_to_the_cap() -> None:
    policy = RetryPolicy(base=dt.timedelta(minutes=1), cap=dt.timedelta(hours=1), jitter=0)
    assert [policy.delay(n).total_seconds() for n in range(1, 9)] == [
        60,
        120,
        240,
        480,
        960,
        1920,
        3600,
        3600,
    ]


def test_a_lead_failed_for_days_still_waits_the_cap() -> None:
    """The doubling outgrows any duration after some forty attempts (a day and a half of
    hourly failures): the wait is the cap, not an error that would leave the attempt
    unrecorded and retried at every lease's end."""
    policy = RetryPolicy(base=dt.timedelta(minutes=1), cap=dt.timedelta(hours=1), jitter=0)
    assert policy.delay(60) == dt.timedelta(hours=1)
    assert policy.delay(60, unconfirmed=True) == dt.timedelta(hours=1)


SECONDS = st.integers(0, 7 * 24 * 3600).map(lambda s: dt.timedelta(seconds=s))


@settings(max_examples=300, deadline=None)
@given(
    base=SECONDS,
    cap=SECONDS,
    unconfirmed=SECONDS,
    jitter=st.sampled_from([0.0, 0.1, 0.15, 0.2]),
    attempts=st.integers(1, 80),
    unanswered=st.booleans(),
    draw=st.floats(0, 1),  # Where in its range the random factor falls.
)
def test_each_retry_waits_within_its_jitter_and_never_less_than_the_one_before_could(
    base, cap, unconfirmed, jitter, attempts, unanswered, draw
) -> None:
    """Many leads failed at once are spread over ± jitter of their wait, which never drops
    below the first retry's (after a send without an answer: ``unconfirmed``), and an
    attempt never waits less than the attempt before it at its least."""
    policy = RetryPolicy(base=base, cap=cap, unconfirmed=unconfirmed, jitter=jitter)

    def least(n: int) -> dt.timedelta:  # With the random factor at its lowest.
        with mock.patch.object(random, "uniform", lambda low, high: low):
            return policy.delay(n, unconfirmed=unanswered)

    with mock.patch.object(random, "uniform", lambda low, high: low + draw * (high - low)):
        wait = policy.delay(attempts, unconfirmed=unanswered)
    doubled = min(base * 2 ** min(attempts - 1, 20), cap)  # base * 2**20 > any cap drawn.
    floor = unconfirmed if unanswered else min(base, doubled)
    expected = max(doubled, floor)
    assert max(expected * (1 - jitter), floor) <= wait <= expected * (1 + jitter)
    assert wait >= least(max(attempts - 1, 1))


def test_a_failed_lead_stays_queued_and_is_delivered_once_the_provider_recovers(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    lead_id = queue(store)
    delivery = make_delivery(store, make_client(emailjs))

    refuse_sends(emailjs, 500, "Internal Server Error")
    assert run(delivery.retry_due(limit=1)) == 0
    lead = store.get(lead_id)
    assert (lead.status, lead.attempts) == (LeadStatus.QUEUED, 1)
    assert lead.last_error == "HTTP 500: Internal Server Error"

    accept_sends(emailjs)
    assert run(delivery.retry_due()) == 1
    lead = store.get(lead_id)
    assert (lead.status, lead.attempts) == (LeadStatus.SENT, 2)
    assert lead.sent_at is not None
    assert run(delivery.retry_due()) == 0  # Nothing is sent twice.
    assert len(sent_payloads(emailjs)) == 2
    # A refusal is an answer: the e-mail was not sent, so the retry is not a resend.
    assert lead.unconfirmed_sends == 0
    note = COPY.resend_note.split("{", 1)[0]  # The note's words before the lead's number.
    assert not any(note in p["template_params"]["message"] for p in sent_payloads(emailjs))


def test_a_failed_lead_waits_for_its_backoff(store: LeadStore, emailjs: HTTPServer) -> None:
    lead_id = queue(store)
    delivery = make_delivery(
        store, make_client(emailjs), RetryPolicy(base=dt.timedelta(minutes=1), pause_s=0)
    )
    refuse_sends(emailjs, 429, "Too Many Requests")
    run(delivery.retry_due())
    lead = store.get(lead_id)
    wait = lead.next_attempt_at - lead.created_at
    assert dt.timedelta(seconds=59) < wait < dt.timedelta(seconds=70)

    accept_sends(emailjs)
    assert run(delivery.retry_due()) == 0
    assert store.get(lead_id).status == LeadStatus.QUEUED


def test_a_configuration_error_holds_the_lead_until_the_settings_change(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    lead_id = queue(store)
    refuse_sends(emailjs, 412, "Gmail_API: Invalid grant")
    old = make_delivery(store, make_client(emailjs), config="config-a")
    run(old.retry_due())
    lead = store.get(lead_id)
    assert (lead.status, lead.held_config) == (LeadStatus.HELD, "config-a")
    assert lead.last_error == "HTTP 412: Gmail_API: Invalid grant"

    accept_sends(emailjs)
    assert old.release_held() == 0  # Same settings after a restart: still held.
    assert run(old.retry_due()) == 0

    fixed = make_delivery(store, make_client(emailjs), config="config-b")
    assert fixed.release_held() == 1
    assert run(fixed.retry_due()) == 1
    assert store.get(lead_id).status == LeadStatus.SENT


def test_without_configuration_leads_wait_in_the_table(store: LeadStore) -> None:
    lead_id = queue(store)
    delivery = make_delivery(store, None)
    assert run(delivery.retry_due()) == 0
    assert delivery.release_held() == 0
    assert store.get(lead_id).status == LeadStatus.QUEUED


def test_a_claim_abandoned_by_a_crashed_worker_is_taken_over(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    crashed = new_claim_token()
    lead_id = add_lead_id(
        store, LeadKind.HERO, {"email": "ana@example.com"}, claim_token=crashed, lease=LEASE
    )
    accept_sends(emailjs)
    delivery = make_delivery(store, make_client(emailjs))
    assert run(delivery.retry_due()) == 0  # Still claimed: not touched.

    expired = add_lead_id(
        store, LeadKind.HERO, {"email": "bea@example.com"}, claim_token=crashed, lease=-LEASE
    )
    assert run(delivery.retry_due()) == 1
    assert store.get(expired).status == LeadStatus.SENT
    assert store.get(lead_id).status == LeadStatus.SENDING
    # The crashed worker's late outcome is not recorded over the new one.
    assert not store.mark_retry(expired, crashed, "late", dt.timedelta(0))
    # It may have sent the e-mail before dying: the agency is told this one is a resend.
    assert store.get(expired).unconfirmed_sends == 1
    [payload] = sent_payloads(emailjs)
    assert payload["template_params"]["message"].startswith(
        COPY.resend_note.format(lead_id=expired)
    )


def test_a_send_without_an_answer_is_retried_late_and_marked_as_a_possible_duplicate(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    lead_id = queue(store)
    policy = RetryPolicy(
        base=dt.timedelta(seconds=1), unconfirmed=dt.timedelta(minutes=10), pause_s=0
    )
    client = make_client(emailjs)
    client = dataclasses.replace(client, timeout_s=0.3)
    delivery = make_delivery(store, client, policy)

    answer = threading.Event()

    def never_answers(_request):
        answer.wait(5)  # Until the client has given up waiting.
        return Response("OK")

    emailjs.expect_oneshot_request(SEND_PATH, method="POST").respond_with_handler(never_answers)
    assert run(delivery.retry_due()) == 0
    answer.set()
    lead = store.get(lead_id)
    assert (lead.status, lead.unconfirmed_sends) == (LeadStatus.QUEUED, 1)
    assert lead.last_error == "Timeout: ReadTimeout"
    # Not the 1 s of an ordinary failure: quick retries would only add duplicates.
    assert lead.next_attempt_at - lead.created_at > dt.timedelta(minutes=9)

    accept_sends(emailjs)
    store._update(Lead.id == lead_id, next_attempt_at=dt.datetime.now(dt.UTC))
    assert run(delivery.retry_due()) == 1
    first, again = sent_payloads(emailjs)
    note = render(COPY.resend_note, lead_id=lead_id)
    assert not first["template_params"]["message"].startswith("[")
    assert again["template_params"]["message"] == f"{note}\n\n{first['template_params']['message']}"
    assert store.get(lead_id).status == LeadStatus.SENT


def test_two_workers_racing_deliver_each_lead_exactly_once(
    db_url: str, emailjs: HTTPServer
) -> None:
    count = 12
    setup = LeadStore(new_engine(db_url))
    ids = [queue(setup, f"visitor{n}@example.com") for n in range(count)]
    accept_sends(emailjs)
    start = threading.Barrier(2)
    delivered: list[int] = []

    def worker() -> None:
        # Each worker has its own engine, like a separate backend process.
        delivery = make_delivery(LeadStore(new_engine(db_url)), make_client(emailjs))
        start.wait()
        delivered.append(run(delivery.retry_due()))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    senders = [p["template_params"]["from_email"] for p in sent_payloads(emailjs)]
    assert sorted(senders) == sorted(f"visitor{n}@example.com" for n in range(count))
    assert sum(delivered) == count, delivered
    assert all(setup.get(i).status == LeadStatus.SENT for i in ids)
    assert all(setup.get(i).attempts == 1 for i in ids)


def test_a_lead_whose_e_mail_cannot_be_made_is_rejected_and_the_round_goes_on(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    """Old rows may hold what validation refuses now (a lone surrogate has no UTF-8) or a
    kind no longer known: each is set aside for the owner, the others are delivered."""
    broken = [
        add_lead_id(
            store,
            LeadKind.BOOKING,
            {**BOOKING_FIELDS, "name": json.loads('"Ana \\ud800"')},
            claim_token=None,
            lease=LEASE,
        ),
        add_lead_id(
            store, LeadKind.HERO, {"message": "Hola \udfff"}, claim_token=None, lease=LEASE
        ),
        add_lead_id(
            store, "newsletter", {"email": "old@example.com"}, claim_token=None, lease=LEASE
        ),
    ]
    good = [queue(store, f"visitor{n}@example.com") for n in range(3)]
    accept_sends(emailjs)
    delivery = make_delivery(store, make_client(emailjs))

    assert run(delivery.retry_due()) == len(good)
    senders = [p["template_params"]["from_email"] for p in sent_payloads(emailjs)]
    assert senders == [f"visitor{n}@example.com" for n in range(3)]
    assert all(store.get(lead_id).status == LeadStatus.SENT for lead_id in good)
    for lead_id in broken:
        lead = store.get(lead_id)
        assert (lead.status, lead.attempts) == (LeadStatus.REJECTED, 1)
        assert lead.last_error.startswith("The e-mail cannot be made from this lead: ")
        assert lead.last_error.isprintable() and len(lead.last_error) < 400
    assert "UnicodeEncodeError" in store.get(broken[0]).last_error
    assert store.summary().rejected == len(broken)  # What the owner's alert counts.
    assert run(delivery.retry_due()) == 0  # Set aside: not claimed again.


def test_an_unexpected_error_of_the_client_is_retried_and_the_round_goes_on(
    store: LeadStore,
) -> None:
    ids = [queue(store, f"visitor{n}@example.com") for n in range(2)]
    client = EmailJSClient(api_base="http://[::1", service_id="s", public_key="p")
    delivery = make_delivery(store, client)
    assert run(delivery.retry_due()) == 0
    for lead_id in ids:
        lead = store.get(lead_id)
        assert (lead.status, lead.attempts) == (LeadStatus.QUEUED, 1)
        assert lead.last_error.startswith("Unexpected error: InvalidURL")
        # It may have gone out: the next e-mail says it may be a duplicate, not soon.
        assert lead.unconfirmed_sends == 1


def test_a_lead_whose_worker_died_comes_back_behind_the_waiting_leads(store: LeadStore) -> None:
    first = queue(store, "ana@example.com")
    second = queue(store, "bea@example.com")
    # A worker claims the first one and dies: its claim (no lease here) has expired.
    [died_on] = store.claim_due(new_claim_token(), dt.timedelta(0), 1)
    assert died_on.id == first
    [next_one] = store.claim_due(new_claim_token(), LEASE, 1)
    assert next_one.id == second
    [again] = store.claim_due(new_claim_token(), LEASE, 1)
    assert (again.id, again.unconfirmed_sends) == (first, 1)


def test_the_provider_s_answer_is_kept_as_one_printable_line(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    """A NUL (which PostgreSQL refuses) or a line break in EmailJS's answer cannot stop
    the outcome being recorded, nor break ``leads list``."""
    ids = [queue(store, f"visitor{n}@example.com") for n in range(2)]
    refuse_sends(emailjs, 500, "Bad\x00gateway\nnow")
    assert run(make_delivery(store, make_client(emailjs)).retry_due()) == 0
    for lead_id in ids:
        lead = store.get(lead_id)
        assert (lead.status, lead.last_error) == (LeadStatus.QUEUED, "HTTP 500: Bad?gateway?now")


def test_a_lead_claimed_at_intake_whose_worker_died_comes_back_behind_the_waiting(
    store: LeadStore,
) -> None:
    """The first attempt is a claim too: a lead whose intake worker died mid-send waits
    behind the leads queued meanwhile, never in front of them."""
    # Long enough that the waiting lead is queued within it, even on a loaded machine.
    lease = dt.timedelta(seconds=2)
    died_on = add_lead_id(
        store,
        LeadKind.HERO,
        {"email": "bea@example.com"},
        claim_token=new_claim_token(),
        lease=lease,
    )
    waiting = queue(store, "ana@example.com")
    time.sleep(lease.total_seconds() + 0.1)  # Its worker died: the claim expired.
    order = [lead.id for lead in store.claim_due(new_claim_token(), LEASE, 2)]
    assert order == [waiting, died_on]

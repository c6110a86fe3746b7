"""No quarantined lead is purged without having been shown (issue 44): the daily spam
digest lists the leads taken for spam not shown yet, marks them shown only when it was
delivered, and the purge deletes spam only its keep days after it was shown. The owner's
webhook and EmailJS are real local HTTP servers."""

import datetime as dt
import re

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer

from agency_site.content.owner_alerts import ALERTS
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead, LeadMonitor
from agency_site.leads.monitor import SPAM_DIGEST, SPAM_DIGEST_RETRY, Monitor
from agency_site.leads.rgpd import mark_spam_listed
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import LeadStore
from agency_site.paths import DESK_SPAM
from tests.emailjs_fake import accept_sends, make_client, refuse_sends, sent_payloads
from tests.lead_store import LEASE, add_lead_id, aged, make_delivery
from tests.leads.test_monitor import HOOK_PATH, hook_texts, receiver
from tests.leads.test_webhooks import sqlite_store
from tests.run_async import run

__all__ = ["receiver", "sqlite_store"]  # Fixtures, used by name.

DESK = f"https://api.agencia.test{DESK_SPAM}"
AGENCY_TEMPLATE = "template_contact"


def owner_monitor(store: LeadStore, server: HTTPServer, webhook: bool = True) -> Monitor:
    """The monitor of a site whose owner is told through ``server``: its alert webhook, or
    (``webhook`` False) the agency template of its EmailJS."""
    return Monitor(
        delivery=make_delivery(store, make_client(server)),
        webhook_url=server.url_for(HOOK_PATH) if webhook else "",
        canary_every=dt.timedelta(minutes=15),
        retention_months=12,
        site_url="https://www.agencia.test",
        desk_url=DESK,
        agency_template=AGENCY_TEMPLATE,
    )


def spam(store: LeadStore, email: str, reason: SpamReason = SpamReason.HONEYPOT) -> int:
    fields = {"name": "Núria Spam", "email": email, "message": "Hola"}
    return add_lead_id(store, LeadKind.HERO, fields, claim_token=None, lease=LEASE, spam=reason)


def due_again(store: LeadStore) -> None:
    """A day later: the digest's job is due."""
    store.postpone_job(SPAM_DIGEST, dt.timedelta(0))


def listed_ids(text: str) -> list[int]:
    """The lead numbers a digest lists (``n.º 42 · …``)."""
    return [int(found) for found in re.findall(r"n\.º (\d+) ·", text)]


def shown_at(store: LeadStore, lead_id: int) -> dt.datetime | None:
    lead = store.get(lead_id)
    assert lead is not None
    return lead.spam_listed_at


def test_the_digest_lists_each_new_spam_lead_once_and_marks_it_shown(
    store: LeadStore, receiver: HTTPServer
) -> None:
    first = spam(store, "bot@mailinator.com", SpamReason.DISPOSABLE)
    second = spam(store, "x@example.com", SpamReason.HONEYPOT)
    real = add_lead_id(
        store, LeadKind.HERO, {"email": "ana@example.com"}, claim_token=None, lease=LEASE
    )
    monitor = owner_monitor(store, receiver)
    assert run(monitor.spam_digest())
    [digest] = hook_texts(receiver)
    assert listed_ids(digest) == [first, second]
    assert DESK in digest and "(7 días)" in digest
    assert ALERTS.spam_reason_disposable in digest
    # As every alert: no name, address or message of the person.
    for personal in ("Núria", "mailinator", "example.com", "Hola"):
        assert personal not in digest
    assert shown_at(store, first) and shown_at(store, second) and not shown_at(store, real)

    assert not run(monitor.spam_digest())  # Once a day.
    due_again(store)
    assert not run(monitor.spam_digest())  # Nothing new: nothing sent.
    third = spam(store, "y@example.com", SpamReason.NO_MX)
    due_again(store)
    assert run(monitor.spam_digest())
    assert [listed_ids(text) for text in hook_texts(receiver)] == [[first, second], [third]]


def test_a_digest_the_channel_refuses_marks_nothing_and_is_tried_again_in_an_hour(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    emailjs.expect_request(HOOK_PATH).respond_with_data("down", status=500)
    lead_id = spam(store, "x@example.com")
    monitor = owner_monitor(store, emailjs)
    assert not run(monitor.spam_digest())
    assert len(hook_texts(emailjs)) == 3  # Tried, a few times.
    assert shown_at(store, lead_id) is None
    with store.engine.connect() as connection:
        due = connection.execute(
            sa.select(LeadMonitor.due_at).where(LeadMonitor.name == SPAM_DIGEST)
        ).scalar_one()
    due = due if due.tzinfo else due.replace(tzinfo=dt.UTC)
    wait = due - dt.datetime.now(dt.UTC)
    assert SPAM_DIGEST_RETRY - dt.timedelta(minutes=1) < wait <= SPAM_DIGEST_RETRY
    # Never shown: the purge keeps it, however long ago it came.
    aged(store, lead_id, 30)
    monitor.purge()
    assert store.get(lead_id) is not None


def test_without_an_alert_webhook_the_digest_goes_to_the_agency_inbox(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    refuse_sends(emailjs, 500)
    lead_id = spam(store, "x@example.com", SpamReason.TOO_FAST)
    monitor = owner_monitor(store, emailjs, webhook=False)
    assert not run(monitor.spam_digest())
    assert shown_at(store, lead_id) is None
    accept_sends(emailjs, forget=True)
    due_again(store)
    assert run(monitor.spam_digest())
    [sent] = sent_payloads(emailjs)
    assert sent["template_id"] == AGENCY_TEMPLATE
    params = sent["template_params"]
    assert params["kind"] == "notice" and listed_ids(params["message"]) == [lead_id]
    assert shown_at(store, lead_id) is not None


def test_a_spam_lead_never_shown_is_kept_until_the_retention_period(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    monitor = Monitor(make_delivery(store, None), "", dt.timedelta(minutes=15), 12, "")
    unseen = spam(store, "x@example.com")
    aged(store, unseen, 300)
    assert not run(monitor.spam_digest())  # No channel at all: nothing shown.
    monitor.purge()
    assert store.get(unseen) is not None
    aged(store, unseen, 400)  # Past the general retention: gone, shown or not.
    monitor.purge()
    assert store.get(unseen) is None


def test_spam_unshown_for_two_days_is_counted_and_alerted_once(
    store: LeadStore, receiver: HTTPServer
) -> None:
    monitor = owner_monitor(store, receiver)
    fresh, old = spam(store, "a@example.com"), spam(store, "b@example.com")
    aged(store, old, 3)
    assert store.unlisted_spam_count() == 1
    run(monitor.watch_unlisted_spam())
    run(monitor.watch_unlisted_spam())
    [alert] = hook_texts(receiver)
    assert "1 solicitud(es)" in alert and "48 h" in alert and DESK in alert
    mark_spam_listed(store.engine, [old, fresh], dt.datetime.now(dt.UTC))
    assert store.unlisted_spam_count() == 0
    run(monitor.watch_unlisted_spam())
    assert hook_texts(receiver)[1:] == [ALERTS.spam_unlisted_recovered]


def test_marking_keeps_the_first_time_and_leaves_released_leads_alone(store: LeadStore) -> None:
    first, released = spam(store, "a@example.com"), spam(store, "b@example.com")
    store.release_spam(released)
    then = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
    assert mark_spam_listed(store.engine, [first, released, 999], then) == 1
    assert mark_spam_listed(store.engine, [first], then + dt.timedelta(days=3)) == 0
    assert shown_at(store, first).replace(tzinfo=dt.UTC) == then
    assert shown_at(store, released) is None


# Steps of the owner's week: a spam lead arrives, a day's digest is delivered or refused,
# the desk's spam page shows the oldest unshown, days pass with the daily purge.
STEPS = st.lists(
    st.one_of(
        st.just(("arrive", 0)),
        st.tuples(st.just("digest"), st.booleans()),
        st.tuples(st.just("desk"), st.integers(1, 3)),
        st.tuples(st.just("days"), st.integers(1, 9)),
    ),
    max_size=14,
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(steps=STEPS)
def test_whatever_happens_no_spam_lead_is_purged_unshown_and_each_is_listed_once(
    sqlite_store: LeadStore, emailjs: HTTPServer, steps: list[tuple[str, int]]
) -> None:
    """For every order of arrivals, digests delivered or refused, desk views and days
    passing: a lead is listed in at most one delivered digest, marked shown exactly when a
    delivered digest or the desk showed it, and never purged before ``keep_days`` after."""
    store = sqlite_store
    with store.engine.begin() as connection:
        connection.execute(sa.text("DELETE FROM leads"))
        connection.execute(
            sa.update(LeadMonitor).where(LeadMonitor.name == SPAM_DIGEST).values(due_at=None)
        )
    monitor = owner_monitor(store, emailjs, webhook=False)
    shown: dict[int, int] = {}  # Lead -> how many times a delivered digest or the desk showed it.
    arrived: list[int] = []
    for step, value in steps:
        if step == "arrive":
            arrived.append(spam(store, f"s{len(arrived)}@example.com"))
        elif step == "digest":
            if value:
                accept_sends(emailjs, forget=True)
            else:
                refuse_sends(emailjs, 500, forget=True)
            due_again(store)
            unshown = any(lead not in shown for lead in arrived if store.get(lead))
            delivered = run(monitor.spam_digest())
            assert delivered == (value and unshown)
            if delivered:
                [sent] = sent_payloads(emailjs)
                for lead_id in listed_ids(sent["template_params"]["message"]):
                    shown[lead_id] = shown.get(lead_id, 0) + 1
        elif step == "desk":
            unshown = store.unlisted_spam(value)
            mark_spam_listed(store.engine, [lead.id for lead in unshown], dt.datetime.now(dt.UTC))
            for lead in unshown:
                shown[lead.id] = shown.get(lead.id, 0) + 1
        else:
            back = dt.timedelta(days=value)
            with store.engine.begin() as connection:
                for lead in store.all():
                    listed = lead.spam_listed_at
                    connection.execute(
                        sa.update(Lead)
                        .where(Lead.id == lead.id)
                        .values(
                            created_at=lead.created_at - back,
                            spam_listed_at=None if listed is None else listed - back,
                        )
                    )
            before = {lead.id: lead for lead in store.all(LeadStatus.SPAM)}
            monitor.purge()
            gone = set(before) - {lead.id for lead in store.all(LeadStatus.SPAM)}
            now = dt.datetime.now(dt.UTC)
            for lead_id in gone:
                listed = before[lead_id].spam_listed_at
                assert listed is not None, f"lead {lead_id} purged unshown"
                assert now - listed.replace(tzinfo=dt.UTC) >= dt.timedelta(days=7)
        assert all(count == 1 for count in shown.values()), shown
        for lead_id in arrived:
            lead = store.get(lead_id)
            if lead is not None:
                assert (lead.spam_listed_at is not None) == (lead_id in shown)


@pytest.mark.parametrize("reason", list(SpamReason))
def test_every_reason_has_the_owner_s_words(reason: SpamReason) -> None:
    from agency_site.leads.monitor import spam_reason_words

    assert spam_reason_words(reason) == getattr(ALERTS, f"spam_reason_{reason}")

"""Signed webhooks: queued with the lead, signed per Standard Webhooks, retried on the
spec's schedule, paused when gone or failing for a day, sent once across workers, and
independent of the e-mail both ways. Each receiver is a real local HTTP server."""

import asyncio
import base64
import datetime as dt
import io
import json
import threading
import time
from collections.abc import Iterator

import httpx
import jsonschema
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer
from sqlmodel import Session, select
from standardwebhooks import Webhook
from werkzeug import Request, Response

from agency_site.forms.kinds import LeadKind
from agency_site.leads import cli
from agency_site.leads.health import LeadsHealth
from agency_site.leads.models import LeadWebhook, LeadWebhookEndpoint
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks import payload as webhook_payload
from agency_site.leads.webhooks import queue as webhook_queue
from agency_site.leads.webhooks.channel import WebhookChannel, WebhookPolicy
from tests.emailjs_fake import accept_sends, make_client, refuse_sends, sent_payloads
from tests.lead_store import LEASE, add_lead_id, make_delivery, new_engine
from tests.leads.health_page import get_health as owner_health
from tests.run_async import in_own_thread, run

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()
NEW_SECRET = "whsec_" + base64.b64encode(b"n" * 32).decode()
HOOK = "/hooks/leads"
# Every wait of the schedule zero: a failed message is due again at once.
AT_ONCE = WebhookPolicy(schedule=(dt.timedelta(0),), jitter=0, timeout_s=1.0)
SOURCE = {"page": "/ca/contacte", "utm_source": "newsletter", "referrer": "google.com"}


@pytest.fixture
def receiver() -> Iterator[HTTPServer]:
    """The agency's webhook endpoint: a threaded local server (a hanging answer does not
    block the next request)."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()


def channel(
    store: LeadStore, server: HTTPServer, policy: WebhookPolicy = AT_ONCE, **options
) -> WebhookChannel:
    """The channel of ``store`` to ``server``'s endpoint, registered (as at start-up)."""
    options.setdefault("secrets", (SECRET,))
    hooks = WebhookChannel(
        store.engine, (server.url_for(HOOK),), plugins=store.plugins, policy=policy, **options
    )
    hooks.register()
    return hooks


def lead(store: LeadStore, email: str = "ana@example.com", **options) -> int:
    options.setdefault("source", SOURCE)
    options.setdefault("language", "ca")
    return add_lead_id(
        store,
        LeadKind.HERO,
        {"name": "Anna", "email": email, "message": "Hola"},
        claim_token=None,
        lease=LEASE,
        idempotency_key=f"key-{email}",
        **options,
    )


def rows(store: LeadStore) -> list[LeadWebhook]:
    with Session(store.engine) as session:
        return list(session.exec(select(LeadWebhook).order_by(LeadWebhook.id)).all())


def received(server: HTTPServer) -> list[tuple[Request, str]]:
    return [(request, request.get_data(as_text=True)) for request, _ in server.log]


async def _round(hooks: WebhookChannel) -> int:
    try:
        return await hooks.round()
    finally:
        await hooks.aclose()


def send(hooks: WebhookChannel) -> int:
    return run(_round(hooks))


def test_a_lead_is_posted_signed_and_verified_by_the_standard_webhooks_verifier(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK, method="POST").respond_with_json({"id": "crm-123"})
    hooks = channel(store, receiver)
    lead_id = lead(store)
    assert send(hooks) == 1

    [(request, body)] = received(receiver)
    payload = Webhook(SECRET).verify(body, dict(request.headers))
    assert request.headers["webhook-id"] == "msg_key-ana@example.com_lead_created"
    assert payload["type"] == "lead.created"
    assert payload["data"]["lead_id"] == lead_id
    assert payload["data"]["fields"]["email"] == "ana@example.com"
    assert payload["data"]["language"] == "ca"
    assert payload["data"]["source"] == SOURCE
    jsonschema.validate(payload, webhook_payload.schema())
    [row] = rows(store)
    assert (row.status, row.attempts, row.remote_id) == ("sent", 1, "crm-123")
    # Another secret cannot verify it; nothing is sent twice.
    with pytest.raises(Exception, match="signature"):
        Webhook(NEW_SECRET).verify(body, dict(request.headers))
    assert send(hooks) == 0


def test_during_a_rotation_each_secret_signs_and_either_verifies(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("")
    hooks = channel(store, receiver, secrets=(NEW_SECRET, SECRET))
    lead(store)
    send(hooks)
    [(request, body)] = received(receiver)
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    for secret in (SECRET, NEW_SECRET):
        Webhook(secret).verify(body, dict(request.headers))


def test_without_a_secret_nothing_is_sent_and_the_messages_wait(
    store: LeadStore, receiver: HTTPServer
) -> None:
    hooks = channel(store, receiver, secrets=())
    lead(store)
    assert send(hooks) == 0
    assert receiver.log == []
    assert [row.status for row in rows(store)] == ["queued"]
    summary = hooks.summary()
    assert (summary.problem, summary.waiting) == ("LEADS_WEBHOOK_SECRET is not set", 1)
    assert channel(store, receiver, secrets=("not-a-whsec",)).can_send is False


def test_without_endpoints_nothing_is_queued(store: LeadStore) -> None:
    WebhookChannel(store.engine, (), ()).register()
    lead(store)
    assert rows(store) == []


def test_every_body_the_site_sends_validates_against_the_schema(
    store: LeadStore, receiver: HTTPServer
) -> None:
    from tests.lead_store import BOOKING_FIELDS

    receiver.expect_request(HOOK).respond_with_data("")
    hooks = channel(store, receiver)
    lead(store, source=None, language="es")
    add_lead_id(
        store,
        LeadKind.QUOTE,
        {"name": "Pau", "email": "pau@example.com", "message": "Web nova", "budget": "1k"},
        claim_token=None,
        lease=LEASE,
    )
    add_lead_id(store, LeadKind.BOOKING, BOOKING_FIELDS, claim_token=None, lease=LEASE)
    send(hooks)
    bodies = [json.loads(body) for _, body in received(receiver)]
    assert {body["data"]["kind"] for body in bodies} == {"contact", "quote", "booking"}
    for body in bodies:
        jsonschema.validate(body, webhook_payload.schema())


def test_a_failing_endpoint_is_retried_on_the_spec_s_schedule(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("down", status=500)
    hooks = channel(store, receiver, WebhookPolicy(timeout_s=1.0))
    lead(store)
    started = dt.datetime.now(dt.UTC)
    assert send(hooks) == 0
    took = dt.datetime.now(dt.UTC) - started
    [row] = rows(store)
    assert (row.status, row.attempts, row.last_error) == ("queued", 1, "HTTP 500")
    wait = row.next_attempt_at.replace(tzinfo=dt.UTC) - started
    assert dt.timedelta(seconds=4.5) <= wait <= dt.timedelta(seconds=5.5) + took  # 5 s ± 10 %.
    assert send(hooks) == 0  # Not due yet: nothing sent.
    assert len(receiver.log) == 1


def test_the_retry_schedule_is_the_spec_s_with_jitter() -> None:
    policy = WebhookPolicy()
    expected = [5, 300, 1800, 7200, 18000, 36000, 36000, 36000]
    for failures, seconds in enumerate(expected, start=1):
        wait = policy.delay(failures).total_seconds()
        assert 0.9 * seconds <= wait <= 1.1 * seconds, (failures, wait)


def test_a_hanging_endpoint_is_a_failure_after_the_short_timeout(
    store: LeadStore, receiver: HTTPServer
) -> None:
    def hang(_request: Request) -> Response:
        time.sleep(2.5)
        return Response("late")

    receiver.expect_request(HOOK).respond_with_handler(hang)
    hooks = channel(store, receiver, WebhookPolicy(timeout_s=0.5))
    lead(store)
    began = time.monotonic()
    assert send(hooks) == 0
    assert time.monotonic() - began < 2.0
    [row] = rows(store)
    assert row.status == "queued"
    assert "ReadTimeout" in row.last_error


def test_a_recovered_endpoint_gets_the_message_with_the_same_id(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("", status=503)
    hooks = channel(store, receiver)
    lead(store)
    send(hooks)
    receiver.clear_all_handlers()
    receiver.expect_request(HOOK).respond_with_data("", status=204)
    assert send(hooks) == 1
    ids = {request.headers["webhook-id"] for request, _ in received(receiver)}
    assert len(ids) == 1  # The receiver deduplicates a retried message by its id.
    assert rows(store)[0].attempts == 2


def test_an_endpoint_answering_410_is_paused_and_the_owner_told_once(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("gone", status=410)
    alerts: list[str] = []

    async def alert(text: str) -> bool:
        alerts.append(text)
        return True

    hooks = channel(store, receiver, alert=alert)
    lead(store, "a@example.com")
    lead(store, "b@example.com")
    assert send(hooks) == 0
    assert send(hooks) == 0
    assert len(receiver.log) == 1  # Paused at its first 410: nothing more is sent.
    assert len(alerts) == 1 and "410" in alerts[0]
    assert hooks.summary().paused_endpoints == 1
    assert [row.status for row in rows(store)] == ["queued", "queued"]

    # Fixed: the operator's retry resumes it and both go out.
    receiver.clear_all_handlers()
    receiver.expect_request(HOOK).respond_with_data("")
    assert webhook_queue.make_due(store.engine) == 2
    assert send(hooks) == 2
    assert hooks.summary().problem is None


def test_an_endpoint_failing_for_a_day_is_paused_and_the_owner_told(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("", status=502)
    alerts: list[str] = []

    async def alert(text: str) -> bool:
        alerts.append(text)
        return True

    hooks = channel(store, receiver, alert=alert)
    lead(store)
    send(hooks)
    assert alerts == [] and hooks.summary().paused_endpoints == 0
    # Its first failure a day ago: the next failure pauses it.
    with store.engine.begin() as connection:
        connection.execute(
            sa.update(LeadWebhookEndpoint).values(
                failing_since=dt.datetime.now(dt.UTC) - dt.timedelta(days=1, minutes=1)
            )
        )
    send(hooks)
    assert len(alerts) == 1 and "502" in alerts[0]
    assert hooks.summary().paused_endpoints == 1


def test_a_success_clears_the_endpoint_s_failing_day(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("", status=500)
    hooks = channel(store, receiver)
    lead(store)
    send(hooks)
    receiver.clear_all_handlers()
    receiver.expect_request(HOOK).respond_with_data("")
    send(hooks)
    with Session(store.engine) as session:
        [endpoint] = session.exec(select(LeadWebhookEndpoint)).all()
    assert (endpoint.state, endpoint.failing_since) == ("active", None)


def test_the_e_mail_goes_out_while_the_webhook_endpoint_hangs(
    store: LeadStore, receiver: HTTPServer, emailjs: HTTPServer
) -> None:
    def hang(_request: Request) -> Response:
        time.sleep(3)
        return Response("late")

    receiver.expect_request(HOOK).respond_with_handler(hang)
    accept_sends(emailjs)
    hooks = channel(store, receiver, WebhookPolicy(timeout_s=2.0))
    delivery = make_delivery(store, make_client(emailjs))
    lead_id = lead(store)

    async def both() -> float:
        began = time.monotonic()
        webhook_round = asyncio.create_task(_round(hooks))
        await delivery.retry_due()
        mailed_after = time.monotonic() - began
        await webhook_round
        return mailed_after

    assert run(both()) < 1.5  # Before the webhook's timeout: it never waited for it.
    assert store.get(lead_id).status == LeadStatus.SENT
    assert rows(store)[0].status == "queued"


def test_the_webhook_goes_out_while_emailjs_is_down(
    store: LeadStore, receiver: HTTPServer, emailjs: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("")
    refuse_sends(emailjs, 500, "down")
    hooks = channel(store, receiver)
    delivery = make_delivery(store, make_client(emailjs))
    lead_id = lead(store)
    assert run(delivery.retry_due(limit=1)) == 0
    assert send(hooks) == 1
    assert store.get(lead_id).status == LeadStatus.QUEUED
    assert len(sent_payloads(emailjs)) == 1
    assert rows(store)[0].status == "sent"


def test_two_workers_claiming_at_once_send_each_message_exactly_once(
    db_url: str, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("")
    setup = LeadStore(new_engine(db_url))
    count = 10
    channel(setup, receiver)
    for n in range(count):
        lead(setup, f"v{n}@example.com")
    start = threading.Barrier(2)
    delivered: list[int] = []

    def worker() -> None:
        hooks = channel(LeadStore(new_engine(db_url)), receiver)
        start.wait()
        delivered.append(send(hooks))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    ids = [request.headers["webhook-id"] for request, _ in received(receiver)]
    assert sorted(ids) == sorted(f"msg_key-v{n}@example.com_lead_created" for n in range(count))
    assert sum(delivered) == count
    assert all(row.attempts == 1 for row in rows(setup))


def test_spam_is_not_posted_until_released(store: LeadStore, receiver: HTTPServer) -> None:
    receiver.expect_request(HOOK).respond_with_data("")
    hooks = channel(store, receiver)
    lead_id = lead(store, spam=SpamReason.HONEYPOT)
    assert rows(store) == []
    assert store.release_spam(lead_id)
    assert send(hooks) == 1


def test_an_erased_lead_takes_its_messages_with_it(store: LeadStore, receiver: HTTPServer) -> None:
    channel(store, receiver)
    lead(store, "a@example.com")
    lead(store, "b@example.com")
    store.erase_email("a@example.com")
    assert [row.message_id for row in rows(store)] == ["msg_key-b@example.com_lead_created"]


def test_a_lead_stored_once_is_queued_once(store: LeadStore, receiver: HTTPServer) -> None:
    from agency_site.leads.store import DuplicateSubmission

    channel(store, receiver)
    lead(store)
    with pytest.raises(DuplicateSubmission):
        lead(store)
    assert len(rows(store)) == 1


def test_each_endpoint_has_its_own_delivery(store: LeadStore, receiver: HTTPServer) -> None:
    other = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    other.start()
    try:
        receiver.expect_request(HOOK).respond_with_data("")
        other.expect_request(HOOK).respond_with_data("", status=500)
        hooks = WebhookChannel(
            store.engine,
            (receiver.url_for(HOOK), other.url_for(HOOK)),
            (SECRET,),
            policy=AT_ONCE,
        )
        hooks.register()
        lead_id = lead(store)
        assert send(hooks) == 1
        assert sorted(row.status for row in rows(store)) == ["queued", "sent"]
        assert webhook_queue.states(store.engine, [lead_id]) == {
            lead_id: "webhook 1/2 sent, 1 waiting (HTTP 500)"
        }
    finally:
        other.stop()


@pytest.fixture
def sqlite_store(tmp_path) -> Iterator[LeadStore]:
    from agency_site.leads import migrations

    engine = new_engine(f"sqlite:///{tmp_path / 'leads.db'}")
    migrations.upgrade(engine)
    yield LeadStore(engine)
    engine.dispose()


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    answers=st.lists(st.sampled_from([200, 204, 410, 500, 503]), min_size=1, max_size=6),
    workers=st.integers(min_value=1, max_value=3),
)
def test_whatever_the_endpoint_answers_a_message_is_delivered_once_and_never_dropped(
    sqlite_store: LeadStore, receiver: HTTPServer, answers: list[int], workers: int
) -> None:
    """For every sequence of answers and rounds of several workers (the operator resuming
    a paused endpoint between rounds): the message is sent exactly when one answer was a
    2xx, never tried after it, never lost, and each try is one recorded attempt."""
    store = sqlite_store
    with store.engine.begin() as connection:
        for table in ("lead_webhooks", "lead_webhook_endpoints", "leads"):
            connection.execute(sa.text(f"DELETE FROM {table}"))
    receiver.clear()
    answer_iter = iter(answers)
    receiver.expect_request(HOOK).respond_with_handler(
        lambda _request: Response("", status=next(answer_iter, 200))
    )
    hooks = channel(store, receiver)
    lead(store)
    for _ in range(len(answers) + 1):
        for _ in range(workers):
            send(hooks)
        webhook_queue.make_due(store.engine)
    statuses = [response.status_code for _, response in receiver.log]
    [row] = rows(store)
    assert sum(200 <= status < 300 for status in statuses) == 1
    assert 200 <= statuses[-1] < 300  # Nothing after the success.
    assert (row.status, row.attempts) == ("sent", len(statuses))


# --- The owner's side: health page, operator command, settings --------------------------


def health(store: LeadStore, hooks: WebhookChannel) -> httpx.Response:
    """The page's details, as the owner reads them."""
    return owner_health(
        LeadsHealth(
            lambda: store, lambda: True, lambda: dt.timedelta(hours=1), webhooks=hooks.summary
        )
    )


def test_the_health_page_says_when_webhooks_cannot_be_sent(
    store: LeadStore, receiver: HTTPServer
) -> None:
    response = health(store, channel(store, receiver, secrets=()))
    assert response.status_code == 503
    assert response.json()["status"] == "webhooks"
    assert response.json()["webhooks"]["problem"] == "LEADS_WEBHOOK_SECRET is not set"
    response = health(store, channel(store, receiver))
    assert response.status_code == 200
    assert response.json()["webhooks"] == {
        "configured": True,
        "problem": None,
        "waiting": 0,
        "paused_endpoints": 0,
    }


def test_the_health_page_says_when_an_endpoint_is_paused(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("", status=410)
    hooks = channel(store, receiver)
    lead(store)
    send(hooks)
    response = health(store, hooks)
    assert response.status_code == 503
    assert response.json()["webhooks"]["paused_endpoints"] == 1
    assert "retry" in response.json()["webhooks"]["problem"]


def test_leads_list_notes_the_webhooks_and_retry_resumes_a_paused_endpoint(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(HOOK).respond_with_data("", status=410)
    hooks = channel(store, receiver)
    lead_id = lead(store)
    send(hooks)

    def call(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        code = in_own_thread(
            lambda: cli.run(argv, make_delivery(store, None), out, webhook_channel=hooks)
        )
        return code, out.getvalue()

    assert "[webhook 0/1 sent, 1 waiting (HTTP 410)]" in call("list")[1]
    receiver.clear_all_handlers()
    receiver.expect_request(HOOK).respond_with_data("")
    code, out = call("retry", str(lead_id))
    assert "1 of 1 webhook(s) delivered; 0 still waiting." in out
    assert code == 2  # E-mail delivery is not configured here: said so, the webhook still sent.
    assert "[webhook 1/1 sent]" in call("list")[1]


def test_the_settings_make_the_channel(monkeypatch, tmp_path) -> None:
    from agency_site.leads.runtime import build_webhooks
    from agency_site.settings import load_settings

    monkeypatch.setenv("LEADS_WEBHOOK_URLS", "https://a.example/h?token=x, https://b.example/h")
    monkeypatch.setenv("LEADS_WEBHOOK_SECRET", f"{NEW_SECRET},{SECRET}")
    monkeypatch.setenv("LEADS_WEBHOOK_TIMEOUT_SECONDS", "3")
    settings = load_settings()
    assert "token=x" not in repr(settings.leads)
    hooks = build_webhooks(settings, LeadStore(sa.create_engine("sqlite://")))
    assert hooks.urls == ("https://a.example/h?token=x", "https://b.example/h")
    assert (len(hooks.signed_by), hooks.policy.timeout_s, hooks.can_send) == (2, 3.0, True)
    monkeypatch.delenv("LEADS_WEBHOOK_URLS")
    assert not build_webhooks(load_settings(), LeadStore(sa.create_engine("sqlite://"))).enabled


def test_the_backend_s_loops_post_a_submitted_lead_while_emailjs_is_down(
    db_url: str, receiver: HTTPServer, emailjs: HTTPServer, tmp_path
) -> None:
    """The runtime as a backend worker runs it: endpoints registered once the database is
    prepared, a submission stored with its webhook queued, the webhook loop beside the
    e-mail's: the webhook goes out while every e-mail fails."""
    import contextlib
    import dataclasses

    from agency_site.leads import runtime
    from agency_site.leads.spool import Spool
    from tests.leads.test_durable import _monitor, intake_on

    receiver.expect_request(HOOK).respond_with_data("")
    refuse_sends(emailjs, 500, "down")
    store = LeadStore(new_engine(db_url))
    intake = intake_on(store, Spool(tmp_path / "spool", "w1"), make_client(emailjs))
    intake.delivery.policy = dataclasses.replace(
        intake.delivery.policy, poll=dt.timedelta(seconds=0.1)
    )
    hooks = WebhookChannel(
        store.engine,
        (receiver.url_for(HOOK),),
        (SECRET,),
        policy=dataclasses.replace(AT_ONCE, poll=dt.timedelta(seconds=0.1)),
    )

    async def scenario() -> None:
        loops = asyncio.create_task(
            runtime.keep_leads_moving(intake, _monitor(intake, None, ""), hooks)
        )
        await asyncio.sleep(0.5)  # Prepared: migrated, the endpoint registered.
        await intake.submit(LeadKind.HERO, {"email": "ana@example.com"}, "127.0.0.2")
        give_up = time.monotonic() + 30
        while time.monotonic() < give_up and not receiver.log:
            await asyncio.sleep(0.05)
        loops.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loops
        await hooks.aclose()

    run(scenario())
    [(request, body)] = received(receiver)
    assert Webhook(SECRET).verify(body, dict(request.headers))["data"]["fields"] == {
        "email": "ana@example.com"
    }
    [stored] = store.all()
    assert stored.status != LeadStatus.SENT and sent_payloads(emailjs)  # Still retried.
    store.engine.dispose()

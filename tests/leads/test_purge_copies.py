"""The retention purge reaches the copies (issue 43, item 7): before the leads past the
retention period go, every webhook endpoint their messages reached gets a ``lead.erased``
(ids only), the ids the endpoints answered are kept in it until it is done, a CRM that can
delete deletes its record (Odoo, Pipedrive: faked at the HTTP level), and what stays where
nothing can delete it (a chat, HubSpot) is told to the owner with ids only."""

import datetime as dt
import io
import json

import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer

from agency_site.forms.kinds import LeadKind
from agency_site.leads import cli
from agency_site.leads.models import LeadWebhook
from agency_site.leads.monitor import Monitor
from agency_site.leads.rgpd import retention_cutoff
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks import queue as webhook_queue
from tests.lead_store import LEASE, add_lead_id, aged, make_delivery
from tests.leads.test_monitor import HOOK_PATH, hook_texts
from tests.leads.test_webhooks import AT_ONCE, receiver, rows, send, sqlite_store
from tests.run_async import in_own_thread, run

__all__ = ["receiver", "sqlite_store"]  # Fixtures, used by name.

TOKEN = "123456:ABC-def_GHI"
PERSONAL = ("Anna", "Hola", "example", "newsletter", "/ca/", "600")


def old_lead(store: LeadStore, email: str, days: float = 400, key: str | None = None) -> int:
    """A lead received ``days`` ago, with a name, a phone, a message and a source."""
    fields = {"name": "Anna", "email": email, "phone": "600 11 22 33", "message": "Hola"}
    lead_id = add_lead_id(
        store,
        LeadKind.HERO,
        fields,
        claim_token=None,
        lease=LEASE,
        idempotency_key=key or f"k-{email}",
        source={"page": "/ca/contacte", "utm_source": "newsletter"},
    )
    aged(store, lead_id, days)
    return lead_id


def channel_to(store: LeadStore, *urls: str):
    from agency_site.leads.webhooks.channel import WebhookChannel

    hooks = WebhookChannel(store.engine, urls, (), policy=AT_ONCE)
    hooks.register()
    return hooks


def erasures(store: LeadStore) -> list[LeadWebhook]:
    return [row for row in rows(store) if row.event == "lead.erased"]


def host_of(server: HTTPServer) -> str:
    return server.url_for("").removeprefix("http://").rstrip("/")


# --- The property: every purged lead that reached a receiver is announced there -------

ENDPOINTS = ("https://a.example/hook", "https://b.example/hook", "slack+https://chat.example/x")
# What became of a lead's message to one endpoint: never tried, tried and failed, sent
# (the endpoint answered no id), sent with the endpoint's id.
FATES = st.sampled_from(["untried", "failed", "sent", "sent_with_id"])
LEADS = st.lists(
    st.tuples(
        st.integers(0, 3),  # Whose (four people).
        st.integers(0, 800),  # How many days ago it arrived.
        st.tuples(FATES, FATES, FATES),  # Its message's fate at each endpoint.
    ),
    max_size=8,
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(leads=LEADS)
def test_after_the_purge_every_purged_lead_that_reached_a_receiver_is_erased_there(
    sqlite_store: LeadStore, leads: list[tuple[int, int, tuple[str, str, str]]]
) -> None:
    store = sqlite_store
    with store.engine.begin() as connection:
        for table in ("lead_webhooks", "lead_webhook_endpoints", "leads"):
            connection.execute(sa.text(f"DELETE FROM {table}"))
    keys = webhook_queue.register(store.engine, ENDPOINTS)
    reached: dict[int, dict[str, tuple[str, str | None]]] = {}  # Lead -> endpoint -> ids.
    for number, (person, days, fates) in enumerate(leads):
        lead_id = old_lead(store, f"p{person}@example.com", days, key=f"key{number}")
        reached[lead_id] = {}
        for key, fate in zip(keys, fates, strict=True):
            remote = f"rec-{lead_id}-{key[:4]}" if fate == "sent_with_id" else None
            status = "queued" if fate in ("untried", "failed") else "sent"
            attempts = 0 if fate == "untried" else 1
            with store.engine.begin() as connection:
                connection.execute(
                    sa.update(LeadWebhook)
                    .where(LeadWebhook.lead_id == lead_id, LeadWebhook.endpoint == key)
                    .values(status=status, attempts=attempts, remote_id=remote)
                )
            if fate != "untried":
                reached[lead_id][key] = (f"msg_key{number}_lead_created", remote)

    before = {lead.id for lead in store.all()}
    purged = store.purge(retention_cutoff(12))
    gone = before - {lead.id for lead in store.all()}
    assert purged.deleted == len(gone)

    queued = erasures(store)
    assert [(row.endpoint, row.data) for row in queued] == [
        (erasure.endpoint, erasure.data) for erasure in purged.erasures
    ]
    named: dict[str, set[int]] = {}
    for row in queued:
        assert row.status == "queued" and row.data["reason"] == "retention"
        named.setdefault(row.endpoint, set()).update(row.data["lead_ids"])
        text = json.dumps(row.data)
        assert not any(personal in text for personal in PERSONAL), text
    for lead_id in gone:
        for key, (msg_id, remote) in reached[lead_id].items():
            [row] = [
                row for row in queued if lead_id in row.data["lead_ids"] and row.endpoint == key
            ]
            assert msg_id in row.data["webhook_ids"]
            assert remote is None or remote in row.data["remote_ids"]
    for key, ids in named.items():  # Only leads purged, and only where they had reached.
        assert ids <= gone and all(key in reached[lead_id] for lead_id in ids)
    # The purged leads' own messages are gone; the erasures stay until done.
    assert not any(row.lead_id in gone for row in rows(store))


# --- The CRMs delete their records ------------------------------------------------------


def test_the_purge_deletes_the_odoo_record_and_keeps_its_id_only_until_then(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request("/json/2/crm.lead/create").respond_with_json([123])
    hooks = channel_to(store, f"odoo+http://key@{host_of(receiver)}/db")
    lead_id = old_lead(store, "ana@example.com")
    old_lead(store, "pau@example.com", days=10)  # Recent: kept, and its record too.
    assert send(hooks) == 2
    receiver.clear()

    purged = store.purge(retention_cutoff(12))
    assert purged.deleted == 1
    [erasure] = erasures(store)
    assert erasure.data["lead_ids"] == [lead_id]
    assert erasure.data["remote_ids"] == ["crm.lead 123"]  # Its lead.created row is gone.

    receiver.expect_request("/json/2/crm.lead/search").respond_with_data("busy", status=503)
    assert send(hooks) == 0
    [erasure] = erasures(store)
    assert erasure.status == "queued" and erasure.data["remote_ids"] == ["crm.lead 123"]

    receiver.clear()
    receiver.expect_ordered_request(
        "/json/2/crm.lead/search", headers={"authorization": "bearer key"}
    ).respond_with_json([123])
    receiver.expect_ordered_request("/json/2/crm.lead/unlink").respond_with_json(True)
    assert send(hooks) == 1
    search, unlink = (request.get_json() for request, _ in receiver.log)
    assert search["domain"] == [["id", "in", [123]]]
    assert search["context"] == {"active_test": False}
    assert unlink == {"ids": [123]}
    [erasure] = erasures(store)
    assert erasure.status == "sent" and "remote_ids" not in erasure.data


def test_an_odoo_record_already_deleted_by_hand_is_done_without_an_unlink(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request("/json/2/crm.lead/create").respond_with_json([7])
    hooks = channel_to(store, f"odoo+http://key@{host_of(receiver)}/db")
    old_lead(store, "ana@example.com")
    send(hooks)
    store.purge(retention_cutoff(12))
    receiver.clear()
    receiver.expect_request("/json/2/crm.lead/search").respond_with_json([])
    assert send(hooks) == 1
    assert [request.path for request, _ in receiver.log] == ["/json/2/crm.lead/search"]
    assert erasures(store)[0].status == "sent"


def test_the_purge_deletes_the_pipedrive_lead_and_its_person_unless_the_lead_was_gone(
    store: LeadStore, receiver: HTTPServer
) -> None:
    made = iter([("uuid-1", 41), ("uuid-2", 42)])

    def person(_request):
        from werkzeug import Response

        return Response(json.dumps({"data": {"id": 40}}), content_type="application/json")

    def new_lead(_request):
        from werkzeug import Response

        lead, person_id = next(made)
        body = {"success": True, "data": {"id": lead, "person_id": person_id}}
        return Response(json.dumps(body), content_type="application/json")

    receiver.expect_request("/api/v1/persons", method="POST").respond_with_handler(person)
    receiver.expect_request("/api/v1/leads", method="POST").respond_with_handler(new_lead)
    hooks = channel_to(store, f"pipedrive+http://tok@{host_of(receiver)}")
    old_lead(store, "ana@example.com", key="a")
    old_lead(store, "bea@example.com", key="b")
    assert send(hooks) == 2
    assert {row.remote_id for row in rows(store)} == {
        "lead uuid-1 person 41",
        "lead uuid-2 person 42",
    }
    store.purge(retention_cutoff(12))
    receiver.clear()
    token = {"api_token": "tok"}
    receiver.expect_ordered_request(
        "/api/v1/leads/uuid-1", method="DELETE", query_string=token
    ).respond_with_json({"success": True, "data": {"id": "uuid-1"}})
    receiver.expect_ordered_request(
        "/api/v1/persons/41", method="DELETE", query_string=token
    ).respond_with_json({"success": True, "data": {"id": 41}})
    # The second lead was converted into a deal meanwhile: its person is the agency's now.
    receiver.expect_ordered_request(
        "/api/v1/leads/uuid-2", method="DELETE", query_string=token
    ).respond_with_json({"success": False, "error": "Lead not found"}, status=404)
    assert send(hooks) == 1
    assert [request.path for request, _ in receiver.log] == [
        "/api/v1/leads/uuid-1",
        "/api/v1/persons/41",
        "/api/v1/leads/uuid-2",
    ]
    [erasure] = erasures(store)
    assert erasure.status == "sent" and "remote_ids" not in erasure.data


# --- What stays is told to the owner, ids only -------------------------------------------


def test_what_a_chat_keeps_is_told_to_the_owner_and_logged_with_ids_only(
    store: LeadStore, receiver: HTTPServer, caplog
) -> None:
    receiver.expect_request(f"/bot{TOKEN}/sendMessage").respond_with_json(
        {"ok": True, "result": {"message_id": 55}}
    )
    receiver.expect_request("/chat").respond_with_data("ok")
    receiver.expect_request(HOOK_PATH).respond_with_data("ok")
    hooks = channel_to(
        store,
        f"telegram://{TOKEN}/1?api={receiver.url_for('')}",
        "slack+" + receiver.url_for("/chat"),
    )
    lead_id = old_lead(store, "ana@example.com")
    assert send(hooks) == 2
    monitor = Monitor(
        make_delivery(store, None),
        receiver.url_for(HOOK_PATH),
        dt.timedelta(minutes=15),
        12,
        "https://www.agencia.test",
        webhooks=hooks,
    )
    with caplog.at_level("INFO", logger="agency_site.leads.monitor"):
        assert run(monitor.purge_and_tell()) == 1
    [alert] = hook_texts(receiver)
    places = (
        f"endpoint 1, Telegram chat: 55 (leads {lead_id}); "
        f"endpoint 2, Slack-compatible chat: leads {lead_id}"
    )
    assert places in alert and "12 meses" in alert
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert places in logged
    for text in (alert, logged):
        assert not any(personal in text for personal in PERSONAL)
    assert send(hooks) == 2  # Both skip their lead.erased: nothing to delete by the site.
    assert {row.status for row in erasures(store)} == {"skipped"}
    assert all("remote_ids" not in row.data for row in erasures(store))


def test_leads_purge_prints_what_to_delete_by_hand(
    store: LeadStore, receiver: HTTPServer, tmp_path
) -> None:
    receiver.expect_request(f"/bot{TOKEN}/sendMessage").respond_with_json(
        {"ok": True, "result": {"message_id": 56}}
    )
    hooks = channel_to(store, f"telegram://{TOKEN}/1?api={receiver.url_for('')}")
    lead_id = old_lead(store, "ana@example.com")
    send(hooks)
    out = io.StringIO()
    code = in_own_thread(
        lambda: cli.run(
            ["purge"],
            make_delivery(store, None),
            out,
            spool_dir=tmp_path / "spool",
            webhook_channel=hooks,
        )
    )
    assert code == 0
    assert out.getvalue().splitlines()[1:] == [
        "lead.erased queued for 1 webhook endpoint(s) their messages reached.",
        f"Delete by hand (they cannot be told): endpoint 1, Telegram chat: 56 (leads {lead_id}).",
    ]


def test_done_erasures_go_with_the_retention_period(store: LeadStore) -> None:
    with store.engine.begin() as connection:
        webhook_queue.register(store.engine, ("https://a.example/hook",))
        connection.execute(
            sa.insert(LeadWebhook),
            [
                {
                    "lead_id": 0,
                    "event": "lead.erased",
                    "message_id": f"msg_{name}_lead_erased",
                    "endpoint": webhook_queue.endpoint_key("https://a.example/hook"),
                    "data": {"lead_ids": [1]},
                    "created_at": dt.datetime.now(dt.UTC) - dt.timedelta(days=days),
                    "status": status,
                }
                for name, days, status in (
                    ("old_sent", 400, "sent"),
                    ("old_waiting", 400, "queued"),
                    ("recent", 10, "sent"),
                )
            ],
        )
    store.purge(retention_cutoff(12))
    assert sorted(row.message_id for row in erasures(store)) == [
        "msg_old_waiting_lead_erased",
        "msg_recent_lead_erased",
    ]

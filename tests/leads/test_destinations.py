"""The destinations a webhook URL names by its scheme, each against a local fake of its
HTTP API: a Slack-compatible incoming webhook and the Telegram Bot API; a chat needs no
webhook secret, a Standard Webhooks endpoint does."""

import html
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer
from sqlmodel import Session

from agency_site.forms.kinds import LeadKind
from agency_site.leads.plugins import LeadPlugin, Plugins
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks import queue as webhook_queue
from agency_site.leads.webhooks.channel import WebhookChannel
from agency_site.leads.webhooks.destinations import (
    SlackText,
    StandardWebhook,
    Telegram,
    chat_text,
    destination,
)
from tests.lead_store import LEASE, add_lead_id
from tests.leads.test_webhooks import AT_ONCE, SECRET, lead, receiver, rows, send

__all__ = ["receiver"]  # The receiver fixture, used by name.

TOKEN = "123456:ABC-def_GHI"


def test_each_scheme_names_its_destination() -> None:
    assert destination("https://crm.example/h") == StandardWebhook("https://crm.example/h")
    assert destination("slack+https://hooks.slack.com/services/T/B/x") == SlackText(
        "https://hooks.slack.com/services/T/B/x"
    )
    assert destination(f"telegram://{TOKEN}/-100200300") == Telegram(TOKEN, "-100200300")
    assert destination(f"telegram://{TOKEN}/42?api=http://127.0.0.1:9/") == Telegram(
        TOKEN, "42", "http://127.0.0.1:9/"
    )
    wrong_urls = ("crm.example/h", "ftp://x", "telegram://a-token", "slack://x", "odoo://host")
    for wrong in (*wrong_urls, "hubspot://4455"):
        with pytest.raises(ValueError):
            destination(wrong)


def chat(store: LeadStore, *urls: str) -> WebhookChannel:
    hooks = WebhookChannel(store.engine, urls, (), policy=AT_ONCE)
    hooks.register()
    return hooks


def test_a_slack_compatible_webhook_gets_the_lead_as_text_without_a_secret(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request("/services/T/B/x", method="POST").respond_with_data("ok")
    hooks = chat(store, "slack+" + receiver.url_for("/services/T/B/x"))
    assert hooks.can_send and hooks.problem is None
    lead_id = lead(store)
    assert send(hooks) == 1
    [(request, _)] = receiver.log
    text = request.get_json()["text"]
    assert text.splitlines()[0].endswith(f"(contact, n.º {lead_id})")
    assert "email: ana@example.com" in text and "message: Hola" in text
    assert "webhook-signature" not in request.headers


class Visits(LeadPlugin):
    """A throwaway feature with a webhook event of its own, unknown to the core."""

    def webhook_events(self) -> tuple[str, ...]:
        return ("visit.planned",)

    def chat_line(self, payload: dict) -> str:
        return f"Visita de n.º {payload['data']['lead_id']}: {payload['data']['visit']}"


def test_a_plugin_s_own_event_reaches_a_chat_with_the_plugin_s_line(
    store: LeadStore, receiver: HTTPServer
) -> None:
    """The core queues and sends any event a plugin declares, and the chat says it in the
    plugin's words; the core's own line stays on the lead's message."""
    receiver.expect_request("/services/T/B/x").respond_with_data("ok")
    visiting = LeadStore(store.engine, Plugins((Visits(),)))
    hooks = WebhookChannel(
        store.engine, ("slack+" + receiver.url_for("/services/T/B/x"),), (), visiting.plugins
    )
    hooks.register()
    lead_id = lead(visiting)
    with Session(store.engine) as session:
        queued = webhook_queue.queue_event(session, lead_id, "visit.planned", {"visit": "lunes"})
        session.commit()
    assert queued == 1 and send(hooks) == 2
    texts = [request.get_json()["text"] for request, _ in receiver.log]
    assert texts[0].splitlines()[0].endswith(f"(contact, n.º {lead_id})")
    assert texts[1].splitlines()[0] == f"Visita de n.º {lead_id}: lunes"
    assert "email: ana@example.com" in texts[1]


def test_the_owner_s_telegram_bot_writes_to_their_chat(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(f"/bot{TOKEN}/sendMessage", method="POST").respond_with_json(
        {"ok": True, "result": {"message_id": 777, "chat": {"id": -100200300}}}
    )
    hooks = chat(store, f"telegram://{TOKEN}/-100200300?api={receiver.url_for('')}")
    lead(store)
    assert send(hooks) == 1
    [(request, _)] = receiver.log
    sent = request.get_json()
    assert sent["chat_id"] == "-100200300"
    assert "ana@example.com" in sent["text"]
    assert rows(store)[0].remote_id == "777"  # Where else the person's data went.


def test_telegram_refusing_the_bot_is_retried_like_any_failure(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(f"/bot{TOKEN}/sendMessage").respond_with_json(
        {"ok": False, "error_code": 403, "description": "Forbidden: bot was blocked"}, status=403
    )
    hooks = chat(store, f"telegram://{TOKEN}/1?api={receiver.url_for('')}")
    lead(store)
    assert send(hooks) == 0
    assert (rows(store)[0].status, rows(store)[0].last_error) == ("queued", "HTTP 403")


def test_a_chat_goes_out_while_a_signed_endpoint_waits_for_its_secret(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request("/chat").respond_with_data("ok")
    receiver.expect_request("/crm").respond_with_data("")
    hooks = chat(store, receiver.url_for("/crm"), "slack+" + receiver.url_for("/chat"))
    assert hooks.problem == "LEADS_WEBHOOK_SECRET is not set"
    lead(store)
    assert send(hooks) == 1
    assert [request.path for request, _ in receiver.log] == ["/chat"]
    signed = WebhookChannel(store.engine, (receiver.url_for("/crm"),), (SECRET,), policy=AT_ONCE)
    assert send(signed) == 1  # Once the secret is set, the waiting message goes out.


def test_a_url_no_destination_understands_waits_and_is_reported(store: LeadStore) -> None:
    hooks = chat(store, "ftp://files.example/leads")
    lead(store)
    assert not hooks.can_send
    assert "endpoint 1: LEADS_WEBHOOK_URLS: unknown scheme ftp://" in hooks.problem
    assert [row.status for row in rows(store)] == ["queued"]


def test_odoo_gets_a_crm_lead_over_json_2_and_its_id_is_kept(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request(
        "/json/2/crm.lead/create",
        method="POST",
        headers={"authorization": "bearer 0123abcd", "x-odoo-database": "agencia"},
    ).respond_with_json([123])
    host = receiver.url_for("").removeprefix("http://").rstrip("/")
    hooks = chat(store, f"odoo+http://0123abcd@{host}/agencia")
    lead(store)
    assert send(hooks) == 1
    [(request, _)] = receiver.log
    [vals] = request.get_json()["vals_list"]
    assert vals["name"] == "contact: Anna"
    assert (vals["contact_name"], vals["email_from"]) == ("Anna", "ana@example.com")
    assert "message: Hola" in vals["description"]
    assert rows(store)[0].remote_id == "crm.lead 123"


def test_hubspot_gets_a_form_submission(store: LeadStore, receiver: HTTPServer) -> None:
    path = "/submissions/v3/integration/submit/4455/form-guid"
    receiver.expect_request(path, method="POST").respond_with_json({"inlineMessage": "Gracias"})
    hooks = chat(store, f"hubspot://4455/form-guid?api={receiver.url_for('')}")
    lead(store)
    assert send(hooks) == 1
    [(request, _)] = receiver.log
    fields = {field["name"]: field["value"] for field in request.get_json()["fields"]}
    assert (fields["email"], fields["firstname"]) == ("ana@example.com", "Anna")
    assert all(field["objectTypeId"] == "0-1" for field in request.get_json()["fields"])


def test_a_crm_takes_new_leads_only_and_skips_a_booking_s_changes(
    store: LeadStore, receiver: HTTPServer
) -> None:
    from agency_site.bookings import slots
    from agency_site.bookings.models import BookingStatus
    from agency_site.leads.webhooks import queue as webhook_queue
    from tests.bookings.test_bookings import book

    receiver.expect_request("/json/2/crm.lead/create").respond_with_json([9])
    host = receiver.url_for("").removeprefix("http://").rstrip("/")
    hooks = chat(store, f"odoo+http://key@{host}/")
    lead_id = book(store)
    slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)
    assert send(hooks) == 3
    assert len(receiver.log) == 1  # lead.created only.
    assert sorted(row.status for row in rows(store)) == ["sent", "skipped", "skipped"]
    assert webhook_queue.states(store.engine, [lead_id]) == {lead_id: "webhook 3/3 sent"}


def test_leads_find_and_erase_list_where_else_the_person_s_data_went(
    store: LeadStore, receiver: HTTPServer, tmp_path
) -> None:
    import io
    import json

    from agency_site.leads import cli
    from tests.lead_store import make_delivery
    from tests.run_async import in_own_thread

    receiver.expect_request("/json/2/crm.lead/create").respond_with_json([123])
    receiver.expect_request(f"/bot{TOKEN}/sendMessage").respond_with_json(
        {"ok": True, "result": {"message_id": 55}}
    )
    host = receiver.url_for("").removeprefix("http://").rstrip("/")
    hooks = chat(
        store,
        f"odoo+http://key@{host}/db",
        f"telegram://{TOKEN}/1?api={receiver.url_for('')}",
    )
    lead(store)
    lead(store, "pau@example.com")
    send(hooks)

    def command(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = in_own_thread(
            lambda: cli.run(
                argv,
                make_delivery(store, None),
                out,
                erasure_log=tmp_path / "erasures.log",
                spool_dir=tmp_path / "spool",
                webhook_channel=hooks,
                err=err,
            )
        )
        return code, out.getvalue(), err.getvalue()

    places = "Also erase in: endpoint 1, Odoo: crm.lead 123; endpoint 2, Telegram chat: 55.\n"
    code, out, err = command("find", "--email", "ANA@example.com")
    assert code == 0 and [record["fields"]["email"] for record in json.loads(out)] == [
        "ana@example.com"
    ]
    assert err == places  # Beside the data, which stays whole JSON.
    code, out, err = command("find", "--email", "ana@example.com", "--format", "csv")
    assert err == places and "ana@example.com" in out
    assert command("find", "--email", "nadie@example.com")[1:] == ("[]\n", "")

    code, out, _ = command("erase", "--email", "ana@example.com", "--yes")
    # The chat's message is the agency's to delete; the CRM's record the site deletes.
    assert code == 0 and "Also erase in: endpoint 2, Telegram chat: 55.\n" in out
    assert "Erased there by a lead.erased message: endpoint 1, Odoo: crm.lead 123.\n" in out
    # Only the lead.erased messages are left: the chat skips its own, Odoo deletes the record.
    assert {row.event for row in rows(store) if row.lead_id == 0} == {"lead.erased"}
    receiver.expect_request("/json/2/crm.lead/search").respond_with_json([123])
    receiver.expect_request("/json/2/crm.lead/unlink").respond_with_json(True)
    assert send(hooks) == 2
    assert [request.path for request, _ in receiver.log[4:]] == [
        "/json/2/crm.lead/search",
        "/json/2/crm.lead/unlink",
    ]
    assert receiver.log[5][0].get_json() == {"ids": [123]}
    erased = [row for row in rows(store) if row.lead_id == 0]
    assert sorted(row.status for row in erased) == ["sent", "skipped"]
    assert all("remote_ids" not in row.data for row in erased)  # Done: no id kept.


def test_pipedrive_gets_a_person_then_a_lead_linked_to_it_and_the_lead_s_id_is_kept(
    store: LeadStore, receiver: HTTPServer
) -> None:
    token = {"api_token": "pd-token-1"}
    receiver.expect_ordered_request(
        "/api/v1/persons", method="POST", query_string=token
    ).respond_with_json({"success": True, "data": {"id": 41, "name": "Anna"}}, status=201)
    receiver.expect_ordered_request(
        "/api/v1/leads", method="POST", query_string=token
    ).respond_with_json(
        {"success": True, "data": {"id": "adf21080-0e10-11eb", "person_id": 41}}, status=201
    )
    host = receiver.url_for("").removeprefix("http://").rstrip("/")
    hooks = chat(store, f"pipedrive+http://pd-token-1@{host}")
    lead(store)
    assert send(hooks) == 1
    [(person, _), (new_lead, _)] = receiver.log
    assert person.get_json() == {
        "name": "Anna",
        "email": [{"value": "ana@example.com", "primary": True}],
    }
    assert new_lead.get_json() == {"title": "contact: Anna", "person_id": 41}
    assert rows(store)[0].remote_id == "lead adf21080-0e10-11eb person 41"


def test_pipedrive_failing_after_the_person_is_retried_and_a_booking_s_change_skipped(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request("/api/v1/persons").respond_with_json({"success": True, "data": {}})
    host = receiver.url_for("").removeprefix("http://").rstrip("/")
    hooks = chat(store, f"pipedrive+http://t@{host}")
    lead(store)
    assert send(hooks) == 0  # A 2xx without the person's id: the lead cannot be made.
    [row] = rows(store)
    assert row.status == "queued" and "no person id" in row.last_error
    receiver.clear()
    receiver.expect_request("/api/v1/persons").respond_with_json({"data": {"id": 7}})
    receiver.expect_request("/api/v1/leads").respond_with_data("down", status=503)
    assert send(hooks) == 0
    assert (rows(store)[0].status, rows(store)[0].last_error) == ("queued", "HTTP 503")
    assert destination("pipedrive://t@agencia") == destination(
        "pipedrive://t@agencia.pipedrive.com/"
    )
    assert (
        destination("pipedrive://t@agencia").request(
            {"type": "booking.confirmed", "data": {}}, "msg", ()
        )
        is None
    )
    with pytest.raises(ValueError):
        destination("pipedrive://agencia.pipedrive.com")


# --- The visitor's words are text, never markup (issue 43, item 8) ---------------------

MARKUP = st.sampled_from(
    [
        "<!channel>",
        "<!here|here>",
        "<https://evil.example|Ver la reserva>",
        "<http://x.example>",
        "<@U024BE7LH>",
        "<b>negrita</b>",
        "<script>alert(1)</script>",
        "&amp;",
        "&lt;!channel&gt;",
        "<br>",
        "\n",
    ]
)
VISITOR_TEXT = st.lists(st.one_of(st.text(max_size=20), MARKUP), max_size=8).map("".join)


def visitor_payload(name: str, message: str) -> dict:
    from agency_site.leads.models import Lead, utcnow
    from agency_site.leads.webhooks import payload as webhook_payload

    fields = {"name": name, "email": "ana@example.com", "message": message}
    lead = Lead(id=7, kind="contact", fields=fields, created_at=utcnow(), language="es")
    return webhook_payload.body("lead.created", utcnow(), lead)


@settings(max_examples=200, deadline=None)
@given(name=VISITOR_TEXT, message=VISITOR_TEXT)
def test_a_slack_compatible_chat_gets_the_visitor_s_words_escaped_never_as_mrkdwn(
    name: str, message: str
) -> None:
    payload = visitor_payload(name, message)
    outgoing = SlackText("https://hooks.slack.example/x").request(payload, "msg", ())
    assert outgoing is not None
    text = json.loads(outgoing.content)["text"]
    # No mention, link or other control sequence: Slack reads them only between < and >.
    assert "<" not in text and ">" not in text
    unescaped = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    assert unescaped == chat_text(payload)


@settings(max_examples=200, deadline=None)
@given(name=VISITOR_TEXT, message=VISITOR_TEXT)
def test_odoo_gets_the_visitor_s_words_as_escaped_html_lines(name: str, message: str) -> None:
    payload = visitor_payload(name, message)
    outgoing = destination("odoo://key@crm.example/db").request(payload, "msg", ())
    assert outgoing is not None
    [vals] = json.loads(outgoing.content)["vals_list"]
    lines = vals["description"].split("<br>")  # The one tag, the site's own.
    assert not any("<" in line or ">" in line for line in lines)
    assert "\n".join(html.unescape(line) for line in lines) == chat_text(payload)


@settings(max_examples=100, deadline=None)
@given(name=VISITOR_TEXT, message=VISITOR_TEXT)
def test_telegram_gets_the_visitor_s_words_as_plain_text_without_link_previews(
    name: str, message: str
) -> None:
    payload = visitor_payload(name, message)
    outgoing = Telegram(TOKEN, "1").request(payload, "msg", ())
    assert outgoing is not None
    sent = json.loads(outgoing.content)
    assert "parse_mode" not in sent  # Plain text: nothing in it is read as markup.
    assert sent["text"] == chat_text(payload)
    assert sent["link_preview_options"] == {"is_disabled": True}


def test_a_mention_and_a_disguised_link_reach_slack_as_text(
    store: LeadStore, receiver: HTTPServer
) -> None:
    receiver.expect_request("/services/T/B/x").respond_with_data("ok")
    hooks = chat(store, "slack+" + receiver.url_for("/services/T/B/x"))
    add_lead_id(
        store,
        LeadKind.HERO,
        {"name": "<!channel>", "email": "a@example.com", "message": "<https://evil.example|Ver>"},
        claim_token=None,
        lease=LEASE,
    )
    assert send(hooks) == 1
    text = receiver.log[0][0].get_json()["text"]
    assert "name: &lt;!channel&gt;" in text
    assert "message: &lt;https://evil.example|Ver&gt;" in text

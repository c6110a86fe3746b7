"""Personas: a privacy request is recorded with its one-month deadline (counted from date
to date: ``test_privacy_rules.py``), finds everything about its address (the leads table,
this host's spool, the webhook and CRM copies with their ids), exports it (JSON; a CSV a
Spanish Excel opens, its cells read back: ``test_privacy_export.py``), erases it
everywhere (the ``lead.erased`` message reaches a receiver at the HTTP level when the webhook
round runs) and is closed keeping only what the privacy policy says. Export and erase ask
for the passkey again; no audit line holds the address or a name (Hypothesis). SQLite and
PostgreSQL."""

import base64
import csv
import dataclasses
import datetime as dt
import io
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer
from standardwebhooks import Webhook

from agency_site import paths
from agency_site.desk import privacy_findings, privacy_requests, privacy_table, purge_plugin
from agency_site.desk.audit import AuditAction
from agency_site.desk.inbox_export import field_labels
from agency_site.desk.models import DeskAudit, DeskPrivacyRequest
from agency_site.desk.privacy_export import COLUMNS
from agency_site.desk.privacy_findings import PrivacyTools
from agency_site.desk.privacy_rules import PrivacyOutcome, PrivacyRight, Urgency
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import LeadWebhook, email_digest
from agency_site.leads.spool import SpooledLead
from agency_site.leads.webhooks.channel import WebhookChannel, WebhookPolicy
from tests.desk.conftest import DeskSite
from tests.lead_store import LEASE, add_lead_id
from tests.run_async import run

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()
AT_ONCE = WebhookPolicy(schedule=(dt.timedelta(0),), jitter=0, timeout_s=2.0)
START = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC)


# --- The screen -----------------------------------------------------------------------------


@pytest.fixture
def receiver() -> Iterator[HTTPServer]:
    """The agency's webhook receiver and chat, at the HTTP level."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture
def site(desk_site: DeskSite, tmp_path: Path) -> DeskSite:
    desk_site.clock.now = START
    desk_site.browser = desk_site.signed_in()
    tools = desk_site.screens.privacy_tools
    tools = dataclasses.replace(
        tools,
        spool=type(tools.spool)(tmp_path / "spool", erasure_log=tmp_path / "erasures.log"),
        erasure_log=tmp_path / "erasures.log",
    )
    desk_site.screens.privacy_tools = tools
    return desk_site


def tools_of(site: DeskSite) -> PrivacyTools:
    return site.screens.privacy_tools


def with_webhooks(site: DeskSite, receiver: HTTPServer) -> WebhookChannel:
    """A receiver (Standard Webhooks, answering its own id) and a Slack-compatible chat."""
    hooks = WebhookChannel(
        site.engine,
        (receiver.url_for("/crm"), "slack+" + receiver.url_for("/chat")),
        (SECRET,),
        policy=AT_ONCE,
    )
    hooks.register()
    tools = dataclasses.replace(tools_of(site), webhooks=hooks)
    site.screens.privacy_tools = tools
    return hooks


def send_webhooks(hooks: WebhookChannel) -> int:
    async def round_() -> int:
        try:
            return await hooks.round()
        finally:
            await hooks.aclose()

    return run(round_())


def add_lead(site: DeskSite, email: str, name: str = "Ana García", **fields) -> int:
    return add_lead_id(
        tools_of(site).store,
        LeadKind.QUOTE,
        {"name": name, "email": email, "phone": "600 000 000", "message": "Hola", **fields},
        claim_token=None,
        lease=LEASE,
        idempotency_key=uuid.uuid4().hex,
        source={"utm_campaign": "otoño", "landing": "/"},
    )


def record_request(site: DeskSite, email: str, right: str = "access", received=None) -> int:
    answer = site.browser.post(
        paths.DESK_PRIVACY,
        data={"email": email, "right": right, "received": str(received or START.date())},
    )
    assert answer.status_code == 303, answer.text
    return int(answer.headers["location"].rsplit("/", 1)[1])


def audit_rows(site: DeskSite) -> list[DeskAudit]:
    with site.engine.connect() as connection:
        return [
            DeskAudit.model_validate(r._mapping) for r in connection.execute(sa.select(DeskAudit))
        ]


def request_row(site: DeskSite, request_id: int) -> DeskPrivacyRequest:
    return privacy_table.get_request(site.engine, request_id)


def test_a_request_is_recorded_with_its_deadline_turning_amber_then_red(site) -> None:
    request_id = record_request(site, "ana@example.com", "erasure", dt.date(2026, 11, 5))
    later = record_request(site, "joan@example.com", "access", dt.date(2026, 11, 20))
    listing = site.browser.get(paths.DESK_PRIVACY).text
    assert "ana@example.com" in listing and "Supresión (borrado)" in listing
    assert "05/12/2026 · Vence pronto" in listing and "due-near" in listing
    assert "20/12/2026 · En plazo" in listing
    assert listing.index("ana@example.com") < listing.index("joan@example.com")
    page = site.browser.get(f"{paths.DESK_PRIVACY}/{later}").text
    assert "20/12/2026" in page and "due-ok" in page
    site.clock.now = dt.datetime(2026, 12, 6, 9, tzinfo=dt.UTC)
    site.browser = site.signed_in("luis@example.com")
    assert "due-over" in site.browser.get(paths.DESK_PRIVACY).text
    assert "Fuera de plazo" in site.browser.get(f"{paths.DESK_PRIVACY}/{request_id}").text
    recorded = [row for row in audit_rows(site) if row.action == AuditAction.PRIVACY_RECORDED]
    assert [(row.request_id, row.digest) for row in recorded] == [
        (request_id, email_digest("ana@example.com")),
        (later, email_digest("joan@example.com")),
    ]


def test_a_wrong_request_is_refused_with_its_reason_and_nothing_recorded(site) -> None:
    for data, field in (
        ({"email": "no es un correo", "right": "access", "received": "2026-11-30"}, "email-error"),
        ({"email": "a@b.es", "right": "olvido", "received": "2026-11-30"}, "right-error"),
        ({"email": "a@b.es", "right": "access", "received": "2026-12-31"}, "received-error"),
        ({"email": "a@b.es", "right": "access", "received": "ayer"}, "received-error"),
    ):
        answer = site.browser.post(paths.DESK_PRIVACY, data=data)
        assert answer.status_code == 422 and f'id="{field}"' in answer.text
    with site.engine.connect() as connection:
        assert (
            connection.execute(sa.select(sa.func.count()).select_from(DeskPrivacyRequest)).scalar()
            == 0
        )


def test_find_lists_the_leads_the_spool_lines_and_the_copies_with_their_ids(
    site: DeskSite, receiver: HTTPServer
) -> None:
    receiver.expect_request("/crm", method="POST").respond_with_json({"id": "crm-4711"})
    receiver.expect_request("/chat", method="POST").respond_with_data("ok")
    hooks = with_webhooks(site, receiver)
    mine = add_lead(site, "ana@example.com")
    also_mine = add_lead(site, "ANA@Example.com", "Ana G.")
    other = add_lead(site, "otra@example.com", "Otra Persona")
    assert send_webhooks(hooks) == 6
    spool = tools_of(site).spool
    spool.append(
        SpooledLead(
            key="k" * 20, kind=LeadKind.HERO, fields={"email": "ana@example.com"},
            created_at=START, source=None,
        )
    )  # fmt: skip
    request_id = record_request(site, "Ana@Example.com")
    page = site.browser.get(f"{paths.DESK_PRIVACY}/{request_id}").text
    assert (
        f'href="{paths.desk_lead(mine)}"' in page and f'href="{paths.desk_lead(also_mine)}"' in page
    )
    assert f'href="{paths.desk_lead(other)}"' not in page and "Otra Persona" not in page
    assert "Solicitudes (2)" in page and "En la cola de este servidor (1)" in page
    assert "Esperando a la base de datos" in page
    assert "Destino 1: aviso firmado (webhook)" in page and "crm-4711" in page
    assert "Destino 2: chat compatible con Slack" in page
    found = privacy_findings.find(tools_of(site), "ana@example.com")
    assert sorted(lead.id for lead in found.leads) == [mine, also_mine]
    assert {(c.lead_id, c.endpoint, c.remote_id) for c in found.copies} == {
        (mine, 1, "crm-4711"), (also_mine, 1, "crm-4711"), (mine, 2, None), (also_mine, 2, None),
    }  # fmt: skip
    assert found.by_hand() == [
        {"endpoint": 2, "label": "Slack-compatible chat", "ids": [], "leads": [mine, also_mine]}
    ]
    viewed = [row for row in audit_rows(site) if row.action == AuditAction.PRIVACY_VIEWED]
    assert [(row.request_id, row.digest) for row in viewed] == [
        (request_id, email_digest("ana@example.com"))
    ]


def test_the_export_in_json_and_in_a_csv_a_spanish_excel_opens(site: DeskSite) -> None:
    lead_id = add_lead(site, "jose@example.com", "José Muñoz", message="=1+1 ¡Qué tal!")
    request_id = record_request(site, "jose@example.com")
    url = f"{paths.DESK_PRIVACY}/{request_id}/export"
    answer = site.browser.post(url, data={"format": "json"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    assert "attachment" in answer.headers["content-disposition"]
    assert "jose" not in answer.headers["content-disposition"]
    document = json.loads(answer.content)
    assert document["email"] == "jose@example.com"
    [lead] = document["leads"]
    assert lead["id"] == lead_id and lead["fields"]["name"] == "José Muñoz"
    assert lead["source"] == {"utm_campaign": "otoño", "landing": "/"}

    answer = site.browser.post(url, data={"format": "csv"})
    assert answer.headers["content-type"].startswith("text/csv")
    raw = answer.content
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""), delimiter=";"))
    header, [row] = rows[0], rows[1:]
    assert header[:4] == ["Número", "Recibida", "Formulario", "Estado"]
    values = dict(zip(header, row, strict=True))
    assert values["Nombre"] == "José Muñoz" and values["Número"] == str(lead_id)
    message = values[field_labels()["message"]]
    assert message == "'=1+1 ¡Qué tal!"  # Neutralised: text, not a formula.
    assert "otoño" in values["Origen"]
    exported = [row for row in audit_rows(site) if row.action == AuditAction.PRIVACY_EXPORTED]
    assert len(exported) == 2 and request_row(site, request_id).exported_at is not None


def test_erase_removes_everything_and_the_receivers_get_lead_erased(
    site: DeskSite, receiver: HTTPServer
) -> None:
    receiver.expect_request("/crm", method="POST").respond_with_json({"id": "crm-9"})
    receiver.expect_request("/chat", method="POST").respond_with_data("ok")
    hooks = with_webhooks(site, receiver)
    lead_id = add_lead(site, "borrame@example.com", "Borja Mé")
    kept = add_lead(site, "sigue@example.com", "Sigue Aquí")
    assert send_webhooks(hooks) == 4
    tools_of(site).spool.append(
        SpooledLead(key="s" * 20, kind=LeadKind.HERO, fields={"email": "borrame@example.com"},
                    created_at=START)
    )  # fmt: skip
    request_id = record_request(site, "borrame@example.com", "erasure")
    page = site.browser.get(f"{paths.DESK_PRIVACY}/{request_id}").text
    unticked = site.browser.post(f"{paths.DESK_PRIVACY}/{request_id}/erase", data={})
    assert unticked.status_code == 303 and "error=1" in unticked.headers["location"]
    assert tools_of(site).store.get(lead_id) is not None
    answer = site.browser.post(f"{paths.DESK_PRIVACY}/{request_id}/erase", data={"confirm": "yes"})
    assert answer.status_code == 303 and "done=erased" in answer.headers["location"]
    assert tools_of(site).store.get(lead_id) is None and tools_of(site).store.get(kept)
    assert tools_of(site).spool.of_email("borrame@example.com") == []
    assert "borrame" not in tools_of(site).erasure_log.read_text()
    assert email_digest("borrame@example.com") in tools_of(site).erasure_log.read_text()
    row = request_row(site, request_id)
    assert row.erased_leads == 1 and row.erased_at is not None
    assert row.by_hand == [
        {"endpoint": 2, "label": "Slack-compatible chat", "ids": [], "leads": [lead_id]}
    ]
    page = site.browser.get(answer.headers["location"]).text
    assert "Falta borrar a mano" in page and "chat compatible con Slack" in page
    assert "Borja Mé" not in page and "1 línea(s) de la cola" in page

    # The webhook round (the backend's loop) tells the receiver, signed, with ids only.
    receiver.clear_log()
    assert send_webhooks(hooks) >= 1
    erased = [
        Webhook(SECRET).verify(r.get_data(as_text=True), dict(r.headers))
        for r, _ in receiver.log
        if r.path == "/crm"
    ]
    assert [body["type"] for body in erased] == ["lead.erased"]
    assert "borrame" not in json.dumps(erased) and "Borja" not in json.dumps(erased)
    with site.engine.connect() as connection:
        statuses = connection.execute(
            sa.select(LeadWebhook.event, LeadWebhook.status).where(
                LeadWebhook.event == "lead.erased"
            )
        ).all()
    assert ("lead.erased", "sent") in statuses
    erasures_audited = [r for r in audit_rows(site) if r.action == AuditAction.PRIVACY_ERASED]
    assert [(r.request_id, r.digest) for r in erasures_audited] == [
        (request_id, email_digest("borrame@example.com"))
    ]


def test_closing_keeps_only_what_proves_the_answer(site: DeskSite) -> None:
    add_lead(site, "cierra@example.com", "Cierra Ya")
    request_id = record_request(site, "cierra@example.com", "access", dt.date(2026, 11, 20))
    site.browser.post(f"{paths.DESK_PRIVACY}/{request_id}/export", data={"format": "json"})
    bad = site.browser.post(
        f"{paths.DESK_PRIVACY}/{request_id}/close",
        data={"outcome": "answered", "closed_on": "2026-11-01"},
    )
    assert "error=1" in bad.headers["location"]
    assert request_row(site, request_id).closed_on is None
    answer = site.browser.post(
        f"{paths.DESK_PRIVACY}/{request_id}/close",
        data={"outcome": "answered", "closed_on": "2026-11-29"},
    )
    assert "done=closed" in answer.headers["location"]
    row = request_row(site, request_id)
    kept = row.model_dump()
    assert kept["email"] is None and kept["by_hand"] is None
    assert kept["email_digest"] == email_digest("cierra@example.com")
    assert (kept["right"], kept["received_on"], kept["closed_on"], kept["outcome"]) == (
        "access", dt.date(2026, 11, 20), dt.date(2026, 11, 29), "answered",
    )  # fmt: skip
    assert kept["exported_at"] is not None
    with site.engine.connect() as connection:
        stored = connection.execute(sa.select(DeskPrivacyRequest.__table__)).one()._mapping
    assert "cierra" not in " ".join(str(value) for value in stored.values())
    page = site.browser.get(f"{paths.DESK_PRIVACY}/{request_id}").text
    assert "cierra@example.com" not in page and "Cierra Ya" not in page
    assert "Atendida" in page
    # Closed: nothing more is done with it.
    again = site.browser.post(f"{paths.DESK_PRIVACY}/{request_id}/export", data={"format": "json"})
    assert again.status_code == 303 and "done=not_open" in again.headers["location"]
    # Kept as long as the audit log: deleted by the desk's daily round after that.
    later = dt.datetime(2028, 11, 29, 12, tzinfo=dt.UTC)
    limits = (24, dt.timedelta(minutes=30), dt.timedelta(hours=12))
    assert purge_plugin.purge(site.engine, later, *limits).requests == 0
    assert request_row(site, request_id) is not None
    assert purge_plugin.purge(site.engine, later + dt.timedelta(days=2), *limits).requests == 1
    assert request_row(site, request_id) is None


def test_export_and_erase_ask_for_the_passkey_again(site: DeskSite) -> None:
    lead_id = add_lead(site, "pide@example.com")
    request_id = record_request(site, "pide@example.com", "erasure")
    site.clock.advance(minutes=6)  # The sign-in's proof is stale; the session lives.
    page = f"{paths.DESK_PRIVACY}/{request_id}"
    for action, data in (("export", {"format": "csv"}), ("erase", {"confirm": "yes"})):
        answer = site.browser.post(
            f"{page}/{action}", data=data, headers={"referer": "http://desk.test" + page}
        )
        assert answer.status_code == 303
        assert answer.headers["location"].startswith(f"{paths.DESK}/confirm?next=")
        script = site.browser.post(
            f"{page}/{action}", data=data, headers={"accept": "application/json"}
        )
        assert script.status_code == 403 and script.json() == {"error": "fresh"}
    assert tools_of(site).store.get(lead_id) is not None
    row = request_row(site, request_id)
    assert row.exported_at is None and row.erased_at is None


NAMES = st.text(st.sampled_from("ÁÉÍÑÇàèlmnoprstuvwxyz "), min_size=4, max_size=20).filter(
    lambda name: len(name.strip()) >= 3 and re.search("[g-zÁÉÍÑÇàè]", name)
)
LOCALS = st.text(
    st.sampled_from("ghijklmnopqrstuvwxyz.-_0123456789"), min_size=3, max_size=15
).filter(lambda local: re.match(r"[g-z]", local) and ".." not in local and not local.endswith("."))


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(local=LOCALS, name=NAMES, erase=st.booleans())
def test_no_audit_line_holds_the_address_or_a_name(site: DeskSite, local, name, erase) -> None:
    email = f"{local}@correo-{local[:3]}.test"
    add_lead(site, email, name)
    request_id = record_request(site, email, "erasure" if erase else "access")
    site.browser.get(f"{paths.DESK_PRIVACY}/{request_id}")
    site.browser.post(f"{paths.DESK_PRIVACY}/{request_id}/export", data={"format": "csv"})
    if erase:
        site.browser.post(f"{paths.DESK_PRIVACY}/{request_id}/erase", data={"confirm": "yes"})
    site.browser.post(
        f"{paths.DESK_PRIVACY}/{request_id}/close",
        data={"outcome": "answered", "closed_on": str(START.date())},
    )
    rows = [row for row in audit_rows(site) if row.request_id == request_id]
    assert {row.action for row in rows} >= {
        AuditAction.PRIVACY_RECORDED, AuditAction.PRIVACY_VIEWED,
        AuditAction.PRIVACY_EXPORTED, AuditAction.PRIVACY_CLOSED,
    }  # fmt: skip
    for row in rows:
        # Every value a line holds but its action (a word of the code) and its time.
        written = row.model_dump(exclude={"action", "at"})
        values = [str(value) for value in written.values() if value is not None]
        text = " ".join(values).casefold()
        assert local.casefold() not in text and email.casefold() not in text
        assert name.strip().casefold() not in text
        assert row.digest == email_digest(email)
        assert row.lead_id is None
    stored = request_row(site, request_id)
    assert stored.email is None and stored.email_digest == email_digest(email)


def test_the_privacy_policies_say_what_a_closed_request_keeps() -> None:
    root = Path(privacy_requests.__file__).parents[1] / "content"
    for language, words in (("es", "huella"), ("ca", "empremta")):
        policy = (root / language / "legal" / "privacy.md").read_text()
        paragraph = policy[policy.index("{desk.audit_months}") - 1500 :]
        assert words in paragraph, language


def test_every_right_outcome_column_and_destination_has_its_words() -> None:
    from agency_site.leads.webhooks import destinations
    from tests.desk.test_pages import _words

    words = _words()
    assert set(words.RIGHTS) == {str(right) for right in PrivacyRight}
    outcomes = {str(outcome) for outcome in PrivacyOutcome}
    assert set(words.PRIVACY_OUTCOMES) == outcomes
    assert set(words.URGENCY) == {str(level) for level in Urgency}
    assert set(COLUMNS) <= set(words.PRIVACY_COLUMNS) | set(field_labels())
    labels = {
        kind.label
        for kind in vars(destinations).values()
        if isinstance(kind, type) and isinstance(getattr(kind, "label", None), str)
    }
    assert labels and labels | {""} <= set(words.DESTINATIONS)

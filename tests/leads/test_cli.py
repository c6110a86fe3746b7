"""The operator command: list, retry and export the leads."""

import csv
import datetime as dt
import io

from pytest_httpserver import HTTPServer

from agency_site.leads.cli import run
from agency_site.leads.kinds import LeadKind, LeadStatus
from agency_site.leads.store import LeadStore
from tests.leads.conftest import (
    BOOKING_FIELDS,
    LEASE,
    accept_all,
    make_client,
    make_delivery,
    sent_payloads,
)
from tests.run_async import in_own_thread

BOOKING = {
    **BOOKING_FIELDS,
    "name": '=HYPERLINK("http://x")',
    "message": "Hola,\nqueremos una web.",
}


def command(store: LeadStore, server: HTTPServer | None, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    client = make_client(server) if server is not None else None
    return in_own_thread(run, argv, make_delivery(store, client), out), out.getvalue()


def test_list_shows_each_lead_with_its_status_and_error(store: LeadStore) -> None:
    lead_id = store.add(LeadKind.BOOKING, BOOKING, claim_token="t", lease=LEASE)
    store.mark_retry(lead_id, "t", "HTTP 500: Internal Server Error", dt.timedelta(minutes=1))
    code, out = command(store, None, "list")
    assert code == 0
    assert "booking" in out and "queued" in out and "ana@example.com" in out
    assert "HTTP 500: Internal Server Error" in out
    assert command(store, None, "list", "--status", "sent")[1] == "No leads.\n"


def test_retry_sends_queued_and_held_leads_now(store: LeadStore, emailjs: HTTPServer) -> None:
    waiting = store.add(LeadKind.CONTACT, {"email": "a@example.com"}, claim_token="t", lease=LEASE)
    store.mark_retry(waiting, "t", "HTTP 429: Too Many Requests", dt.timedelta(hours=1))
    held = store.add(LeadKind.CONTACT, {"email": "b@example.com"}, claim_token="u", lease=LEASE)
    store.mark_held(held, "u", "HTTP 412: Invalid grant", "config-a")
    accept_all(emailjs)

    code, out = command(store, emailjs, "retry")

    assert code == 0
    assert out == "2 of 2 lead(s) delivered; 0 still waiting.\n"
    assert {store.get(waiting).status, store.get(held).status} == {LeadStatus.SENT}
    assert len(sent_payloads(emailjs)) == 2


def test_retry_can_target_one_lead(store: LeadStore, emailjs: HTTPServer) -> None:
    first = store.add(LeadKind.CONTACT, {"email": "a@example.com"}, claim_token="t", lease=LEASE)
    store.mark_retry(first, "t", "HTTP 500", dt.timedelta(hours=1))
    second = store.add(LeadKind.CONTACT, {"email": "b@example.com"}, claim_token="u", lease=LEASE)
    store.mark_retry(second, "u", "HTTP 500", dt.timedelta(hours=1))
    accept_all(emailjs)
    assert command(store, emailjs, "retry", str(second))[0] == 0
    assert (store.get(first).status, store.get(second).status) == (
        LeadStatus.QUEUED,
        LeadStatus.SENT,
    )


def test_retry_without_configuration_says_so(store: LeadStore) -> None:
    code, out = command(store, None, "retry")
    assert code == 2 and "not configured" in out


def test_export_writes_csv_that_spreadsheets_cannot_execute(store: LeadStore, tmp_path) -> None:
    store.add(LeadKind.BOOKING, BOOKING, claim_token=None, lease=LEASE)
    code, out = command(store, None, "export")
    assert code == 0
    [row] = list(csv.DictReader(io.StringIO(out)))
    assert row["status"] == "queued"
    assert row["name"] == '\'=HYPERLINK("http://x")'
    assert row["phone"] == "'+34 600 12 34 56"
    assert row["message"] == "Hola,\nqueremos una web."

    target = tmp_path / "leads.csv"
    code, out = command(store, None, "export", "--output", str(target))
    assert out == f"1 lead(s) written to {target}.\n"
    assert len(list(csv.DictReader(target.open(encoding="utf-8")))) == 1

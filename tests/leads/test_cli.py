"""The operator command: list, retry, export, and the RGPD commands purge, find and erase."""

import csv
import datetime as dt
import io
import json

from pytest_httpserver import HTTPServer

from agency_site.forms.kinds import LeadKind
from agency_site.leads.cli import run
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import LeadStore
from agency_site.settings import ROOT
from tests.emailjs_fake import accept_sends, make_client, sent_payloads
from tests.lead_store import BOOKING_FIELDS, LEASE, add_lead_id, aged, make_delivery
from tests.run_async import in_own_thread

BOOKING = {
    **BOOKING_FIELDS,
    "name": '=HYPERLINK("http://x")',
    "message": "Hola,\nqueremos una web.",
}


def command(
    store: LeadStore, server: HTTPServer | None, *argv: str, answer: str = "", exports=None
) -> tuple[int, str]:
    out = io.StringIO()
    client = make_client(server) if server is not None else None

    def call() -> int:
        return run(
            argv,
            make_delivery(store, client),
            out,
            retention_months=12,
            export_dir=exports,
            ask=lambda: answer,
        )

    return in_own_thread(call), out.getvalue()


def test_list_shows_each_lead_with_its_status_and_error(store: LeadStore) -> None:
    lead_id = add_lead_id(store, LeadKind.BOOKING, BOOKING, claim_token="t", lease=LEASE)
    store.mark_retry(lead_id, "t", "HTTP 500: Internal Server Error", dt.timedelta(minutes=1))
    code, out = command(store, None, "list")
    assert code == 0
    assert "booking" in out and "queued" in out and "ana@example.com" in out
    assert "HTTP 500: Internal Server Error" in out
    assert command(store, None, "list", "--status", "sent")[1] == "No leads.\n"


def test_retry_sends_queued_and_held_leads_now(store: LeadStore, emailjs: HTTPServer) -> None:
    waiting = add_lead_id(
        store, LeadKind.HERO, {"email": "a@example.com"}, claim_token="t", lease=LEASE
    )
    store.mark_retry(waiting, "t", "HTTP 429: Too Many Requests", dt.timedelta(hours=1))
    held = add_lead_id(
        store, LeadKind.HERO, {"email": "b@example.com"}, claim_token="u", lease=LEASE
    )
    store.mark_held(held, "u", "HTTP 412: Invalid grant", "config-a")
    accept_sends(emailjs)

    code, out = command(store, emailjs, "retry")

    assert code == 0
    assert out == "2 of 2 lead(s) delivered; 0 still waiting.\n"
    assert {store.get(waiting).status, store.get(held).status} == {LeadStatus.SENT}
    assert len(sent_payloads(emailjs)) == 2


def test_retry_can_target_one_lead(store: LeadStore, emailjs: HTTPServer) -> None:
    first = add_lead_id(
        store, LeadKind.HERO, {"email": "a@example.com"}, claim_token="t", lease=LEASE
    )
    store.mark_retry(first, "t", "HTTP 500", dt.timedelta(hours=1))
    second = add_lead_id(
        store, LeadKind.HERO, {"email": "b@example.com"}, claim_token="u", lease=LEASE
    )
    store.mark_retry(second, "u", "HTTP 500", dt.timedelta(hours=1))
    accept_sends(emailjs)
    assert command(store, emailjs, "retry", str(second))[0] == 0
    assert (store.get(first).status, store.get(second).status) == (
        LeadStatus.QUEUED,
        LeadStatus.SENT,
    )


def test_retry_without_configuration_says_so(store: LeadStore) -> None:
    code, out = command(store, None, "retry")
    assert code == 2 and "not configured" in out


def test_export_writes_csv_that_spreadsheets_cannot_execute(store: LeadStore, tmp_path) -> None:
    add_lead_id(store, LeadKind.BOOKING, BOOKING, claim_token=None, lease=LEASE)
    code, out = command(store, None, "export", "-o", "-")
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


def test_export_goes_outside_the_site_folder_by_default_and_refuses_it(
    store: LeadStore, tmp_path
) -> None:
    add_lead_id(store, LeadKind.BOOKING, BOOKING, claim_token=None, lease=LEASE)
    exports = tmp_path / "exports"
    code, out = command(store, None, "export", exports=exports)
    [written] = exports.glob("leads-*.csv")
    assert code == 0 and out == f"1 lead(s) written to {written}.\n"
    assert written.stat().st_mode & 0o777 == 0o600  # Personal data: the owner's eyes only.

    inside = ROOT / "leads-test-refused.csv"
    code, out = command(store, None, "export", "-o", str(inside), exports=exports)
    assert code == 2 and "Refused" in out and "backend.zip" in out
    assert not inside.exists()
    code, out = command(store, None, "find", "--email", "a@b.es", "-o", str(inside))
    assert code == 2 and not inside.exists()


def test_purge_deletes_people_whose_last_contact_is_past_the_retention(
    any_store: LeadStore,
) -> None:
    store = any_store
    # Ana wrote 14 months ago and again last month: all of hers stay.
    ana_old = add_lead_id(
        store, LeadKind.HERO, {"email": "ana@example.com"}, claim_token=None, lease=LEASE
    )
    aged(store, ana_old, 425)
    ana_new = add_lead_id(
        store,
        LeadKind.BOOKING,
        {**BOOKING_FIELDS, "email": "ANA@example.com"},
        claim_token=None,
        lease=LEASE,
    )
    aged(store, ana_new, 30)
    # Bea wrote 13 months ago only: hers go, delivered or not.
    bea = add_lead_id(
        store, LeadKind.HERO, {"email": "bea@example.com"}, claim_token="t", lease=LEASE
    )
    store.mark_sent(bea, "t")
    aged(store, bea, 400)
    bea_held = add_lead_id(
        store, LeadKind.HERO, {"email": "Bea@Example.com"}, claim_token="u", lease=LEASE
    )
    store.mark_held(bea_held, "u", "HTTP 412", "config-a")
    aged(store, bea_held, 380)
    # Carla wrote 11 months ago: kept.
    carla = add_lead_id(
        store, LeadKind.HERO, {"email": "carla@example.com"}, claim_token=None, lease=LEASE
    )
    aged(store, carla, 335)

    code, out = command(store, None, "purge")
    assert code == 0 and out.startswith("2 lead(s) deleted")
    assert [lead.id for lead in store.all()] == [ana_old, ana_new, carla]
    assert command(store, None, "purge")[1].startswith("0 lead(s) deleted")  # Idempotent.


def test_find_shows_everything_about_a_person_whatever_the_case(any_store: LeadStore) -> None:
    store = any_store
    contact = add_lead_id(
        store, LeadKind.HERO, {"email": "Ana@Example.com"}, claim_token=None, lease=LEASE
    )
    booking = add_lead_id(store, LeadKind.BOOKING, BOOKING_FIELDS, claim_token=None, lease=LEASE)
    add_lead_id(store, LeadKind.HERO, {"email": "otra@example.com"}, claim_token=None, lease=LEASE)

    code, out = command(store, None, "find", "--email", " ANA@example.COM ")
    records = json.loads(out)
    assert code == 0
    assert [record["id"] for record in records] == [contact, booking]
    assert records[1]["fields"] == BOOKING_FIELDS
    assert records[1]["kind"] == "booking" and records[1]["status"] == "queued"
    assert set(records[0]) == {
        "id",
        "kind",
        "created_at",
        "status",
        "attempts",
        "sent_at",
        "last_error",
        "fields",
        "source",
        "language",
    }

    code, out = command(store, None, "find", "--email", "ana@example.com", "--format", "csv")
    assert [row["id"] for row in csv.DictReader(io.StringIO(out))] == [str(contact), str(booking)]
    assert command(store, None, "find", "--email", "nadie@example.com")[1] == "[]\n"


def test_erase_asks_then_deletes_everything_about_a_person(any_store: LeadStore) -> None:
    store = any_store
    add_lead_id(store, LeadKind.HERO, {"email": "ana@example.com"}, claim_token=None, lease=LEASE)
    add_lead_id(
        store,
        LeadKind.BOOKING,
        {**BOOKING_FIELDS, "email": "Ana@Example.com"},
        claim_token=None,
        lease=LEASE,
    )
    other = add_lead_id(
        store, LeadKind.HERO, {"email": "otra@example.com"}, claim_token=None, lease=LEASE
    )

    code, out = command(store, None, "erase", "--email", "ANA@example.com", answer="no\n")
    assert code == 1 and "Type 'yes' to confirm" in out and "Nothing deleted." in out
    assert len(store.all()) == 3

    code, out = command(store, None, "erase", "--email", "ANA@example.com", answer="yes\n")
    assert code == 0 and "2 lead(s) deleted" in out
    assert [lead.id for lead in store.all()] == [other]

    code, out = command(store, None, "erase", "--email", "otra@example.com", "--yes")
    assert code == 0 and "confirm" not in out and store.all() == []
    assert command(store, None, "erase", "--email", "otra@example.com")[1] == (
        "No lead stored for otra@example.com.\n"
    )


def test_old_rows_with_text_without_utf8_are_listed_exported_found_and_purged(
    any_store: LeadStore, tmp_path
) -> None:
    """A lone surrogate (stored before validation refused them) is written escaped, to a
    UTF-8 terminal or file, never a crash; JSON reads it back as stored."""
    store = any_store
    odd = json.loads('"Ana \\ud800"')
    fields = {**BOOKING_FIELDS, "name": odd, "message": "Hola \udfff"}
    lead_id = add_lead_id(store, LeadKind.BOOKING, fields, claim_token=None, lease=LEASE)

    def strict(*argv: str) -> tuple[int, str]:
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")  # As sys.stdout.
        code = in_own_thread(
            lambda: run(argv, make_delivery(store, None), out, retention_months=12)
        )
        out.flush()
        return code, out.buffer.getvalue().decode("utf-8")

    code, out = strict("list")
    assert code == 0 and "ana@example.com" in out
    code, out = strict("export", "-o", "-")
    [row] = list(csv.DictReader(io.StringIO(out)))
    assert (row["name"], row["message"]) == ("Ana \\ud800", "Hola \\udfff")
    code, out = strict("find", "--email", "ana@example.com")
    assert json.loads(out)[0]["fields"]["name"] == odd
    code, out = strict("find", "--email", "ana@example.com", "--format", "csv")
    assert "Ana \\ud800" in out
    target = tmp_path / "leads.csv"
    code, out = strict("export", "-o", str(target))
    assert code == 0 and "Hola \\udfff" in target.read_text(encoding="utf-8")

    aged(store, lead_id, 400)
    code, out = strict("purge")
    assert code == 0 and out.startswith("1 lead(s) deleted") and store.all() == []


def test_spam_lists_the_leads_taken_for_spam_and_not_spam_sends_one(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    from agency_site.bookings import slots

    accept_sends(emailjs)
    day = dt.date(2026, 12, 14)
    fields = BOOKING_FIELDS | {"date": str(day), "time": "10:00", "email": "autofill@example.com"}
    spam = add_lead_id(
        store, LeadKind.BOOKING, fields, claim_token=None, lease=LEASE, spam=SpamReason.TOO_FAST
    )
    add_lead_id(store, LeadKind.HERO, {"email": "real@example.com"}, claim_token=None, lease=LEASE)
    assert "not shown yet: kept until shown]" in command(store, None, "list", "--status", "spam")[1]
    code, out = command(store, None, "spam")
    assert code == 0 and "autofill@example.com" in out and "real@example.com" not in out
    # Why it was taken for spam; its proof of work (LEADS_SPAM_CHALLENGE, on) never came;
    # shown now, so deleted LEADS_SPAM_KEEP_DAYS (7) from now unless released.
    shown = store.get(spam).spam_listed_at
    gone = (shown.replace(tzinfo=dt.UTC) + dt.timedelta(days=7)).strftime("%Y-%m-%d %H:%M:%S")
    assert f"[spam: too_fast, challenged, not solved, deleted after {gone} UTC]" in out
    assert command(store, None, "list", "--status", "spam")[1].count("\n") == 2  # Header + 1.
    assert store.get(spam).spam_listed_at == shown  # Shown again: its first time kept.

    code, out = command(store, None, "not-spam", str(spam))
    assert code == 0 and f"Lead {spam} is queued" in out
    assert store.get(spam).status == LeadStatus.QUEUED
    assert store.get(spam).spam_reason == SpamReason.TOO_FAST  # Kept: false alarms counted.
    assert slots.taken(store.engine, [day]) == {day: {"10:00"}}  # Now holds its slot.
    assert command(store, None, "not-spam", str(spam))[0] == 1  # Once.
    assert command(store, None, "spam")[1] == "No lead taken for spam.\n"
    command(store, emailjs, "retry")
    assert {p["template_params"]["from_email"] for p in sent_payloads(emailjs)} == {
        "autofill@example.com",
        "real@example.com",
    }

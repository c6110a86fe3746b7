"""The inbox as CSV for a Spanish Excel: UTF-8 with BOM, ``;``, CRLF, local times, a column
per field of every form labelled as the forms label them, the inbox's filters applied,
formula-looking cells neutralised (Hypothesis: what the csv module reads back is the text,
with ``'`` before it exactly when it would be a formula), read a chunk at a time, behind a
fresh passkey, audited with its filters and never its data. On SQLite and PostgreSQL."""

import csv
import datetime as dt
import io

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from agency_site import locale, paths
from agency_site.desk import inbox_export
from agency_site.desk.inbox import Filters
from agency_site.desk.inbox_export import EXPORT, FORMULA_START, InboxCsv, excel_cell
from agency_site.desk.models import DeskAudit
from agency_site.forms.declarations import BY_KIND, export_fields, export_forms
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead, email_digest
from agency_site.leads.source import KEYS
from agency_site.leads.statuses import SpamReason
from tests.desk.conftest import DeskSite
from tests.desk.lead_desk import QUOTE_FIELDS, add, wire
from tests.desk.test_pages import _words
from tests.lead_store import BOOKING_FIELDS


def _read(body: bytes) -> list[list[str]]:
    """The file as a Spanish Excel reads it: BOM, then ``;``-separated UTF-8."""
    assert body.startswith(b"\xef\xbb\xbf")
    text = body.decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))


def test_the_file_opens_with_its_accents_columns_and_local_times(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    quote = add(tools.store)
    hero = add(tools.store, LeadKind.HERO, {"email": "çà@example.com"}, language="ca")
    with site.engine.begin() as connection:  # 23:30 UTC on New Year's Eve: 00:30 in Spain.
        connection.execute(
            sa.update(Lead)
            .where(Lead.id == hero)
            .values(created_at=dt.datetime(2025, 12, 31, 23, 30, tzinfo=dt.UTC))
        )
    answer = site.signed_in().get(EXPORT)

    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/csv")
    assert answer.headers["content-disposition"].startswith('attachment; filename="solicitudes-')
    assert b"\r\n" in answer.content and b"\n" not in answer.content.replace(b"\r\n", b"")
    rows = _read(answer.content)
    header, *leads = rows
    with locale.active("es"):
        labels = {}
        for form in export_forms():  # The fullest form labels a column.
            for field in form.fields:
                labels.setdefault(field.name, form.field_words(field).label)
    words = _words()
    assert header[6 : 6 + len(export_fields())] == [labels[name] for name in export_fields()]
    assert header[-len(KEYS) - 1 : -1] == [words.SOURCE[key] for key in KEYS]
    assert [row[0] for row in leads] == [str(quote), str(hero)]  # Newest first.
    by_id = {row[0]: dict(zip(header, row, strict=True)) for row in leads}
    first = by_id[str(quote)]
    assert first["Nombre"] == QUOTE_FIELDS["name"]  # ñ
    assert first["Cuéntanos tu proyecto"] == QUOTE_FIELDS["message"]  # ç, à
    assert first["Servicio"] == "Branding y Diseño"
    assert first["Teléfono"] == "'+34 600 11 22 33"  # A formula to Excel otherwise.
    assert first["Formulario"] == "Presupuesto" and first["Estado"] == "En espera"
    assert first["Etapa"] == "Nueva" and first["Campaña"] == "otoño"
    second = by_id[str(hero)]
    assert second["Recibida"] == "01/01/2026 00:30"
    assert second["Correo electrónico"] == "çà@example.com" and second["Idioma"] == "Català"


def test_a_booking_s_date_is_a_date_excel_reads(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    add(tools.store, LeadKind.BOOKING, BOOKING_FIELDS)
    header, row = _read(site.signed_in().get(EXPORT).content)
    with locale.active("es"):
        booking = BY_KIND[LeadKind.BOOKING]
        date_label = booking.field_words(booking.field("date")).label
    assert dict(zip(header, row, strict=True))[date_label] == "10/03/2026"


def test_the_inbox_s_filters_are_applied(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    quote = add(tools.store)
    add(tools.store, LeadKind.HERO, {"email": "hero@example.com"})
    spam = add(tools.store, spam=SpamReason.HONEYPOT)
    browser = site.signed_in()
    only_quotes = _read(browser.get(EXPORT, params={"form": "quote"}).content)
    assert [row[0] for row in only_quotes[1:]] == [str(spam), str(quote)]
    spam_rows = _read(browser.get(EXPORT, params={"status": "spam"}).content)
    assert [row[0] for row in spam_rows[1:]] == [str(spam)]
    assert spam_rows[1][-1] == "campo oculto rellenado"
    found = _read(browser.get(EXPORT, params={"q": "HERO@example"}).content)
    assert len(found) == 2 and found[1][6 + export_fields().index("email")] == "hero@example.com"
    inbox = browser.get(paths.DESK, params={"form": "quote"}).text
    assert f"{EXPORT}?form=quote" in inbox  # The inbox links its own filters' export.


def test_the_export_asks_for_the_passkey_again(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    add(tools.store)
    browser = site.signed_in()
    site.clock.advance(minutes=6)  # The sign-in's proof is stale.
    answer = browser.get(EXPORT, params={"form": "quote"})
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(f"{paths.DESK}/confirm?next=")
    assert "Peñalver" not in answer.text
    with site.engine.connect() as connection:
        actions = connection.execute(sa.select(DeskAudit.action)).scalars().all()
    assert "inbox_exported" not in actions


def test_the_export_is_audited_with_its_filters_never_its_data(desk_site: DeskSite) -> None:
    site, tools = wire(desk_site)
    add(tools.store)
    browser = site.signed_in()
    browser.get(EXPORT, params={"q": "Nuria@Example.com", "form": "quote", "stage": "new"})
    browser.get(EXPORT)
    with site.engine.connect() as connection:
        lines = connection.execute(
            sa.select(DeskAudit.action, DeskAudit.detail, DeskAudit.digest)
            .where(DeskAudit.action == "inbox_exported")
            .order_by(DeskAudit.id)
        ).all()
    assert [tuple(line) for line in lines] == [
        ("inbox_exported", "q=… form=quote stage=new", email_digest("nuria@example.com")),
        ("inbox_exported", "-", None),
    ]
    log = browser.get(f"{paths.DESK}/log").text
    assert "exportó la bandeja en CSV" in log and "q=… form=quote stage=new" in log
    assert "Nuria" not in log


def test_a_year_of_leads_is_read_a_chunk_at_a_time(desk_site: DeskSite, monkeypatch) -> None:
    """The file is written as it is read: the header before any lead is read, then one
    query per chunk of leads (through the inbox's keyset), never all at once."""
    site, tools = wire(desk_site)
    ids = [add(tools.store, LeadKind.HERO, {"email": f"p{n}@example.com"}) for n in range(7)]
    queries: list[str] = []

    def count(conn, cursor, statement, *args) -> None:
        if "FROM leads" in statement:
            queries.append(statement)

    sa.event.listen(site.engine, "before_cursor_execute", count)
    try:
        words = _words()
        parts = inbox_export.chunks(site.engine, Filters(), InboxCsv(words), size=3)
        header = next(parts)
        assert queries == [] and header.startswith(b"\xef\xbb\xbfN.\xc2\xba;")
        assert next(parts).count(b"\r\n") == 3 and len(queries) == 1
        rest = b"".join(parts)
        assert len(queries) == 3  # 3 + 3 + 1 leads.
    finally:
        sa.event.remove(site.engine, "before_cursor_execute", count)
    rows = _read(header + rest)
    assert [row[0] for row in rows[1:]] == [str(n) for n in reversed(ids[:-3])]


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_every_cell_reads_back_as_its_text_and_never_as_a_formula(text: str) -> None:
    cells = [text, "x", text]
    body = inbox_export.encoded([cells])
    [row] = list(csv.reader(io.StringIO(body.decode("utf-8"), newline=""), delimiter=";"))
    expected = "'" + text if text.startswith(FORMULA_START) else text
    assert row == [expected, "x", expected]
    assert not row[0].startswith(FORMULA_START)


@pytest.mark.parametrize(
    "value",
    ['=HYPERLINK("http://x")', "+34 600", "-1", "@SUM(A1)", "\tcmd", "\rcmd", "fine=1"],
)
def test_formula_looking_values_are_text(value: str) -> None:
    assert excel_cell(value) == (value if value == "fine=1" else "'" + value)


def test_a_lone_surrogate_of_an_old_row_is_written_as_its_escape() -> None:
    body = inbox_export.encoded([["a\ud800b"]])
    assert body.decode("utf-8") == "a\\ud800b\r\n"

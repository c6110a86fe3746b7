"""The owner's day on the desk, its lead part, in Chromium against the production build
(a virtual authenticator plays the owner's passkey: tests/e2e/test_desk.py's helpers):
a hero lead, a quote and a booking arrive through the real site and show in the inbox with
their source; a booking from a throwaway-mailbox domain sits in spam, is released from the
spam page and delivered (the fake EmailJS gets it); the agency moves a lead along its
pipeline and writes a note; the CSV downloads and opens with its accents (read back with
Python's csv); the audit log lists each step; axe finds nothing at 375 px and 1280 px on a
lead's page, the spam review and the inbox with its stage column.
"""

import csv
import datetime as dt
import io
import re
import sqlite3
import time

import pytest
from playwright.sync_api import CDPSession, Page, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.form_words import COPY
from agency_site.desk.log import LOG
from tests.e2e.conftest import EMAILJS_E2E, SiteServer
from tests.e2e.form_helpers import SUBMIT, fill_booking, new_address, wait_for_sends, working_day
from tests.e2e.helpers import open_page
from tests.e2e.test_a11y import DESKTOP, MOBILE
from tests.e2e.test_desk import authenticator, axe_source, axe_violations, enroll
from tests.emailjs_fake import sent_payloads

__all__ = ["axe_source"]  # The fixture, used by name.

QUOTE_NAME = "Núria Peñalver"
QUOTE_MESSAGE = "Volem renovar la façana, la marca i la web: ja és hora."


def _lead_id(site: SiteServer, email: str) -> tuple[int, str] | None:
    """The id and status of the lead of ``email`` (the last one); None before it is stored."""
    with sqlite3.connect(site.db_path) as db:
        return db.execute(
            "SELECT id, status FROM leads WHERE email_norm = ? ORDER BY id DESC", (email,)
        ).fetchone()


def _wait_status(site: SiteServer, email: str, status: str, timeout: float = 20) -> int:
    """The lead of ``email`` once it is stored with ``status``. A second booking from the same
    tab can show the first one's thank-you while it is still being sent (the tab's state
    keeps the answer its 5 seconds), so the lead may come a moment after the page says so."""
    deadline = time.monotonic() + timeout
    row = _lead_id(site, email)
    while (row is None or row[1] != status) and time.monotonic() < deadline:
        time.sleep(0.2)
        row = _lead_id(site, email)
    assert row is not None and row[1] == status, (email, row)
    return row[0]


def send_hero(page: Page, email: str) -> None:
    open_page(page, "/?utm_source=boletin&utm_campaign=otono")
    form = page.locator("#hero-capture-form")
    form.get_by_label(COPY.hero.fields["email"].label).fill(email)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.hero.success)).to_be_visible()


def send_quote(page: Page, email: str) -> None:
    open_page(page, f"{paths.CONTACT}?service=branding&pack=esencial&utm_campaign=primavera")
    form = page.locator("#quote-form")
    words = COPY.quote.fields
    form.get_by_label(words["name"].label).fill(QUOTE_NAME)
    form.get_by_label(words["email"].label).fill(email)
    form.get_by_label(words["message"].label).fill(QUOTE_MESSAGE)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.quote.success)).to_be_visible()


def send_booking(page: Page, day: dt.date, slot: str, email: str) -> None:
    open_page(page, f"{paths.SCHEDULE}?utm_source=google&utm_medium=cpc")
    form = page.locator("#booking-form")
    expect(form.locator(SUBMIT)).to_be_enabled()
    fill_booking(page, day, slot, email)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.booking.success)).to_be_visible()


def confirm_if_asked(page: Page) -> None:
    """The export asks for the passkey again unless proved within 5 minutes."""
    if page.get_by_role("heading", level=1, name="Confirma que eres tú").is_visible():
        page.get_by_role("button", name="Confirmar con tu passkey").click()


def test_the_owner_s_day_leads_spam_pipeline_export_and_log(
    page: Page, site: SiteServer, fake: HTTPServer
) -> None:
    _authenticator = authenticator(page)
    enroll(page, site, "duena@example.com")

    # Three visitors: a hero lead, a quote, a booking, through the real site.
    visitor = page.context.new_page()
    hero, quote, booker = new_address(), new_address(), new_address()
    send_hero(visitor, hero)
    send_quote(visitor, quote)
    day = working_day(31)
    send_booking(visitor, day, "11:00", booker)
    # And a booking from a throwaway-mailbox domain: told "received", quarantined.
    throwaway = f"alguien{int(time.time())}@mailinator.com"
    send_booking(visitor, working_day(32), "12:00", throwaway)
    visitor.close()
    sent = wait_for_sends(fake, 3)
    assert len(sent) == 3
    assert throwaway not in str(sent)
    spam_id = _wait_status(site, throwaway, "spam")

    # The inbox: each with its form and where it came from.
    page.goto(f"{site.url}{paths.DESK}")
    row = page.locator("tr", has_text=hero)
    expect(row).to_contain_text("Información (inicio)")
    expect(row).to_contain_text("Campaña: otono")
    quote_row = page.locator("tr", has_text=QUOTE_NAME)
    expect(quote_row).to_contain_text("Presupuesto")
    expect(quote_row).to_contain_text("Campaña: primavera")
    expect(quote_row).to_contain_text("Nueva")
    booking_row = page.locator("tr", has_text=booker)
    expect(booking_row).to_contain_text("Reserva de consulta")
    expect(booking_row).to_contain_text("Campaña: google")
    expect(page.locator("tr", has_text=throwaway)).to_contain_text("Spam")

    # The quote's page: its fields by their labels, its attempt, its source; the pipeline.
    quote_row.get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(QUOTE_NAME)
    main = page.locator("main")
    expect(main).to_contain_text("Servicio")
    expect(main).to_contain_text("Branding y Diseño")
    expect(main).to_contain_text(QUOTE_MESSAGE)
    expect(main).to_contain_text("Enviada al correo de la agencia")
    expect(main).to_contain_text("primavera")
    page.get_by_label("Etapa").select_option("contacted")
    page.get_by_role("button", name="Guardar etapa").click()
    expect(page.get_by_role("status")).to_contain_text("Etapa guardada.")
    page.get_by_label(re.compile("^Nota privada")).fill("Llamar el lunes: quiere la façana")
    page.get_by_role("button", name="Añadir nota").click()
    expect(page.locator(".notes")).to_contain_text("Llamar el lunes: quiere la façana")

    # The spam review: the throwaway booking, its reason; released and delivered.
    page.get_by_role("navigation", name="Escritorio").get_by_role("link", name="Spam").click()
    card = page.locator("li.card", has_text=f"Solicitud n.º {spam_id}")
    expect(card).to_contain_text("dirección de correo desechable")
    expect(card).to_contain_text(throwaway)
    card.get_by_role("button", name="No es spam").click()
    expect(page.get_by_role("status")).to_contain_text("Liberada y enviada")
    released = wait_for_sends(fake, 4)[3]
    assert released["template_id"] == EMAILJS_E2E["EMAILJS_BOOKING_TEMPLATE_ID"]
    assert released["template_params"]["from_email"] == throwaway
    assert _wait_status(site, throwaway, "sent")

    # The export, with the inbox's filter: opens with its accents.
    page.goto(f"{site.url}{paths.DESK}?form=quote")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Exportar CSV").click()
        confirm_if_asked(page)
    body = download_info.value.path().read_bytes()
    assert body.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"), newline=""), delimiter=";"))
    records = [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
    mine = [record for record in records if record["Correo electrónico"] == quote]
    assert len(mine) == 1 and {record["Formulario"] for record in records} == {"Presupuesto"}
    assert mine[0]["Nombre"] == QUOTE_NAME
    assert mine[0]["Cuéntanos tu proyecto"] == QUOTE_MESSAGE
    assert mine[0]["Etapa"] == "Contactada"

    # The audit log: each step.
    page.goto(f"{site.url}{LOG}")
    log = page.locator(".log")
    for words in (
        "abrió la ficha de una solicitud",
        "cambió la etapa de una solicitud",
        "escribió una nota privada",
        "abrió la revisión de spam",
        "liberó una solicitud del spam",
        "exportó la bandeja en CSV",
    ):
        expect(log).to_contain_text(words)
    expect(log).to_contain_text("form=quote")
    expect(log).not_to_contain_text(QUOTE_NAME)


def _violations(page: Page, session: CDPSession, axe_source: str, path: str) -> list[dict]:
    page.goto(path)
    found = axe_violations(page, session, axe_source)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], (path, width)  # Nothing scrolls sideways.
    return found


@pytest.mark.parametrize("viewport", [DESKTOP, MOBILE], ids=["1280x800", "375x812"])
def test_axe_finds_nothing_on_the_lead_screens(
    page: Page, site: SiteServer, fake: HTTPServer, axe_source: str, viewport: dict
) -> None:
    page.set_viewport_size(viewport)
    session = authenticator(page)
    enroll(page, site, f"axe-leads{viewport['width']}@example.com")
    visitor = page.context.new_page()
    booker = new_address()
    send_booking(visitor, working_day(33), "16:00", booker)
    throwaway = f"axe{viewport['width']}x{int(time.time())}@mailinator.com"
    send_quote(visitor, throwaway)
    visitor.close()
    booking_id = _wait_status(site, booker, "sent")
    _wait_status(site, throwaway, "spam")
    lead = f"{site.url}{paths.desk_lead(booking_id)}"
    page.goto(lead)
    page.get_by_label(re.compile("^Nota privada")).fill("Prefiere videollamada. " * 20)
    page.get_by_role("button", name="Añadir nota").click()
    expect(page.locator(".notes")).to_contain_text("Prefiere videollamada")

    for path in (lead, f"{site.url}{paths.DESK_SPAM}", f"{site.url}{paths.DESK}?stage=new"):
        assert _violations(page, session, axe_source, path) == [], path
    assert sent_payloads(fake)  # The booking went to the agency.

"""The desk's Reservas, Personas and Cifras in Chromium against the production build, signed in
with a virtual passkey (tests/e2e/test_desk.py's helpers): a booking made on /schedule is
confirmed from the desk's calendar and the visitor's e-mail goes (the session's fake
EmailJS); a person is found, exported (the CSV opens with its accents) and erased from
Personas, and the session's webhook receiver (tests/e2e/conftest.py: LEADS_WEBHOOK_URLS)
gets ``lead.erased``; the audit log lists each step; axe finds nothing on these pages at
375 px and 1280 px.
"""

import csv
import functools
import io
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect
from pytest_httpserver import HTTPServer
from standardwebhooks import Webhook

from agency_site import paths
from agency_site.content.bookings import COPY as BOOKINGS
from agency_site.content.form_words import COPY
from agency_site.desk.log import LOG
from scripts import node_tools
from tests.e2e.conftest import (
    VISITOR_TEMPLATE_E2E,
    WEBHOOK_PATH_E2E,
    WEBHOOK_SECRET_E2E,
    SiteServer,
)
from tests.e2e.form_helpers import SUBMIT, fill_booking, open_schedule, working_day
from tests.e2e.test_a11y import DESKTOP, MOBILE
from tests.e2e.test_desk import authenticator, axe_violations, enroll
from tests.e2e.test_reschedule import wait_for_params


@functools.cache
def axe_script() -> str:
    """axe-core's script (tests/e2e/test_desk.py's fixture reads the same file)."""
    return (node_tools.ensure("axe-core") / "axe.min.js").read_text()


def book_on_the_site(context: BrowserContext, slot: str, days_ahead: int) -> tuple[str, str]:
    """A visitor books on /schedule (a page of its own); the day and their address."""
    visitor = context.new_page()
    form = open_schedule(visitor)
    day = working_day(days_ahead)
    email = fill_booking(visitor, day, slot)
    form.locator(SUBMIT).click()
    expect(form.get_by_text(COPY.booking.success)).to_be_visible()
    visitor.close()
    return day.isoformat(), email


def webhook_to(receiver: HTTPServer, kind: str, match, timeout: float = 30) -> dict:
    """The first verified body of ``kind`` that ``match`` accepts (waiting for it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for request, _ in list(receiver.log):
            if request.path != WEBHOOK_PATH_E2E:
                continue
            text = request.get_data(as_text=True)
            body = Webhook(WEBHOOK_SECRET_E2E).verify(text, dict(request.headers))
            if body["type"] == kind and match(body["data"]):
                return body
        time.sleep(0.5)
    raise AssertionError(f"the receiver got no {kind} message for it")


def test_a_booking_from_the_site_is_confirmed_from_the_calendar_and_the_visitor_told(
    page: Page, site: SiteServer, context: BrowserContext, fake: HTTPServer
) -> None:
    _authenticator = authenticator(page)
    enroll(page, site, "reservas@example.com")
    day, email = book_on_the_site(context, "17:00", 20)

    page.goto(f"{paths.DESK_BOOKINGS}?view=week&date={day}")
    waiting = page.locator("section[aria-labelledby=waiting-title] li.booking", has_text=email)
    expect(waiting).to_contain_text("Pendiente")
    expect(waiting).to_contain_text("17:00")
    in_its_day = page.locator(f'[data-day="{day}"] li.booking', has_text="Ana García")
    expect(in_its_day.first).to_contain_text("17:00")
    waiting.get_by_role("button", name=re.compile("^Confirmar")).click()

    expect(page.get_by_role("status")).to_contain_text("Cita confirmada.")
    expect(page.get_by_role("status")).to_contain_text("Se lo hemos comunicado por correo")
    assert "view=week" in page.url  # Back on the week it was answered from.
    expect(page.locator(f'[data-day="{day}"]')).to_be_visible()
    params = wait_for_params(
        fake, lambda template, p: template == VISITOR_TEMPLATE_E2E and p["to_email"] == email
    )
    assert params["subject"] == BOOKINGS.mails.confirmed.subject
    assert params["time"] == "17:00" and params["ics_url"]
    card = page.locator(f'[data-day="{day}"] li.booking', has_text="17:00")
    expect(card.first).to_contain_text("Confirmada")
    page.goto(LOG)
    expect(page.locator(".log")).to_contain_text("confirmó la cita")


def test_a_person_is_found_exported_and_erased_and_the_receiver_gets_lead_erased(
    page: Page, site: SiteServer, context: BrowserContext, webhook_receiver: HTTPServer
) -> None:
    _authenticator = authenticator(page)
    enroll(page, site, "privacidad@example.com")
    _day, email = book_on_the_site(context, "18:00", 22)
    created = webhook_to(
        webhook_receiver, "lead.created", lambda data: data["fields"]["email"] == email
    )
    lead_id = created["data"]["lead_id"]

    page.get_by_role("link", name="Personas").click()
    page.get_by_label("Correo electrónico de la persona").fill(email.upper())
    page.get_by_label("Qué pide").select_option(label="Supresión (borrado)")
    page.get_by_role("button", name="Anotar la petición").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Petición de privacidad n.º")
    expect(page.locator("main")).to_contain_text("Solicitudes (1)")
    expect(page.locator(f'a[href="{paths.desk_lead(lead_id)}"]')).to_be_visible()
    expect(page.locator("table.copies")).to_contain_text("Destino 1: aviso firmado (webhook)")
    expect(page.locator("table.copies")).to_contain_text("rec-e2e")

    with page.expect_download() as downloaded:
        page.get_by_role("button", name="Descargar CSV (Excel)").click()
    raw = Path(downloaded.value.path()).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""), delimiter=";"))
    values = dict(zip(rows[0], rows[1], strict=True))
    assert values["Nombre"] == "Ana García" and values["Correo electrónico"] == email
    assert values["Número"] == str(lead_id)

    page.get_by_label("Entiendo que se borra para siempre").check()
    page.get_by_role("button", name="Borrar en todas partes").click()
    expect(page.get_by_role("status")).to_contain_text("Borrado: 1 solicitud")
    expect(page.locator("main")).not_to_contain_text("Ana García")
    erased = webhook_to(webhook_receiver, "lead.erased", lambda data: lead_id in data["lead_ids"])
    assert erased["data"]["remote_ids"] == ["rec-e2e"] and erased["data"]["reason"] == "request"
    assert email not in str(erased) and "García" not in str(erased)

    page.get_by_label("Cómo terminó").select_option("answered")
    page.get_by_role("button", name="Cerrar la petición").click()
    expect(page.get_by_role("status")).to_contain_text("Petición cerrada")
    expect(page.locator("main")).not_to_contain_text(email)
    page.goto(LOG)
    log = page.locator(".log")
    for done in ("anotó una petición", "consultó los datos", "exportó los datos",
                 "borró los datos", "cerró una petición"):  # fmt: skip
        expect(log).to_contain_text(done)
    expect(log).not_to_contain_text(email)


@pytest.mark.parametrize("viewport", [DESKTOP, MOBILE], ids=["1280x800", "375x812"])
def test_axe_finds_nothing_on_reservas_personas_and_cifras(
    page: Page, site: SiteServer, context: BrowserContext, viewport: dict
) -> None:
    axe_source = axe_script()
    page.set_viewport_size(viewport)
    session = authenticator(page)
    enroll(page, site, f"axe-reservas{viewport['width']}@example.com")
    day, email = book_on_the_site(context, "09:00", 24)
    page.goto(f"{paths.DESK_PRIVACY}")
    page.get_by_label("Correo electrónico de la persona").fill(email)
    page.get_by_role("button", name="Anotar la petición").click()
    request_page = page.url
    pages = [
        f"{paths.DESK_BOOKINGS}?view=week&date={day}",
        f"{paths.DESK_BOOKINGS}?view=month&date={day}",
        paths.DESK_PRIVACY,
        request_page,
        paths.DESK_FIGURES,
    ]
    for url in pages:
        page.goto(url)
        assert axe_violations(page, session, axe_source) == [], url
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], (url, width)  # Nothing scrolls sideways.
    page.goto(f"{paths.DESK_BOOKINGS}?view=week&date={day}")
    page.locator("section[aria-labelledby=waiting-title] li.booking", has_text=email).get_by_role(
        "link", name=re.compile("^Cambiar de hora")
    ).click()
    expect(page.get_by_role("heading", level=1, name="Cambiar de hora")).to_be_visible()
    assert axe_violations(page, session, axe_source) == [], page.url
    # The charts load as images under the desk's own policy (no violation: the fixture).
    page.goto(paths.DESK_FIGURES)
    for image in page.locator(".chart img").all():
        image.scroll_into_view_if_needed()
        loaded = "img => img.complete && img.naturalWidth > 0"
        page.wait_for_function(loaded, arg=image.element_handle(), timeout=10_000)

"""A new form is data: a throwaway fourth form, declared inside the test as docs/forms.md
says (its declaration and its line in ``FORMS``, its words and privacy purpose in both
``forms.yaml``), goes through every place a lead goes (the page without JavaScript,
validation, the database, EmailJS by its template variable, the template generator, the
report, the owner's desk) with nothing else written for it; and an optional field added
to the booking form shows on the booking's confirm page, the morning digest, the desk and
the agency template by itself.

``test_the_walk_through_in_a_scratch_copy_touches_only_the_listed_files`` does it for
real: it copies the package, writes the form where a newcomer would (the files
docs/forms.md lists, no other) and imports the copy in a fresh interpreter, where the
kinds, the Reflex states and the template ids are derived as the site derives them.
"""

import csv
import datetime as dt
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import httpx
import pystache
import pytest
from limits.aio.storage import MemoryStorage
from pytest_httpserver import HTTPServer

from agency_site import emailjs_templates as generator
from agency_site import locale, paths
from agency_site.bookings import digest, slots
from agency_site.bookings.links import LinkAction, LinkSigner
from agency_site.bookings.models import BookingStatus
from agency_site.bookings.pages import create_app as booking_pages
from agency_site.content.form_words import COPY, FieldCopy, FormCopy
from agency_site.desk.inbox_export import EXPORT
from agency_site.forms import declarations
from agency_site.forms.__main__ import describe
from agency_site.forms.declarations import (
    BY_KIND,
    FORM_NAMES,
    HONEYPOT_FIELD,
    FormDeclaration,
    service_options,
)
from agency_site.forms.email import kind_params
from agency_site.forms.fields import Control, FormField
from agency_site.forms.kinds import LeadKind
from agency_site.forms.template_ids import fingerprint, form_templates, shared_templates
from agency_site.leads.intake import LeadIntake
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import LeadStore
from agency_site.report import text as report_text
from agency_site.report.figures import Figures, month_figures
from agency_site.report.started import form_of
from agency_site.settings import ROOT, EmailJSSettings
from agency_site.site_api import create_app as site_api
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_booking_pages import SECRET, Client, desk_for
from tests.desk.conftest import DeskSite, desk_engine, desk_site
from tests.desk.lead_desk import add, wire
from tests.emailjs_fake import accept_sends, make_client, sent_payloads
from tests.lead_store import (
    BOOKING_FIELDS,
    LEASE,
    add_held_booking,
    add_lead_id,
    make_delivery,
    plugged,
)
from tests.run_async import run

__all__ = ["desk_engine", "desk_site"]  # The desk's fixtures, used by name.

SITE = "https://www.example.es"
API = "https://api.example.es"

# The fourth form's words, as a newcomer writes them in content/es/forms.yaml and
# content/ca/forms.yaml (its key: the declaration's name), and its privacy purpose (its
# line of ``privacy_purposes``).
WORDS = {
    "es": FormCopy(
        name="Boletín",
        email_heading="Alta en el boletín: {{from_email}}",
        fields={
            "name": FieldCopy(label="Tu nombre", error="Escribe tu nombre."),
            "email": FieldCopy(label="Tu correo", error="Escribe un correo válido."),
            "topic": FieldCopy(
                label="Tema que te interesa", placeholder="Cualquiera", error="Elige un tema."
            ),
        },
        submit="Suscribirme",
        success="¡Suscrito!",
    ),
    "ca": FormCopy(
        name="Butlletí",
        email_heading="Alta al butlletí: {{from_email}}",
        fields={
            "name": FieldCopy(label="El teu nom", error="Escriu el teu nom."),
            "email": FieldCopy(label="El teu correu", error="Escriu un correu vàlid."),
            "topic": FieldCopy(
                label="Tema que t’interessa", placeholder="Qualsevol", error="Tria un tema."
            ),
        },
        submit="Subscriure’m",
        success="Subscrit!",
    ),
}
PURPOSES = {"es": "enviarte el boletín mensual", "ca": "enviar-te el butlletí mensual"}


def _throwaway_kind(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> LeadKind:
    """The member ``forms/kinds.py`` makes of a declared form when the site loads, added to
    ``LeadKind`` for one test (its module already derived the enum from ``FORMS``)."""
    member = str.__new__(LeadKind, value)
    member._name_, member._value_ = name, value
    monkeypatch.setitem(LeadKind._member_map_, name, member)
    monkeypatch.setitem(LeadKind._value2member_map_, value, member)
    monkeypatch.setattr(LeadKind, "_member_names_", [*LeadKind._member_names_, name])
    return member


def declare(
    monkeypatch: pytest.MonkeyPatch,
    form: FormDeclaration,
    words: dict[str, FormCopy] | None = None,
    purposes: dict[str, str] | None = None,
) -> FormDeclaration:
    """``form`` in place for one test, as the lines a newcomer writes would put it: in
    ``FORMS`` (a new one after the others, one declared again in its place) and
    ``BY_KIND``, its words (``words``: a new form's ``FormCopy`` per language) and privacy
    purpose in the loaded ``forms.yaml``, its member of ``LeadKind``."""
    if form.kind not in set(LeadKind):
        _throwaway_kind(monkeypatch, form.name.upper(), form.kind)
    forms = [form if each.kind == form.kind else each for each in declarations.FORMS]
    if form.kind not in BY_KIND:
        forms.append(form)
    monkeypatch.setattr(declarations, "FORMS", tuple(forms))
    monkeypatch.setitem(BY_KIND, form.kind, form)
    for language in locale.LOCALES:
        copy = COPY.of(language)
        update = {}
        if words:
            update[form.name] = words[language]
        if purposes:
            update["privacy_purposes"] = {**copy.privacy_purposes, form.name: purposes[language]}
        monkeypatch.setitem(COPY._by_locale, language, copy.model_copy(update=update))
    return form


@pytest.fixture
def newsletter(monkeypatch: pytest.MonkeyPatch) -> FormDeclaration:
    """The fourth form: a name, an e-mail address and an optional topic (a field no other
    form has), on Home. Its kind is its name; nothing else is said of it."""
    form = FormDeclaration(
        name="newsletter",
        page=paths.HOME,
        fields=(
            declarations.NAME,
            declarations.EMAIL,
            FormField(
                "topic", Control.CHOICE, required=False, options=service_options, email=("topic",)
            ),
        ),
    )
    return declare(monkeypatch, form, WORDS, PURPOSES)


def _site_api(store: LeadStore):
    intake = LeadIntake(store, make_delivery(store, None), RateLimiter(MemoryStorage(), 5, 600))
    return site_api(lambda: intake, api_url=API, site_url=SITE, allowed_origins=(SITE,),
                    trusted_hops=0, max_body_bytes=32 * 1024)  # fmt: skip


def _request(app, method: str, path: str, **options) -> httpx.Response:
    async def request() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.2", 50000))
        async with httpx.AsyncClient(transport=transport, base_url=API) as client:
            return await client.request(method, path, **options)

    return run(request())


def _text(page: str) -> str:
    """A page's visible text, its spaces folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


# --- The fourth form ---------------------------------------------------------------------


def test_a_fourth_form_has_its_kind_page_and_template_variable(newsletter: FormDeclaration):
    assert LeadKind("newsletter") == "newsletter" and LeadKind.NEWSLETTER == "newsletter"
    assert newsletter.form_id == "newsletter-form" and newsletter.post_path.endswith("newsletter")
    assert newsletter.field_id("topic") == "newsletter-topic"
    listing = describe()
    assert "newsletter form (EMAILJS_NEWSLETTER_TEMPLATE_ID; unset: EMAILJS_CONTACT" in listing
    assert "to_email, from_name, from_email, topic, kind" in listing
    assert FORM_NAMES["newsletter"] == "Boletín"  # The agency's words: the Spanish file's.


def test_a_fourth_form_is_posted_without_javascript_validated_and_stored(
    newsletter: FormDeclaration, store: LeadStore
) -> None:
    app = _site_api(store)
    page = _request(app, "GET", paths.form_post("newsletter"))
    assert page.status_code == 200
    assert 'for="newsletter-email">Tu correo' in page.text and "Suscribirme" in page.text
    assert "enviarte el boletín mensual" in newsletter.privacy.items[1][1]  # The page's notice.
    assert "Branding y Diseño" in page.text  # Its topic's options.
    catalan = _request(app, "GET", paths.form_post("newsletter") + "?language=ca")
    assert 'for="newsletter-email">El teu correu' in catalan.text

    post = {"content-type": "application/x-www-form-urlencoded", "origin": SITE}
    wrong = _request(app, "POST", paths.form_post("newsletter"), headers=post,
                     content=f"name=A&email=ana%40&topic=cooking&{HONEYPOT_FIELD}=")  # fmt: skip
    assert wrong.status_code == 400
    for message in ("Escribe tu nombre.", "Escribe un correo válido.", "Elige un tema."):
        assert message in html.unescape(wrong.text)
    assert store.all() == []

    body = f"name=+Ana+Garc%C3%ADa+&email=ana%40example.com&topic=branding&{HONEYPOT_FIELD}="
    sent = _request(app, "POST", paths.form_post("newsletter"), headers=post, content=body)
    assert sent.status_code == 303 and "answer=queued" in sent.headers["location"]
    [lead] = store.all()
    assert (lead.kind, lead.fields["name"], lead.fields["topic"]) == (
        "newsletter",
        "Ana García",
        "branding",
    )


def test_a_fourth_form_goes_through_its_template_variable(
    newsletter: FormDeclaration,
    store: LeadStore,
    emailjs: HTTPServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``EMAILJS_NEWSLETTER_TEMPLATE_ID``, read by the pattern; unset, the agency
    template's (and said so); covered by the held leads' fingerprint."""
    for name in [name for name in os.environ if name.startswith("EMAILJS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("EMAILJS_CONTACT_TEMPLATE_ID", "template_agency")
    unset = EmailJSSettings(_env_file=None)
    assert form_templates(unset)["newsletter"] == "template_agency"
    assert shared_templates(unset)["EMAILJS_NEWSLETTER_TEMPLATE_ID"] == (
        "EMAILJS_CONTACT_TEMPLATE_ID"
    )
    monkeypatch.setenv("EMAILJS_NEWSLETTER_TEMPLATE_ID", "template_newsletter")
    settings = EmailJSSettings(_env_file=None)
    assert form_templates(settings)["newsletter"] == "template_newsletter"
    assert "EMAILJS_NEWSLETTER_TEMPLATE_ID" not in shared_templates(settings)
    assert fingerprint(settings) != fingerprint(unset)
    monkeypatch.setenv("EMAILJS_NEWSLETTER_TEMPLATE_ID", "template_other")
    assert fingerprint(EmailJSSettings(_env_file=None)) != fingerprint(settings)

    accept_sends(emailjs)
    fields = {"name": "Ana García", "email": "ana@example.com", "topic": "branding"}
    lead_id = add_lead_id(store, LeadKind("newsletter"), fields, claim_token=None, lease=LEASE)
    delivery = make_delivery(store, make_client(emailjs))
    delivery.templates = {**delivery.templates, **form_templates(settings)}
    assert run(delivery.retry_due()) == 1
    assert store.get(lead_id).status == LeadStatus.SENT
    [payload] = sent_payloads(emailjs)
    assert payload["template_id"] == "template_newsletter"
    params = payload["template_params"]
    assert (params["from_name"], params["topic"]) == ("Ana García", "Branding y Diseño")
    assert (params["kind"], params["is_newsletter"], params["is_quote"]) == ("newsletter", "1", "")

    # The agency template (docs/leads.md) has its section: its heading and its fields,
    # labelled by its words, and EmailJS renders the e-mail it was sent.
    template = generator.agency_template()
    assert "{{#is_newsletter}}Alta en el boletín: {{from_email}}{{/is_newsletter}}" in (
        template.subject
    )
    assert "{{#topic}}Tema que te interesa: {{topic}}<br>{{/topic}}" in template.content
    rendered = pystache.render(template.subject + "\n" + template.content, params)
    assert "Alta en el boletín: ana@example.com" in html.unescape(rendered)
    assert "Tema que te interesa: Branding y Diseño" in html.unescape(rendered)
    assert "Solicitud de presupuesto" not in rendered and "Tu nombre: Ana García" in rendered
    assert "`is_newsletter`" in generator.docs_section()


def test_the_report_names_a_fourth_form_by_its_words(
    newsletter: FormDeclaration, store: LeadStore
) -> None:
    fields = {"name": "Ana García", "email": "ana@example.com", "topic": ""}
    add_lead_id(store, LeadKind("newsletter"), fields, claim_token=None, lease=LEASE)
    today = dt.datetime.now(dt.UTC).date()
    figures = month_figures(store.engine, today.replace(day=1))
    assert figures.leads_by_form["newsletter"] == 1
    assert form_of("newsletter") == "newsletter"  # A start of it is counted as its own.
    started = Figures(month=dt.date(2026, 11, 1), started=Counter(newsletter=2, quote=1))
    text = report_text.report_text(started)
    assert "Formularios empezados por formulario: Boletín 2, Presupuesto 1" in text
    assert "newsletter" not in text


def test_the_desk_shows_a_fourth_form_s_leads_with_its_words(
    newsletter: FormDeclaration, desk_site: DeskSite
) -> None:
    site, tools = wire(desk_site)
    fields = {"name": "Ana García", "email": "ana@example.com", "topic": "branding"}
    lead_id = add(tools.store, LeadKind("newsletter"), fields)
    browser = site.signed_in()

    inbox = browser.get(paths.DESK)
    assert inbox.status_code == 200
    assert '<option value="newsletter"' in inbox.text and "Boletín" in _text(inbox.text)
    only = browser.get(paths.DESK, params={"form": "newsletter"})
    assert "Ana García" in only.text

    page = _text(browser.get(paths.desk_lead(lead_id)).text)
    assert "Boletín" in page
    assert "Tu nombre Ana García" in page  # Each field by its label...
    assert "Tema que te interesa Branding y Diseño" in page  # ...a choice by its name.

    export = browser.get(EXPORT)
    header, *rows = csv.reader(io.StringIO(export.content.decode("utf-8-sig")), delimiter=";")
    [row] = [dict(zip(header, row, strict=True)) for row in rows]
    assert row["Formulario"] == "Boletín"
    assert row["Tema que te interesa"] == "Branding y Diseño"  # A new field: a new column.
    assert row["Nombre"] == "Ana García"  # A field other forms have: their column.


# --- An optional field of the booking form -----------------------------------------------

COMPANY_WORDS = {"es": "Empresa", "ca": "Empresa o organització"}


@pytest.fixture
def company(monkeypatch: pytest.MonkeyPatch) -> FormDeclaration:
    """The booking form with one more optional field, ``company``: its line in the
    declaration and its words in both forms.yaml; nothing else."""
    booking = BY_KIND[LeadKind.BOOKING]
    field = FormField("company", Control.TEXT, required=False, max_length=80, email=("company",))
    form = replace(booking, fields=(*booking.fields, field))
    for language in locale.LOCALES:
        copy = COPY.of(language)
        words = FieldCopy(label=COMPANY_WORDS[language], error="x")
        booking_words = copy.booking.model_copy(
            update={"fields": {**copy.booking.fields, "company": words}}
        )
        monkeypatch.setitem(
            COPY._by_locale, language, copy.model_copy(update={"booking": booking_words})
        )
    return declare(monkeypatch, form)


DAY = WorkingCalendar().next_working_day(dt.date.today() + dt.timedelta(days=60))


def _booked(store: LeadStore, language: str, **fields: str) -> int:
    """A booking lead holding its slot on ``DAY`` at 10:00, sent from a page in
    ``language``, as the intake stores one."""
    values = BOOKING_FIELDS | {"date": str(DAY), "time": "10:00", **fields}
    store = plugged(store.engine)
    return add_held_booking(store, values, language=language)  # fmt: skip


def test_an_optional_booking_field_shows_on_the_confirm_page_and_the_digest(
    company: FormDeclaration, store: LeadStore
) -> None:
    lead_id = _booked(store, "ca", company="Acme Fruites", message="Una web nova")
    key = slots.get(store.engine, lead_id).link_key
    token = LinkSigner(SECRET).token(LinkAction.CONFIRM, lead_id, key)
    app = booking_pages(lambda: desk_for(store, 14))
    page = _text(Client(app).get(f"{paths.booking_link('confirm')}?t={token}").text)
    assert "Empresa Acme Fruites" in page
    assert "Nombre Ana García Correo electrónico ana@example.com" in page  # The form's order.
    assert "Mensaje Una web nova" in page  # Its summary label, not the form's question.
    cancel = LinkSigner(SECRET).token(LinkAction.CANCEL, lead_id, key)
    manage = _text(Client(app).get(f"{paths.booking_link('cancel')}?t={cancel}").text)
    assert "Empresa o organització Acme Fruites" in manage  # The visitor's page: Catalan.
    assert "Missatge Una web nova" in manage

    slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)
    found = digest.gather(store.engine, DAY, WorkingCalendar())
    text = digest.message(found, None)
    assert "10:00 · Ana García" in text and "Empresa: Acme Fruites" in text
    assert "Mensaje: Una web nova" in text
    assert "Nombre:" not in text and "Fecha preferida" not in text  # Said in its heading.


def test_an_optional_booking_field_shows_on_the_desk_and_in_the_agency_template(
    company: FormDeclaration, desk_site: DeskSite
) -> None:
    site, tools = wire(desk_site)
    fields = BOOKING_FIELDS | {"company": "Acme Fruites"}
    lead_id = add(tools.store, LeadKind.BOOKING, fields)
    page = _text(site.signed_in().get(paths.desk_lead(lead_id)).text)
    assert "Empresa Acme Fruites" in page
    assert "{{#company}}Empresa: {{company}}<br>{{/company}}" in generator.agency_content()
    assert kind_params("booking")["is_booking"] == "1"


# --- The walk through, for real ----------------------------------------------------------

# What a newcomer writes for a fourth form (docs/forms.md, "A new form"), file by file: the
# only files the copy changes. The page: a line placing the form on Home.
WALK = {
    "agency_site/forms/declarations.py": (
        "FORMS: tuple[FormDeclaration, ...] = (HERO, BOOKING, QUOTE)",
        """NEWSLETTER = FormDeclaration(name="newsletter", page=paths.HOME, fields=(NAME, EMAIL))

FORMS: tuple[FormDeclaration, ...] = (HERO, BOOKING, QUOTE, NEWSLETTER)""",
    ),
    "agency_site/pages/home.py": (
        'rx.el.div(hero_form(), class_name="mt-3 max-w-xl"),',
        'rx.el.div(hero_form(), class_name="mt-3 max-w-xl"),\n'
        '            rx.el.div(lead_form(FORM_STATES["newsletter"])),',
    ),
    "agency_site/content/es/forms.yaml": (
        "privacy_notice:\n",
        """newsletter:
  name: Boletín
  email_heading: 'Alta en el boletín: {{from_email}}'
  fields:
    name: {label: Tu nombre, error: Escribe tu nombre.}
    email: {label: Tu correo, error: Escribe un correo válido.}
  submit: Suscribirme
  success: ¡Suscrito!
privacy_notice:
""",
    ),
    "agency_site/content/ca/forms.yaml": (
        "privacy_notice:\n",
        """newsletter:
  name: Butlletí
  email_heading: 'Alta al butlletí: {{from_email}}'
  fields:
    name: {label: El teu nom, error: Escriu el teu nom.}
    email: {label: El teu correu, error: Escriu un correu vàlid.}
  submit: Subscriure’m
  success: Subscrit!
privacy_notice:
""",
    ),
}
PURPOSE_LINES = {
    "es": "  newsletter: enviarte el boletín.\n",
    "ca": "  newsletter: enviar-te el butlletí.\n",
}
# And a line of the privacy policy's list of the data, before its job applications'.
PRIVACY_LINES = {
    "es": ("- Candidaturas:", "- Boletín de la página de inicio: tu nombre y tu correo.\n"),
    "ca": ("- Candidatures:", "- Butlletí de la pàgina d’inici: el teu nom i el teu correu.\n"),
}
# What the copy's own interpreter reports of the new form, derived as the site derives it.
_PROBE = """
import json, os
os.environ["EMAILJS_NEWSLETTER_TEMPLATE_ID"] = "template_newsletter"
from agency_site.content.schema_tool import check
content = check()
from agency_site import emailjs_templates, site_api
from agency_site.content import home as home_words
from agency_site.forms.declarations import BY_KIND, FORM_NAMES
from agency_site.forms.kinds import LeadKind
from agency_site.forms.template_ids import form_templates, shared_templates
from agency_site.pages import home
from agency_site.report.text import form_name
from agency_site.settings import EmailJSSettings
from agency_site.state.form_states import FORM_STATES
state = FORM_STATES["newsletter"]
settings = EmailJSSettings(_env_file=None, contact_template_id="template_agency")
page = site_api.form_page(LeadKind.NEWSLETTER, {}, "/x", "https://s.es")
print(json.dumps({
    "content": content,
    "kind": [LeadKind.NEWSLETTER.name, LeadKind.NEWSLETTER.value],
    "state": [state.__name__, state.get_full_name()],
    "template": form_templates(settings)["newsletter"],
    "shared": sorted(shared_templates(settings)),
    "heading": emailjs_templates.heading("newsletter"),
    "names": [FORM_NAMES["newsletter"], form_name("newsletter")],
    "page": 'for="newsletter-email">Tu correo' in page,
    "privacy": BY_KIND["newsletter"].privacy.items[1][1],
    "placed": 'id:"newsletter-form"' in str(home.page(home_words.PAGE.of("es"))),
}))
"""


def test_the_walk_through_in_a_scratch_copy_touches_only_the_listed_files(tmp_path: Path):
    """A copy of the package with the fourth form written in the files docs/forms.md lists
    (and no other): the content loads, the kind, the state, the template id, the agency
    template's heading, the desk's and the report's name and the page without JavaScript
    all follow in a fresh interpreter."""
    copy = tmp_path / "site"
    shutil.copytree(ROOT / "agency_site", copy / "agency_site",
                    ignore=shutil.ignore_patterns("__pycache__", "node_modules"))  # fmt: skip
    shutil.copy(ROOT / "rxconfig.py", copy / "rxconfig.py")
    (copy / "assets").symlink_to(ROOT / "assets")  # The images the content names.
    for relative, (anchor, written) in WALK.items():
        path = copy / relative
        text = path.read_text(encoding="utf-8")
        assert text.count(anchor) == 1, relative
        path.write_text(text.replace(anchor, written), encoding="utf-8")
    for language, line in PURPOSE_LINES.items():
        path = copy / f"agency_site/content/{language}/forms.yaml"
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("privacy_purposes:\n", f"privacy_purposes:\n{line}"))
        privacy = copy / f"agency_site/content/{language}/legal/privacy.md"
        before, added = PRIVACY_LINES[language]
        text = privacy.read_text(encoding="utf-8")
        privacy.write_text(text.replace(before, added + before, 1), encoding="utf-8")
    home = copy / "agency_site/pages/home.py"
    home.write_text(
        home.read_text(encoding="utf-8").replace(
            "from agency_site.components.form_layouts import hero_form\n",
            "from agency_site.components.form_layouts import hero_form, lead_form\n"
            "from agency_site.state.form_states import FORM_STATES\n",
        ),
        encoding="utf-8",
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("EMAILJS_")}
    answer = subprocess.run(
        [sys.executable, "-c", _PROBE],
        cwd=copy,
        env={**environment, "PYTHONPATH": str(copy)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert answer.returncode == 0, answer.stderr[-3000:]
    found = json.loads(answer.stdout.strip().splitlines()[-1])
    assert found["kind"] == ["NEWSLETTER", "newsletter"]
    assert found["state"] == [
        "NewsletterFormState",
        "reflex___state____state.agency_site___state___form_states____newsletter_form_state",
    ]
    assert found["template"] == "template_newsletter" and found["shared"] == [
        "EMAILJS_BOOKING_TEMPLATE_ID",
        "EMAILJS_QUOTE_TEMPLATE_ID",
    ]
    assert found["heading"] == "Alta en el boletín: {{from_email}}"
    assert found["names"] == ["Boletín", "Boletín"], found
    assert (found["page"], found["placed"]) == (True, True)
    assert found["privacy"] == "enviarte el boletín."
    assert found["content"].startswith("Content OK")

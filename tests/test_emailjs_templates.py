"""The EmailJS templates of docs/leads.md and the parameters the site sends agree: each
template, rendered by a Mustache renderer (pystache; EmailJS's templates are Mustache) with
the very parameters of each kind of e-mail, shows every value of it; and the doc carries
the generator's templates (``agency_site/emailjs_templates.py``) as they are."""

import datetime as dt
import html
import re
from typing import Any

import pystache
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agency_site import emailjs_templates as generator
from agency_site import locale
from agency_site.bookings.links import LinkSigner
from agency_site.bookings.mails import visitor_mail
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.bookings.plugin import no_links
from agency_site.emailjs_templates import AUTOREPLY_ONLY, EmailTemplate
from agency_site.forms.declarations import FORMS, FormDeclaration
from agency_site.forms.email import NOTICE, agency_kinds, kind_params
from agency_site.forms.fields import Control
from agency_site.forms.kinds import LeadKind
from agency_site.leads.delivery import Delivery, RetryPolicy

AGENCY_INBOX = "agencia@example.com"
# Text a visitor may type (letters, digits, punctuation, spaces, HTML's special characters).
TYPED = st.text(
    alphabet=st.characters(categories=("L", "N", "P", "Zs"), include_characters="<>&\"'\n"),
    min_size=1,
    max_size=40,
).filter(str.strip)


def render(template: EmailTemplate, params: dict[str, str], *, to: bool = False) -> str:
    """What EmailJS makes of ``template`` with ``params``: its fields (but To Email unless
    ``to``) and its content, one after the other."""
    fields = [value for name, value in template.fields if to or name != "To Email"]
    return "\n".join(pystache.render(part, params) for part in (*fields, template.content))


def sample_fields(form: FormDeclaration, typed: dict[str, str]) -> dict[str, Any]:
    """A valid-looking submission of ``form``: ``typed`` text in its text fields, a date,
    a slot, and the first option of each choice (a pack of the chosen service)."""
    fields: dict[str, Any] = {}
    for field in form.fields:
        if field.control is Control.DATE:
            fields[field.name] = "2026-12-14"
        elif field.control is Control.SLOT:
            fields[field.name] = "10:00"
        elif field.control is Control.EMAIL:
            fields[field.name] = "ana@example.com"
        elif field.control is Control.CHOICE:
            options = field.choices()
            if field.depends_on:
                options = [o for o in options if o.group == fields[field.depends_on]]
            fields[field.name] = options[0].value
        else:
            fields[field.name] = typed.get(field.name, f"valor de {field.name}")
    return fields


def sent_params(form: FormDeclaration, fields: dict[str, Any]) -> dict[str, str]:
    """The parameters the delivery sends for a lead of ``form`` (with the bookings plugin's
    links for a booking), every empty one given a value so the check covers it too."""
    delivery = Delivery(None, None, {}, AGENCY_INBOX, "", RetryPolicy())  # type: ignore[arg-type]
    params = delivery.params(
        7,
        form.kind,
        fields,
        resend=False,
        autoreply=form.autoreply,
        source={"page": "/schedule", "utm_source": "boletin"},
        language="ca",
    )
    if form.kind is LeadKind.BOOKING:
        params |= no_links(None, 7) | {"slot_note": ""}  # type: ignore[arg-type]
    return {k: v or f"valor-{k}" if not k.startswith("is_") else v for k, v in params.items()}


def shows(rendered: str, params: dict[str, str], names) -> list[str]:
    """The variables of ``names`` whose value ``rendered`` does not show."""
    return [name for name in names if html.escape(params[name]) not in rendered]


def agency_names(params: dict[str, str]) -> list[str]:
    """The variables the agency must read: all but the Auto-Reply's, the recipient and the
    kind's flags."""
    skip = {*AUTOREPLY_ONLY, "to_email", "kind"}
    return [name for name in params if name not in skip and not name.startswith("is_")]


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.kind)
@settings(max_examples=25, deadline=None)
@given(name=TYPED, phone=TYPED, message=TYPED)
def test_the_agency_template_shows_every_field_of_each_kind(
    form: FormDeclaration, name: str, phone: str, message: str
) -> None:
    fields = sample_fields(form, {"name": name, "phone": phone, "message": message})
    params = sent_params(form, fields)
    rendered = render(generator.agency_template(), params)
    assert not shows(rendered, params, agency_names(params))
    # Only its own kind's section: no other kind's heading.
    for kind in agency_kinds():
        heading = generator.heading(kind).split(":")[0]
        assert (heading in rendered) is (kind == form.kind), kind


def test_an_optional_field_left_empty_leaves_no_line() -> None:
    [quote] = [form for form in FORMS if form.kind == LeadKind.QUOTE]
    fields = sample_fields(quote, {}) | {"phone": "", "pack": ""}
    delivery = Delivery(None, None, {}, AGENCY_INBOX, "", RetryPolicy())  # type: ignore[arg-type]
    params = delivery.params(7, quote.kind, fields, resend=False, autoreply=False, source=None,
                             language="es")  # fmt: skip
    rendered = render(generator.agency_template(), params)
    assert "Teléfono" not in rendered and "Pack" not in rendered
    assert "Servicio" in rendered


def test_the_agency_template_shows_the_bookings_notices() -> None:
    """A cancel or move by the visitor, the morning digest: ``bookings/runtime.py``."""
    params = {"to_email": AGENCY_INBOX, "message": "Ana canceló\nsu cita", "from_email": "a@b.es"}
    params |= kind_params(NOTICE)
    rendered = render(generator.agency_template(), params)
    assert not shows(rendered, params, ["message", "from_email"])
    assert "Aviso de la web" in rendered and "Informe de" not in rendered


def test_the_auto_reply_goes_to_the_visitor_with_their_confirmation() -> None:
    [booking] = [form for form in FORMS if form.autoreply]
    params = sent_params(booking, sample_fields(booking, {"name": "Ana García"}))
    rendered = render(generator.autoreply_template(), params, to=True)
    assert not shows(rendered, params, ["reply_to", "reply_subject", "reply_message"])
    assert "Ana García" in rendered


@pytest.mark.parametrize("state", [s for s in BookingStatus if s is not BookingStatus.PENDING])
@pytest.mark.parametrize("language", locale.LOCALES)
def test_the_visitor_template_shows_every_value_of_each_e_mail(
    state: BookingStatus, language: str
) -> None:
    booking = Booking(lead_id=7, date=dt.date(2026, 12, 14), time="10:00", state=state,
                      link_key="k" * 22)  # fmt: skip
    with locale.active(language):
        params = visitor_mail(
            booking,
            {"name": "Ana García", "email": "ana@example.com"},
            api_url="https://api.test",
            site_url="https://agencia.test",
            signer=LinkSigner("s" * 40),
        ).params
    rendered = render(generator.visitor_template(), params, to=True)
    assert not shows(rendered, params, [name for name, value in params.items() if value])


def test_every_kind_of_agency_e_mail_has_a_heading_and_every_flag_is_false_but_one() -> None:
    for kind in agency_kinds():
        assert generator.heading(kind)
        flags = {k: v for k, v in kind_params(kind).items() if k.startswith("is_")}
        assert [k for k, v in flags.items() if v] == [f"is_{kind}"]
    with pytest.raises(ValueError):
        kind_params("newsletter")


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.kind)
def test_each_form_s_heading_names_only_variables_its_e_mail_carries(form: FormDeclaration):
    """Its words' ``email_heading`` (forms.yaml) is EmailJS template text: a misspelt
    ``{{variable}}`` would head every e-mail of the form with a blank."""
    named = set(re.findall(r"{{\s*[#^/]?\s*([a-z_]+)\s*}}", generator.heading(form.kind)))
    assert named, form.kind
    assert named <= set(sent_params(form, sample_fields(form, {}))), form.kind


def test_the_doc_carries_the_generated_templates() -> None:
    doc = generator.DOC.read_text(encoding="utf-8")
    assert generator.docs_section() in doc, (
        "docs/leads.md's EmailJS templates differ from the generator's: run "
        "`python -m agency_site.emailjs_templates --write`."
    )
    assert generator.with_section(doc) == doc

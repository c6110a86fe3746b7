"""Each form declared once (agency_site/forms/): validation, the no-JavaScript page, the
export and the EmailJS parameters follow the declaration, and so does a field added to it."""

import datetime as dt
import os
import pickle
import re
from dataclasses import replace
from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.components.form_layouts import lead_form
from agency_site.content.form_words import COPY
from agency_site.forms import declarations
from agency_site.forms.__main__ import describe
from agency_site.forms.declarations import (
    BY_KIND,
    FORM_TOKEN_FIELD,
    FORMS,
    HONEYPOT_FIELD,
    LANGUAGE_FIELD,
    FormDeclaration,
    export_fields,
    pack_options,
    service_options,
    submission_fields,
)
from agency_site.forms.fields import Control, FormField
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result, Submission
from agency_site.forms.template_ids import fingerprint, form_templates
from agency_site.leads import rgpd_commands
from agency_site.leads.delivery import template_params
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import LeadStore
from agency_site.leads.validation import validate
from agency_site.rules import MESSAGE_MAX, NAME_MAX
from agency_site.settings import ROOT, EmailJSSettings
from agency_site.site_api import answer_page, form_page
from agency_site.state import form_states
from agency_site.state.form_states import FORM_STATES, BookingFormState
from tests.emailjs_fake import accept_sends, make_client
from tests.lead_store import AGENCY_INBOX, LEASE, add_lead_id, make_delivery
from tests.run_async import run

TODAY = dt.date(2026, 3, 9)  # A Monday.
QUOTE_VALID = {
    "name": "Ana García",
    "email": "ana@example.com",
    "phone": "",
    "service": "branding",
    "pack": "esencial",
    "message": "Quiero renovar mi marca.",
}


def quote(**changes: str) -> dict[str, str]:
    """The quote form's errors for a valid submission with ``changes``."""
    return validate(LeadKind.QUOTE, {**QUOTE_VALID, **changes}, TODAY).errors


class _Controls(HTMLParser):
    """The names of a page's form controls, and the selected options' values."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self.selected: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        if tag in ("input", "select", "textarea") and attributes.get("name"):
            self.names.append(attributes["name"])
        if tag == "option" and "selected" in attributes:
            self.selected.append(attributes["value"])


def controls(html: str) -> _Controls:
    parser = _Controls()
    parser.feed(html)
    return parser


def test_every_kind_has_one_declaration_and_one_state() -> None:
    assert set(BY_KIND) == set(LeadKind) == set(FORM_STATES)
    assert all(FORM_STATES[form.kind].form is form for form in FORMS)
    assert (
        len({form.form_id for form in FORMS}) == len({form.prefix for form in FORMS}) == len(FORMS)
    )


def test_every_field_has_its_words() -> None:
    for form in FORMS:
        for field in form.fields:
            words = form.field_words(field)
            assert words.label and words.error, (form.kind, field.name)
        assert form.words.submit and form.words.success
        purpose = COPY.privacy_purposes[form.privacy_purpose]
        assert any(purpose in text for _, text in form.privacy.items)


def test_a_valid_quote_is_cleaned() -> None:
    result = validate(LeadKind.QUOTE, {**QUOTE_VALID, "name": "  Ana García "}, TODAY)
    assert result.fields == QUOTE_VALID
    assert quote(pack="") == {}  # The pack is optional...
    assert quote(phone="+34 600 12 34 56") == {}  # ...and so is the phone.


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "A", COPY.quote.fields["name"].error),
        ("name", "x" * (NAME_MAX + 1), COPY.quote.fields["name"].error),
        ("email", "ana@", COPY.quote.fields["email"].error),
        ("phone", "12345", COPY.quote.fields["phone"].error),  # Optional, but checked when given.
        ("phone", "600 12 34 5x", COPY.quote.fields["phone"].error),
        ("service", "", COPY.quote.fields["service"].error),
        ("service", "cooking", COPY.quote.fields["service"].error),
        ("pack", "no-such-pack", COPY.quote.fields["pack"].error),
        (
            "pack",
            "pack-premium",
            COPY.quote.fields["pack"].error,
        ),  # Product photography's, not branding's.
        ("message", "", COPY.quote.fields["message"].error),  # Required on this form.
        ("message", "x" * (MESSAGE_MAX + 1), COPY.quote.fields["message"].error),
        ("message", "hola\x07", COPY.notices.control_chars),
        ("name", "Ana\x00", COPY.notices.control_chars),
    ],
)
def test_each_rule_of_the_quote_form(field: str, value: str, message: str) -> None:
    assert quote(**{field: value}) == {field: message}


def test_a_pack_of_the_chosen_service_is_accepted() -> None:
    for option in pack_options():
        assert quote(service=option.group, pack=option.value) == {}
    assert {option.group for option in pack_options()} < {o.value for o in service_options()}


def test_a_raw_value_far_too_long_is_wrong_without_reading_it() -> None:
    too_long = "\x07" * (2 * MESSAGE_MAX + 1)  # Control characters: read, they'd say so.
    assert quote(message=too_long) == {"message": COPY.quote.fields["message"].error}


def test_missing_fields_each_say_so_and_the_unknown_are_ignored() -> None:
    result = validate(LeadKind.QUOTE, {"pack": "", "is_admin": "1"}, TODAY)
    assert list(result.errors) == ["name", "email", "service", "message"]


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.kind)
def test_the_no_javascript_page_shows_every_declared_field(form: FormDeclaration) -> None:
    errors = {field.name: "mal" for field in form.fields}
    html = answer_page(form.kind, Submission(Result.INVALID, errors), {}, "/x", "https://s.es")
    assert controls(html).names == [*form.names, HONEYPOT_FIELD, LANGUAGE_FIELD, FORM_TOKEN_FIELD]
    for field in form.fields:
        assert f'for="{form.field_id(field.name)}">{form.field_words(field).label}' in html
    assert html.count('aria-invalid="true"') == len(form.fields)


def test_the_no_javascript_quote_page_chooses_the_query_s_service_and_pack() -> None:
    def chosen(**query: str) -> list[str]:
        return controls(form_page(LeadKind.QUOTE, query, "/x", "https://s.es")).selected

    assert chosen(service="branding", pack="esencial") == ["branding", "esencial"]
    assert chosen(service="branding", pack="pack-premium") == ["branding"]  # Not its pack.
    assert chosen(service="cooking", pack="esencial") == []  # Unknown: ignored.
    assert chosen(name="Ana", email="ana@example.com") == []  # No typed text from a URL.


def test_the_export_has_a_column_per_exported_field() -> None:
    assert export_fields() == rgpd_commands.EXPORT_FIELDS
    for form in FORMS:
        assert {f.name for f in form.fields if f.export} <= set(rgpd_commands.EXPORT_COLUMNS)
    assert rgpd_commands.EXPORT_FIELDS[:6] == ("name", "email", "phone", "date", "time", "message")


def test_the_quote_e_mail_carries_the_declared_variables() -> None:
    params = template_params(LeadKind.QUOTE, QUOTE_VALID, AGENCY_INBOX)
    assert params == {
        "to_email": AGENCY_INBOX,
        "from_name": "Ana García",
        "from_email": "ana@example.com",
        "phone": "",
        "service": "Branding y Diseño",  # The names as shown, not the ids.
        "pack": "Esencial",
        "message": "Quiero renovar mi marca.",
    }


def test_the_load_test_gets_a_valid_submission_s_field_names() -> None:
    assert submission_fields(LeadKind.BOOKING) == (
        "name",
        "email",
        "phone",
        "date",
        "time",
        "message",
        HONEYPOT_FIELD,
    )


def test_a_quote_lead_is_stored_and_delivered_with_its_own_template(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    lead_id = add_lead_id(store, LeadKind.QUOTE, QUOTE_VALID, claim_token=None, lease=LEASE)
    assert run(make_delivery(store, make_client(emailjs)).retry_due()) == 1
    assert store.get(lead_id).status == LeadStatus.SENT
    (request, _response) = emailjs.log[-1]
    assert request.get_json()["template_id"] == "template_quote"


def test_without_its_template_id_a_quote_lead_is_held(store: LeadStore, emailjs: HTTPServer):
    accept_sends(emailjs)
    lead_id = add_lead_id(store, LeadKind.QUOTE, QUOTE_VALID, claim_token=None, lease=LEASE)
    delivery = make_delivery(store, make_client(emailjs))
    delivery.templates = {**delivery.templates, LeadKind.QUOTE: ""}
    run(delivery.retry_due())
    lead = store.get(lead_id)
    assert lead.status == LeadStatus.HELD
    assert lead.last_error == "EMAILJS_QUOTE_TEMPLATE_ID is not set"
    assert not emailjs.log  # Nothing was sent without a template.


def test_a_field_added_to_a_declaration_shows_up_everywhere(monkeypatch) -> None:
    """A throwaway booking form with one more field: nothing else is written for it."""
    company = FormField(
        "company", Control.TEXT, required=False, max_length=80, copy="name", email=("company",)
    )
    form = replace(declarations.BOOKING, fields=(*declarations.BOOKING.fields, company))
    monkeypatch.setitem(BY_KIND, LeadKind.BOOKING, form)
    monkeypatch.setattr(BookingFormState, "form", form)

    assert BookingFormState.form.names[-1] == "company"  # The state clears it after a send.
    markup = str(lead_form(BookingFormState))
    assert 'id:"booking-company"' in markup and 'name:"company"' in markup
    html = answer_page(LeadKind.BOOKING, Submission(Result.INVALID), {}, "/x", "https://s.es")
    assert "company" in controls(html).names
    valid = {
        "name": "Ana García",
        "email": "ana@example.com",
        "phone": "600123456",
        "date": "2026-03-10",
        "time": "10:00",
    }
    assert (
        validate(LeadKind.BOOKING, {**valid, "company": "Acme"}, TODAY).fields["company"] == "Acme"
    )
    assert validate(LeadKind.BOOKING, {**valid, "company": "x" * 81}, TODAY).errors == {
        "company": COPY.booking.fields["name"].error
    }
    assert "company" in export_fields((form,))
    assert (
        template_params(LeadKind.BOOKING, {**valid, "company": "Acme"}, AGENCY_INBOX)["company"]
        == "Acme"
    )


def test_the_template_variables_are_listed_from_the_declarations() -> None:
    listing = describe()
    assert "EMAILJS_QUOTE_TEMPLATE_ID" in listing
    assert "to_email, from_name, from_email, phone, service, pack, message" in listing


@given(
    control=st.sampled_from([c for c in Control if c.typed]),
    max_length=st.integers(max_value=0),
)
def test_a_typed_field_without_a_maximum_length_is_refused_when_declared(
    control: Control, max_length: int
) -> None:
    with pytest.raises(ValueError, match="max_length"):
        FormField("company", control, max_length=max_length)


@given(
    control=st.sampled_from([c for c in Control if c.typed]),
    max_length=st.integers(min_value=1, max_value=10_000),
)
def test_a_typed_field_with_a_maximum_length_is_declared(control: Control, max_length: int):
    assert FormField("company", control, max_length=max_length).constraints["maxlength"] == (
        max_length
    )


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.kind)
def test_changing_any_form_s_template_id_changes_the_fingerprint(form: FormDeclaration):
    before = EmailJSSettings(_env_file=None, **{form.template_setting: "template_a"})
    after = EmailJSSettings(_env_file=None, **{form.template_setting: "template_b"})
    assert fingerprint(before) != fingerprint(after)
    assert form_templates(after)[form.kind] == "template_b"


def test_the_fingerprint_of_today_s_settings_is_the_one_held_leads_carry() -> None:
    """The digest each held lead stored (``held_config``) before the template ids were read
    by their pattern: the same settings give the same one, so no lead is released by the
    upgrade alone."""
    settings = EmailJSSettings(_env_file=None, service_id="service_x", public_key="key_x",
                               private_key="secret", contact_template_id="template_agency",
                               quote_template_id="template_quote")  # fmt: skip
    assert fingerprint(settings) == "8fdf0dc341bbf196"
    assert fingerprint(EmailJSSettings(_env_file=None)) == "affb3401a4a9a14b"


# --- Derived from the declarations: the kinds, the states, the template ids --------------


def test_the_kinds_are_the_declarations_with_their_stored_values() -> None:
    assert [(kind.name, kind.value) for kind in LeadKind] == [
        (form.name.upper(), form.kind) for form in FORMS
    ]
    assert {kind.name: kind.value for kind in LeadKind} == {
        "HERO": "contact",  # What the leads table holds: never changed.
        "BOOKING": "booking",
        "QUOTE": "quote",
    }
    assert pickle.loads(pickle.dumps(LeadKind.BOOKING)) is LeadKind.BOOKING


def test_each_form_s_state_keeps_the_name_the_browser_and_the_load_test_use() -> None:
    """Made from the declarations, the states are named as the classes written by hand
    were (Reflex names a state after its module and class: the compiled pages and
    ``scripts/loadtest/protocol.py`` send events to those names)."""
    prefix = "reflex___state____state.agency_site___state___form_states____"
    assert {kind: state.get_full_name() for kind, state in FORM_STATES.items()} == {
        "contact": prefix + "hero_form_state",
        "booking": prefix + "booking_form_state",
        "quote": prefix + "quote_form_state",
    }
    for state in FORM_STATES.values():
        assert getattr(form_states, state.__name__) is state  # Where pickling finds it.
        assert pickle.loads(pickle.dumps(state)) is state
        assert "submit" in state.event_handlers
        assert "<locals>" not in state.__qualname__
    assert form_states.HeroFormState.form is declarations.HERO
    assert form_states.state_name(replace(declarations.HERO, name="news_letter")) == (
        "NewsLetterFormState"
    )


KINDS = st.from_regex(r"[a-z][a-z0-9_]{0,19}", fullmatch=True).filter(
    lambda kind: kind not in ("notice", "visitor")
)


@given(kind=KINDS, template=st.from_regex(r"template_[a-z0-9]{1,12}", fullmatch=True))
def test_any_kind_s_template_id_is_read_by_the_one_pattern(kind: str, template: str) -> None:
    """``EMAILJS_<KIND>_TEMPLATE_ID``, for any kind a form may declare: from the
    environment, or from the caller (a test) by its setting's name."""
    form = FormDeclaration(
        name="throwaway", kind=kind, page=paths.HOME, fields=(declarations.EMAIL,)
    )
    variable = EmailJSSettings.variable(form.template_setting)
    assert variable == f"EMAILJS_{kind.upper()}_TEMPLATE_ID"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(variable, template)
        assert EmailJSSettings(_env_file=None).template_id(form.template_setting) == template
    given_ = EmailJSSettings(_env_file=None, **{form.template_setting: template})
    assert given_.own_template_id(form.template_setting) == template


def test_a_form_s_template_id_is_read_from_the_env_file_and_the_environment_wins(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [name for name in os.environ if name.startswith("EMAILJS_")]:
        monkeypatch.delenv(name)
    env_file = tmp_path / ".env"
    env_file.write_text("EMAILJS_QUOTE_TEMPLATE_ID=template_file\nEMAILJS_BOOKING_TEMPLATE_ID=b\n")
    assert EmailJSSettings(_env_file=env_file).template_id("quote_template_id") == "template_file"
    monkeypatch.setenv("EMAILJS_QUOTE_TEMPLATE_ID", "template_env")
    settings = EmailJSSettings(_env_file=env_file)
    assert settings.template_id("quote_template_id") == "template_env"
    assert settings.template_id("booking_template_id") == "b"


@given(
    kind=st.one_of(
        st.from_regex(r"[a-z][a-z0-9_]{20,30}", fullmatch=True),  # Longer than the column.
        st.from_regex(r"[A-Z0-9_ -][a-z0-9]{0,5}", fullmatch=True),  # Not a lower-case name.
        st.sampled_from(["notice", "visitor", ""]),
    )
)
def test_a_kind_the_table_or_the_templates_cannot_take_is_refused_when_declared(kind: str):
    with pytest.raises(ValueError, match=r"kind|visitor"):
        FormDeclaration(name="throwaway", kind=kind or "_", page=paths.HOME,
                        fields=(declarations.EMAIL,))  # fmt: skip


# The documented pattern, as .env.example and docs/configuration.md write it.
PATTERN = "EMAILJS_<KIND>_TEMPLATE_ID"
NAMED = re.compile(r"EMAILJS_([A-Z][A-Z0-9_]*)_TEMPLATE_ID")


@pytest.mark.parametrize("doc", [".env.example", "docs/configuration.md"])
def test_the_docs_describe_the_template_pattern_once_and_name_only_declared_forms(doc: str):
    """The pattern is documented once in each, and true for any declared form (a new form
    needs no line in either); each variable they name is the agency's, the visitor's or a
    declared form's, so a form renamed or dropped leaves no stale name behind."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert text.count(PATTERN) == 1, doc
    named = set(NAMED.findall(text))
    declared = {form.kind.upper() for form in FORMS}
    assert named <= declared | {"VISITOR"}, named - declared
    assert {"CONTACT", "VISITOR"} <= named
    for form in FORMS:
        expected = PATTERN.replace("<KIND>", form.kind.upper())
        assert EmailJSSettings.variable(form.template_setting) == expected

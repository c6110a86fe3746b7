"""Where a lead came from: what the browser's hidden field may say, and what is kept."""

import json

from hypothesis import given
from hypothesis import strategies as st

from agency_site.forms.declarations import SOURCE_FIELD as FIELD
from agency_site.forms.kinds import LeadKind
from agency_site.leads.source import describe, parse
from agency_site.leads.store import LeadStore
from tests.emailjs_fake import accept_sends, sent_payloads

VISIT = {
    "page": "/schedule",
    "landing": "/services/branding?utm_source=x",
    "referrer": "WWW.Google.es",
    "utm_source": "newsletter",
    "utm_medium": "email",
    "utm_campaign": "otoño",
}


def test_the_known_facts_are_kept_clean() -> None:
    assert parse(json.dumps(VISIT)) == {
        "page": "/schedule",
        "landing": "/services/branding",
        "referrer": "www.google.es",
        "utm_source": "newsletter",
        "utm_medium": "email",
        "utm_campaign": "otoño",
    }
    assert describe(parse(json.dumps(VISIT))) == (
        "enviado desde /schedule · entrada en /services/branding · llegó desde www.google.es"
        " · utm_source=newsletter · utm_medium=email · utm_campaign=otoño"
    )


def test_anything_else_is_dropped_never_an_error() -> None:
    assert parse(json.dumps({"page": "https://evil.example/x", "referrer": "a b"})) == {}
    assert parse(json.dumps({"utm_source": "a\x00b", "cookie": "x", "page": 3})) == {}
    assert parse("[1, 2]") == parse("{") == parse("") == parse(None) == {}
    assert parse(json.dumps({"utm_term": "x" * 5000})) == {}  # Longer than read at all.
    assert len(parse(json.dumps({"utm_term": "x" * 1000}))["utm_term"]) == 200
    assert describe(None) == describe({}) == "desconocido"


@given(st.text(max_size=300) | st.binary(max_size=50).map(repr))
def test_parse_never_raises(raw: str) -> None:
    assert isinstance(parse(raw), dict)


def test_the_source_is_stored_and_told_to_the_agency(store: LeadStore, emailjs) -> None:
    from tests.leads.test_intake import make_intake, submit

    accept_sends(emailjs)
    form = {"email": "bea@example.com", FIELD: json.dumps(VISIT)}
    submit(make_intake(store, emailjs), LeadKind.HERO, form)
    [lead] = store.all()
    assert lead.source == parse(json.dumps(VISIT))
    [payload] = sent_payloads(emailjs)
    assert payload["template_params"]["source"] == describe(lead.source)

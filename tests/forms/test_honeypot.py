"""The honeypot is out of autofill's way: a real visitor's browser or password manager,
filling the visible fields from a saved address, never fills it (a filled honeypot
quarantines the lead). Chromium guesses a field's type from its name, id and label
against patterns of each type, in many languages, and ignores ``autocomplete="off"`` for
addresses; so the honeypot matches none of the words those patterns are made of (here in
the site's languages and English), is never reached by Tab and is hidden from screen
readers, on the page and on the no-JavaScript page alike. The browser test of Chromium's
autofill itself is an e2e test."""

import re

import pytest

from agency_site import locale
from agency_site.components.form_layouts import _honeypot
from agency_site.content.form_words import COPY
from agency_site.forms.declarations import FORMS, HONEYPOT_ATTRIBUTES, HONEYPOT_FIELD
from agency_site.site_api import form_page

# What a field's name, id or label says when it wants a saved value: a person's name, an
# e-mail, a phone, an address and its parts, a company, a web address, an account, a card.
AUTOFILL_WORDS = re.compile(
    r"name|nombre|\bnom\b|apellido|cognom|surname|first|last|full"
    r"|mail|correo|courriel|phone|tel|m[oó]vil|mobile|fax"
    r"|addr|direcci|adre[cç]a|street|calle|carrer|line|apt|suite|city|ciudad|ciutat|town"
    r"|zip|postal|post.?code|c[oó]digo|county|state|province|provincia|region|country|pa[ií]s"
    r"|company|empresa|business|organi[sz]ation"
    r"|url|web|site|homepage|home.?page|link"
    r"|user|login|account|cuenta|compte|password|contrase"
    r"|card|tarjeta|targeta|cvc|cvv|expir|birth|nacimiento|naixement",
    re.IGNORECASE,
)


def test_the_honeypot_s_name_matches_no_autofill_pattern() -> None:
    assert not AUTOFILL_WORDS.search(HONEYPOT_FIELD)
    for form in FORMS:
        assert not AUTOFILL_WORDS.search(form.field_id(HONEYPOT_FIELD))


@pytest.mark.parametrize("language", locale.LOCALES)
def test_the_honeypot_s_label_matches_no_autofill_pattern(language: str) -> None:
    with locale.active(language):
        assert not AUTOFILL_WORDS.search(COPY.honeypot_label)


def test_the_autofill_patterns_do_catch_what_autofill_fills() -> None:
    """The test above would fail on the honeypot's old name and on the visible fields."""
    for name in ("website", "email", "name", "phone", "Tu correo", "Teléfono", "Empresa"):
        assert AUTOFILL_WORDS.search(name), name


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.kind)
def test_the_honeypot_is_out_of_reach_on_the_page_and_without_javascript(form) -> None:
    page = str(_honeypot(form))
    assert '"aria-hidden":"true"' in page and "tabIndex:-1" in page
    assert 'autoComplete:"off"' in page
    plain = form_page(form.kind, {}, "/x", "https://s.es")
    assert '<div class="hp" aria-hidden="true">' in plain and 'tabindex="-1"' in plain
    for name, value in HONEYPOT_ATTRIBUTES:
        assert f'"{name}":"{value}"' in page
        assert f'{name}="{value}"' in plain


def test_both_paths_draw_the_honeypot_from_its_one_markup(monkeypatch) -> None:
    """``forms/field_markup.honeypot_markup`` is the honeypot's one description: what it
    says shows on the page's form and on the page without JavaScript alike."""
    from dataclasses import replace

    from agency_site import site_api
    from agency_site.components import form_layouts
    from agency_site.forms import field_markup

    def marked(form):
        markup = field_markup.honeypot_markup(form)
        return replace(markup, markers=markup.markers | {"data-probe": "once"})

    monkeypatch.setattr(site_api, "honeypot_markup", marked)
    monkeypatch.setattr(form_layouts, "honeypot_markup", marked)
    form = FORMS[0]
    assert '"data-probe":"once"' in str(_honeypot(form))
    assert 'data-probe="once"' in form_page(form.kind, {}, "/x", "https://s.es")

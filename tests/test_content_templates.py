"""Texts filled in when used (``content/template.py``): each declares its ``{names}``
beside its field; a name it may not use stops the file's load, naming file, field and
name; ``render`` wants a value for every declared name."""

import shutil

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from agency_site.content import loader
from agency_site.content import values as site_wide
from agency_site.content.files import load
from agency_site.content.loader import ContentError
from agency_site.content.owner_alerts import OwnerAlerts
from agency_site.content.template import (
    Template,
    TemplateText,
    placeholders,
    render,
    templates,
)
from tests.content_walker import content_modules, module_models

ALERTS_FILE = "owner-alerts.yaml"
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True)


def every_template() -> list[tuple[str, str, TemplateText]]:
    """(where, field, text) of every ``Template`` field of every loaded content object."""
    found = []
    for where, model in module_models(content_modules()):
        for field in templates(type(model)):
            found.append((where, field, getattr(model, field)))
    return found


def alerts_data(locale: str = "es") -> dict:
    """The owner alerts file as ``loader.load`` validates it: site-wide names filled."""
    text = (loader.locale_dir(locale) / ALERTS_FILE).read_text(encoding="utf-8")
    return loader.substitute(yaml.safe_load(text), site_wide.site_values(), ALERTS_FILE)


ALERTS_DATA = alerts_data()


def test_the_owner_alerts_and_the_emails_are_templates():
    fields = {where.rsplit(".", 1)[0] + "." + field for where, field, _ in every_template()}
    assert set(templates(OwnerAlerts)) == set(OwnerAlerts.model_fields)
    assert {
        "agency_site.content.form_words.resend_note",
        "agency_site.content.form_words.format",
        "agency_site.content.bookings.slot_lost",
        "agency_site.content.bookings.message",
    } <= fields


@pytest.mark.parametrize(
    ("where", "field", "text"),
    every_template(),
    ids=lambda value: value if isinstance(value, str) and len(value) < 60 else "",
)
def test_every_text_renders_with_its_declared_names(where, field, text):
    values = {name: f"<{name}>" for name in text.names}
    filled = render(text, **values)
    assert "{" not in filled and "}" not in filled, (where, field)
    assert set(placeholders(text)) <= text.names


@settings(deadline=None)  # Validating a whole file: slow on a busy machine.
@given(name=NAMES)
def test_an_unknown_placeholder_stops_the_load_naming_field_and_name(name):
    allowed = templates(OwnerAlerts)["held_many"]
    data = dict(ALERTS_DATA)
    data["held_many"] += f" {{{name}}}"
    where = "agency_site/content/es/owner-alerts.yaml"
    if name in allowed:
        assert loader.validate(OwnerAlerts, data, where).held_many.endswith(f"{{{name}}}")
        return
    with pytest.raises(ContentError) as error:
        loader.validate(OwnerAlerts, data, where)
    message = str(error.value)
    assert where in message
    assert "held_many" in message
    assert f"unknown placeholder {{{name}}}" in message


@pytest.mark.parametrize(
    "bad", ["{count:>3}", "{count!r}", "{0}", "{}", "{Count}", "{count", "count}", "{{count}}"]
)
def test_a_brace_that_is_not_a_plain_name_is_refused(bad):
    with pytest.raises(ValueError):
        placeholders(f"Hay {bad} solicitudes")


def test_a_misspelt_placeholder_in_the_file_stops_its_load(tmp_path, monkeypatch):
    """Read from disk as the site reads it: the message names the file, field and name."""
    content = tmp_path / "agency_site" / "content"
    shutil.copytree(loader.CONTENT_DIR / "es", content / "es")
    path = content / "es" / ALERTS_FILE
    path.write_text(
        path.read_text(encoding="utf-8").replace("{minutes} min", "{minuts} min", 1),
        encoding="utf-8",
    )
    monkeypatch.setattr(loader, "CONTENT_DIR", content)
    monkeypatch.setattr(loader, "SCHEMA_DIR", content / "schemas")
    with pytest.raises(ContentError) as error:
        load(ALERTS_FILE, OwnerAlerts, locale="es")
    message = str(error.value)
    assert "agency_site/content/es/owner-alerts.yaml" in message
    assert "held_one" in message
    assert "unknown placeholder {minuts}" in message


def test_render_wants_every_declared_name_even_one_the_text_does_not_use():
    """So a call that forgets a value fails in the tests, not when a text starts using it."""

    class Words(loader.BaseModel):
        note: Template("count", "minutes")

    text = Words(note="Hay {count}").note
    assert render(text, count=2, minutes=5) == "Hay 2"
    with pytest.raises(ValueError, match="minutes"):
        render(text, count=2)


def test_a_template_name_is_what_fill_reads():
    with pytest.raises(ValueError):
        Template("Count")

"""The Catalan site's copy: every Spanish content file has its Catalan twin with the same
structure and facts, no Catalan text reads as Spanish, and the checker that says so fails
on each kind of mistake a translator can make."""

import shutil
from pathlib import Path

import pytest

from agency_site.content import loader, twins
from agency_site.content.form_words import COPY
from agency_site.content.pages import PAGES
from agency_site.locale import LOCALES


def test_every_spanish_file_has_its_catalan_twin_with_the_same_structure() -> None:
    assert twins.files("ca") == twins.files("es")
    assert twins.problems() == []


def test_the_catalan_pages_are_the_spanish_ones_under_ca() -> None:
    assert sorted(PAGES.of("ca")) == sorted(
        "/ca" if path == "/" else f"/ca{path}" for path in PAGES.of("es")
    )


def test_catalan_is_written_with_its_own_typography() -> None:
    """Typographic apostrophes (l’empresa) and the middle dot of l·l, never the ASCII ones."""
    for name in twins.files("ca"):
        text = (loader.locale_dir("ca") / name).read_text(encoding="utf-8")
        prose = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))
        for bad in ("l.l", "l•l", "d'a", "l'a", "l'e", "d'e", "s'h", "t'h", "l'o", "d'o"):
            assert bad not in prose.replace("''", ""), (name, bad)


def _twin_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> Path:
    """A content folder whose Catalan ``name`` can be broken without touching the real one."""
    root = tmp_path / "content"
    for language in LOCALES:
        shutil.copytree(loader.locale_dir(language), root / language)
    monkeypatch.setattr(twins, "locale_dir", lambda language: root / language)
    return root / "ca" / name


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("submit: Reservar consulta", "submit: Agendar consulta", "not translated"),
        ("submit: Reservar consulta", "submit: Reservar con nosotros", "reads as Spanish"),
        ("href: '{agency.tel}'", "href: 'tel:+34'", "must be the same as in Spanish"),
        ("{forms.message_max}", "500", "placeholders"),
        ("      label: Nom\n", "      label: Nom\n      hint: x\n", "keys"),
    ],
)
def test_the_twin_checker_names_each_kind_of_mistake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str, problem: str
) -> None:
    broken = _twin_copy(tmp_path, monkeypatch, "forms.yaml")
    text = broken.read_text(encoding="utf-8")
    assert old in text
    broken.write_text(text.replace(old, new, 1), encoding="utf-8")
    found = twins.compare_file("forms.yaml", "ca")
    assert any(problem in line for line in found), found


def test_a_missing_twin_and_an_untranslated_text_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    twin = _twin_copy(tmp_path, monkeypatch, "pages/not-found.yaml")
    spanish = (twin.parents[2] / "es" / "pages/not-found.yaml").read_text(encoding="utf-8")
    twin.write_text(spanish, encoding="utf-8")
    assert any(
        "not translated" in line for line in twins.compare_file("pages/not-found.yaml", "ca")
    )
    twin.unlink()
    assert any("missing" in line for line in twins.problems())


def test_the_form_messages_differ_between_the_languages() -> None:
    spanish, catalan = COPY.of("es"), COPY.of("ca")
    assert spanish.booking.submit != catalan.booking.submit
    assert spanish.booking.fields["email"].error != catalan.booking.fields["email"].error

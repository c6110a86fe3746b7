"""The content files' loader: errors name the file and the field, site-wide values are filled
in by name, Markdown cannot carry HTML, and every file ships in backend.zip."""

import zipfile
from pathlib import Path

import pytest
from reflex.utils.build import zip_app

from agency_site.content import files, loader, schema_tool, values
from agency_site.content.base import Content, Hero
from agency_site.content.legal import BLOCKS, MARKDOWN_NODES, LegalPage
from agency_site.content.loader import ContentError
from agency_site.content.site import SITE
from agency_site.settings import ROOT, get_settings


class Card(Content):
    """A small model to load test files into."""

    hero: Hero
    email: str = ""


@pytest.fixture
def content_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``content/`` whose ``es/`` folder the loader reads."""
    for module in (loader, schema_tool):
        monkeypatch.setattr(module, "CONTENT_DIR", tmp_path)
        monkeypatch.setattr(module, "SCHEMA_DIR", tmp_path / "schemas")
    monkeypatch.setattr(loader, "SCHEMAS", {})  # Test models stay out of the real registry.
    (tmp_path / "es" / "pages").mkdir(parents=True)
    return tmp_path


def _write(content_dir: Path, name: str, body: str, schema: str = "card") -> Path:
    path = content_dir / "es" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    depth = len(path.relative_to(content_dir).parts) - 1
    line = f"# yaml-language-server: $schema={'../' * depth}schemas/{schema}.json\n"
    path.write_text((line if path.suffix == ".yaml" else "") + body, encoding="utf-8")
    return path


def test_site_values_come_from_the_settings_and_paths() -> None:
    table = values.site_values()
    assert table["agency.email"] == SITE.email
    assert table["agency.address"] == SITE.address.one_line
    assert table["agency.nif"] == SITE.legal.nif
    assert table["leads.retention_months"] == str(get_settings().leads.retention_months)
    assert table["backups.kept_days"] == str(get_settings().deploy.backup_keep)
    assert table["paths.cookies_policy"] == "/cookies-policy"


def test_a_yaml_file_is_validated_and_filled_in(content_dir: Path) -> None:
    _write(
        content_dir,
        "pages/card.yaml",
        "hero:\n  heading: Hola\n  intro: Escríbenos a {agency.email}.\nemail: '{agency.mailto}'\n",
    )
    card = files.load("pages/card.yaml", Card)
    assert card.hero.intro == f"Escríbenos a {SITE.email}."
    assert card.email == SITE.mailto


def test_an_unknown_name_is_an_error_naming_file_and_field(content_dir: Path) -> None:
    _write(content_dir, "pages/card.yaml", "hero:\n  heading: Hola\n  intro: '{agency.emial}'\n")
    with pytest.raises(ContentError, match=r"es/pages/card\.yaml: hero\.intro: unknown name"):
        files.load("pages/card.yaml", Card)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "hero:\n  heading: Hola\n",
            r"card\.yaml: not a valid Card:\n  hero\.intro: Field required",
        ),
        (
            "hero:\n  heading: Hola\n  intro: x\ncolor: rojo\n",
            r"card\.yaml: not a valid Card:\n  color: Extra inputs are not permitted",
        ),
        ("hero: [unclosed\n", r"card\.yaml: not valid YAML: line 3, column 1: expected ',' or ']'"),
    ],
)
def test_a_bad_file_is_an_error_naming_file_and_field(
    content_dir: Path, body: str, message: str
) -> None:
    _write(content_dir, "pages/card.yaml", body)
    with pytest.raises(ContentError, match=message):
        files.load("pages/card.yaml", Card)


def test_a_yaml_file_must_name_its_schema(content_dir: Path) -> None:
    _write(content_dir, "pages/card.yaml", "hero: {heading: a, intro: b}\n", schema="otro")
    with pytest.raises(ContentError, match=r"line 1: expected .*schemas/card\.json"):
        files.load("pages/card.yaml", Card)
    with pytest.raises(ContentError, match="file not found"):
        files.load("pages/nada.yaml", Card)


class Case(Content):
    """A model of a folder of files."""

    id: str


def test_a_folder_loads_in_the_listed_order_and_ids_are_file_names(content_dir: Path) -> None:
    for name in ("b", "a"):
        _write(content_dir, f"cases/{name}.yaml", f"id: {name}\n", schema="case")
    assert [c.id for c in files.load_folder("cases", Case, ["b", "a"])] == ["b", "a"]
    with pytest.raises(ContentError, match=r"the files \['a', 'b'\] are not the ones listed"):
        files.load_folder("cases", Case, ["a"])
    _write(content_dir, "cases/c.yaml", "id: otro\n", schema="case")
    with pytest.raises(ContentError, match=r"c\.yaml: id: 'otro' must be the file's name"):
        files.load_folder("cases", Case, ["a", "b", "c"])


def _legal(content_dir: Path, body: str) -> LegalPage:
    front = "---\nmeta:\n  description: Texto\nhero: {heading: Legal, intro: Texto}\nupdated: hoy\n---\n"
    _write(content_dir, "legal/page.md", front + body)
    return files.load_markdown("legal/page.md", LegalPage, supported=MARKDOWN_NODES, blocks=BLOCKS)


def test_markdown_values_are_escaped_and_raw_html_stays_text(
    content_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(values, "site_values", lambda: {"agency.name": "*Nombre* <i>"})
    page = _legal(content_dir, "## Uno\n\n{agency.name} y <script>alert(1)</script>\n")
    tree = loader.markdown_tree(page.body)
    assert {node.type for node in tree.walk()} == {
        "root",
        "heading",
        "paragraph",
        "inline",
        "text",
    }
    (paragraph,) = [n for n in tree.walk() if n.type == "paragraph"]
    text = "".join(n.content for n in paragraph.walk() if n.type == "text")
    assert text == "*Nombre* <i> y <script>alert(1)</script>"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("## Uno\n\nTexto {agency.nada}\n", r"page\.md: line 9: unknown name \{agency\.nada\}"),
        ("## Uno\n\n![foto](https://x.es/a.png)\n", r"page\.md: line 9: .*does not show: image"),
        ("## Uno\n\n```python\nx = 1\n```\n", r"page\.md: line 9: unknown block ```python"),
        ("## Uno\n\n> cita\n", r"page\.md: line 9: .*does not show: blockquote"),
        (
            "Texto suelto\n\n## Uno\n",
            r"page\.md: not a valid LegalPage:\n  body: .*start with a '## '",
        ),
        ("## Uno\n\n# Otro título\n", r"page\.md: line 9: headings here start with ## or ###"),
    ],
)
def test_bad_markdown_is_an_error_naming_file_and_line(
    content_dir: Path, body: str, message: str
) -> None:
    with pytest.raises(ContentError, match=message):
        _legal(content_dir, body)


def test_a_markdown_file_needs_its_front_matter(content_dir: Path) -> None:
    _write(content_dir, "legal/page.md", "## Uno\n")
    with pytest.raises(ContentError, match="front matter"):
        files.load_markdown("legal/page.md", LegalPage, supported=MARKDOWN_NODES)


def test_the_check_command_reports_the_file_and_field(
    content_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken() -> list[str]:
        return files.load("pages/roto.yaml", Card)  # type: ignore[return-value]

    _write(content_dir, "pages/roto.yaml", "hero: {heading: a}\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(schema_tool, "content_modules", broken)
        assert schema_tool.main(["check"]) == 1
    error = capsys.readouterr().err
    assert "Content error:" in error and "roto.yaml" in error and "hero.intro" in error
    assert schema_tool.main(["otra"]) == 2


def test_the_real_content_passes_the_check() -> None:
    assert schema_tool.check().startswith("Content OK")


def test_content_files_ship_in_backend_zip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """reflex export zips the site folder: the YAML and Markdown files go with the code."""
    content = ROOT / "agency_site" / "content"
    data = sorted(
        str(path.relative_to(ROOT))
        for pattern in ("*.yaml", "*.md", "*.json")
        for path in content.rglob(pattern)
    )
    assert len(data) >= 8
    monkeypatch.chdir(ROOT)
    zip_app(frontend=False, backend=True, zip_dest_dir=tmp_path)
    names = set(zipfile.ZipFile(tmp_path / "backend.zip").namelist())
    assert set(data) <= names


def test_the_committed_schemas_are_the_models() -> None:
    """make content-schema was run after the last model change (and its files committed)."""
    assert schema_tool.outdated_schemas() == []


def test_every_yaml_file_names_its_schema_for_the_editor() -> None:
    for path in loader.locale_dir().rglob("*.yaml"):
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        schema = (path.parent / first.removeprefix("# yaml-language-server: $schema=")).resolve()
        assert schema.parent == loader.SCHEMA_DIR and schema.is_file(), path


def test_a_file_nothing_reads_is_reported(content_dir: Path) -> None:
    stray = _write(content_dir, "pages/carrers.yaml", "hero: {heading: a, intro: b}\n")
    assert schema_tool.unread_files() == [stray]

"""The site's text files: YAML (and Markdown with a YAML front matter) under ``content/<locale>/``.

Each file is read once, at import, and validated by a pydantic model of ``content/``
(``extra="forbid"``): a missing or unknown field, or a wrong value, stops the build
with the file and the field named. Site-wide values are written as ``{name}`` and
filled in from the one place they live (``SITE``, the settings, ``paths``): see
``site_values()``; an unknown ``{name}`` is an error too.

A YAML file's first line names its JSON Schema (written by ``schemas``) so an editor
checks it while one types. Files live under a locale folder (``es``); a second
language would be a sibling folder with the same names.

Run ``python -m agency_site.content.files check`` to load every file and print the
first error clearly, or ``... schemas`` to rewrite ``content/schemas/*.json``.
"""

import importlib
import json
import pkgutil
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from pydantic import BaseModel, ValidationError

from agency_site import paths
from agency_site.settings import get_settings

CONTENT_DIR = Path(__file__).parent
SCHEMA_DIR = CONTENT_DIR / "schemas"
DEFAULT_LOCALE = "es"
SCHEMA_LINE = "# yaml-language-server: $schema={}"

Model = TypeVar("Model", bound=BaseModel)

# A name between braces: {agency.email}, {leads.retention_months}, {paths.contact}.
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+)\}")
_MARKDOWN_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")  # CommonMark's escapable ASCII punctuation
_FRONT_MATTER = re.compile(r"\A---\n(.*?\n)---\n", re.DOTALL)

# Every model a content file was loaded into, by schema name: what `schemas` exports.
_SCHEMAS: dict[str, type[BaseModel]] = {}
# Every file read, to find files nothing reads (a misspelt name, a leftover).
_READ: set[Path] = set()
# Of those, the Markdown files' models: their schema is the front matter's (no `body`).
_FRONT_MATTERS: set[str] = set()


class ContentError(ValueError):
    """A content file that cannot be used, with the file (and field or line) in the message."""


def site_values() -> dict[str, str]:
    """The values a content file may name as ``{name}``, read from where they live."""
    # Imported here: site.py reads its own words (site.yaml) through this module.
    from agency_site.content.site import SITE

    settings = get_settings()
    values = {
        "agency.name": SITE.name,
        "agency.tagline": SITE.tagline,
        "agency.email": SITE.email,
        "agency.mailto": SITE.mailto,
        "agency.phone": SITE.phone,
        "agency.tel": SITE.tel,
        "agency.whatsapp": SITE.whatsapp,
        "agency.whatsapp_url": SITE.whatsapp_url,
        "agency.address": SITE.address.one_line,
        "agency.opening_hours": SITE.opening_hours,
        "agency.opening_hours_lower": SITE.opening_hours.lower(),  # Inside a sentence.
        "agency.legal_name": SITE.legal.company_name,
        "agency.nif": SITE.legal.nif,
        "agency.registry": SITE.legal.registry,
        # The purge's own setting (LEADS_RETENTION_MONTHS) and the backup timer's --keep.
        "leads.retention_months": str(settings.leads.retention_months),
        "backups.kept_days": str(settings.deploy.backup_keep),
    }
    # Every page path of paths.py: {paths.contact}, {paths.cookies_policy}...
    for name, value in vars(paths).items():
        if name.isupper() and isinstance(value, str) and value.startswith("/"):
            values[f"paths.{name.lower()}"] = value
    return values


def locale_dir(locale: str = DEFAULT_LOCALE) -> Path:
    """The folder of one language's content files."""
    return CONTENT_DIR / locale


def schema_name(model: type[BaseModel]) -> str:
    """A model's schema file name without ``.json``: ``CaseStudy`` → ``case-study``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", model.__name__).lower()


def _shown(path: Path) -> str:
    """The file's path as an editor would look for it: from the repository root."""
    try:
        return str(path.relative_to(CONTENT_DIR.parent.parent))
    except ValueError:
        return str(path)


def markdown_escaped(text: str) -> str:
    """``text`` with Markdown's punctuation escaped, so a value shows as typed, never as markup."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\g<0>", text)


def substitute(
    value: Any,
    values: Mapping[str, str],
    where: str,
    field: str = "",
    escape: Callable[[str], str] = str,
) -> Any:
    """``value`` with every ``{name}`` in its strings replaced; unknown names are errors."""
    if isinstance(value, str):

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in values:
                known = ", ".join(sorted(values))
                raise ContentError(
                    f"{where}: {field or 'text'}: unknown name {{{name}}} (known: {known})"
                )
            return escape(values[name])

        return _PLACEHOLDER.sub(replace, value)
    if isinstance(value, list):
        return [substitute(v, values, where, f"{field}.{i}") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {
            key: substitute(v, values, where, f"{field}.{key}" if field else str(key))
            for key, v in value.items()
        }
    return value


def validate(model: type[Model], data: Any, where: str) -> Model:
    """``data`` as ``model``, or a ``ContentError`` naming the file and every bad field."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        problems = "\n".join(
            f"  {'.'.join(str(part) for part in problem['loc']) or '(file)'}: {problem['msg']}"
            for problem in error.errors(include_url=False)
        )
        raise ContentError(f"{where}: not a valid {model.__name__}:\n{problems}") from None


def _yaml(text: str, where: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ContentError(f"{where}: not valid YAML: {at}{problem}") from None


def _check_schema_line(text: str, path: Path, model: type[BaseModel]) -> None:
    """A YAML file starts by naming its model's schema (relative to the file)."""
    schema = SCHEMA_DIR / f"{schema_name(model)}.json"
    expected = SCHEMA_LINE.format(Path(*[".."] * _depth(path), schema.relative_to(CONTENT_DIR)))
    first = text.split("\n", 1)[0]
    if first != expected:
        raise ContentError(f"{_shown(path)}: line 1: expected {expected!r}, found {first!r}")


def _depth(path: Path) -> int:
    """How many folders ``path`` sits below ``content/``."""
    return len(path.relative_to(CONTENT_DIR).parts) - 1


def _read(name: str, locale: str) -> tuple[Path, str, str]:
    """The path of ``content/<locale>/<name>``, its name as shown in errors, and its text
    (the file is then counted as read by ``check``)."""
    path = locale_dir(locale) / name
    where = _shown(path)
    if not path.is_file():
        raise ContentError(f"{where}: file not found")
    _READ.add(path)
    return path, where, path.read_text(encoding="utf-8")


def load(
    name: str,
    model: type[Model],
    locale: str = DEFAULT_LOCALE,
    values: Mapping[str, str] | None = None,
    *,
    site: bool = True,
) -> Model:
    """The YAML file ``content/<locale>/<name>`` validated as ``model``.

    ``values`` adds names the file may use besides the site's (``{forms.name_max}``: a
    figure the code owns, such as a form's limit). ``site=False``: without the site's
    values, for the file those are made of (``site.yaml``).
    """
    path, where, text = _read(name, locale)
    _check_schema_line(text, path, model)
    _SCHEMAS[schema_name(model)] = model
    known = (site_values() if site else {}) | dict(values or {})
    return validate(model, substitute(_yaml(text, where), known, where), where)


def load_folder(
    folder: str, model: type[Model], order: Iterable[str], locale: str = DEFAULT_LOCALE
) -> tuple[Model, ...]:
    """One ``model`` per ``<id>.yaml`` of the folder, in ``order``; each file's ``id`` is its name."""
    order = tuple(order)
    directory = locale_dir(locale) / folder
    found = sorted(path.stem for path in directory.glob("*.yaml"))
    if sorted(order) != found:
        raise ContentError(
            f"{_shown(directory)}: the files {found} are not the ones listed {sorted(order)}"
        )
    items = tuple(load(f"{folder}/{stem}.yaml", model, locale) for stem in order)
    for stem, item in zip(order, items, strict=True):
        if getattr(item, "id", stem) != stem:
            raise ContentError(
                f"{_shown(directory / (stem + '.yaml'))}: id: {item.id!r} must be the file's "  # type: ignore[attr-defined]
                f"name, {stem!r}"
            )
    return items


# CommonMark without raw HTML: "<b>" in a file stays the text "<b>", never markup.
MARKDOWN = MarkdownIt("commonmark", {"html": False})


def markdown_tree(text: str) -> SyntaxTreeNode:
    """Markdown parsed into markdown-it's syntax tree (at build time, never in the browser)."""
    return SyntaxTreeNode(MARKDOWN.parse(text))


def check_markdown(
    tree: SyntaxTreeNode,
    supported: Iterable[str],
    blocks: Iterable[str],
    where: str,
    first_line: int = 1,
    headings: Iterable[str] = ("h2", "h3"),
) -> None:
    """Every node of ``tree`` is of a supported type; fenced blocks name a known data block;
    headings are of the allowed levels."""
    supported, blocks, headings = set(supported), set(blocks), set(headings)
    for node in tree.walk():
        if node.is_root:
            continue
        block = node
        while block.map is None and block.parent is not None:  # Inline nodes: their block's.
            block = block.parent
        line = f"line {block.map[0] + first_line}: " if block.map else ""
        if node.type == "fence" and node.info.strip() not in blocks:
            raise ContentError(
                f"{where}: {line}unknown block ```{node.info.strip()} "
                f"(known: {', '.join(sorted(blocks))})"
            )
        if node.type not in supported | {"fence"}:
            raise ContentError(f"{where}: {line}Markdown the site does not show: {node.type}")
        if node.type == "heading" and node.tag not in headings:
            marks = " or ".join("#" * int(tag[1]) for tag in sorted(headings))
            raise ContentError(f"{where}: {line}headings here start with {marks}")


def load_markdown(
    name: str,
    model: type[Model],
    *,
    supported: Iterable[str],
    blocks: Iterable[str] = (),
    headings: Iterable[str] = ("h2", "h3"),
    locale: str = DEFAULT_LOCALE,
) -> Model:
    """``content/<locale>/<name>``: its YAML front matter plus ``body`` (the Markdown), as ``model``."""
    _path, where, text = _read(name, locale)
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise ContentError(f"{where}: must start with a front matter between two '---' lines")
    front = _yaml("\n" + match.group(1), where) or {}  # Line numbers as in the file.
    if not isinstance(front, dict) or "body" in front:
        raise ContentError(f"{where}: the front matter must be fields other than 'body'")
    values = site_values()
    body = text[match.end() :]
    first_line = text[: match.end()].count("\n") + 1
    lines = [
        substitute(line, values, where, f"line {number}", markdown_escaped)
        for number, line in enumerate(body.split("\n"), start=first_line)
    ]
    data = substitute(front, values, where) | {"body": "\n".join(lines)}
    check_markdown(markdown_tree(data["body"]), supported, blocks, where, first_line, headings)
    _SCHEMAS[schema_name(model)] = model
    _FRONT_MATTERS.add(schema_name(model))
    return validate(model, data, where)


def content_modules() -> list[str]:
    """Every module of ``agency_site.content``, imported (which loads every content file)."""
    package = importlib.import_module("agency_site.content")
    names = [f"{package.__name__}.{info.name}" for info in pkgutil.walk_packages(package.__path__)]
    for name in names:
        importlib.import_module(name)
    return names


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of the files loaded as ``name`` (a Markdown file's: its front matter)."""
    schema = _SCHEMAS[name].model_json_schema()
    if name in _FRONT_MATTERS:
        del schema["properties"]["body"]
        schema["required"].remove("body")
    return schema


def schemas() -> dict[str, str]:
    """The JSON Schema of every model a content file is loaded into, as file name → text."""
    content_modules()
    return {
        f"{name}.json": json.dumps(json_schema(name), ensure_ascii=False, indent=2, sort_keys=True)
        + "\n"
        for name in sorted(_SCHEMAS)
    }


def write_schemas() -> list[Path]:
    """Rewrite ``content/schemas/`` from the models; returns the files written."""
    SCHEMA_DIR.mkdir(exist_ok=True)
    wanted = schemas()
    for stale in SCHEMA_DIR.glob("*.json"):
        if stale.name not in wanted:
            stale.unlink()
    written = []
    for name, text in wanted.items():
        (SCHEMA_DIR / name).write_text(text, encoding="utf-8")
        written.append(SCHEMA_DIR / name)
    return written


def outdated_schemas() -> list[str]:
    """The schema files that differ from what the models say (missing, stale or extra)."""
    wanted = schemas()
    present = {path.name for path in SCHEMA_DIR.glob("*.json")}
    return sorted(
        name
        for name in wanted.keys() | present
        if name not in present
        or name not in wanted
        or (SCHEMA_DIR / name).read_text(encoding="utf-8") != wanted[name]
    )


def unread_files() -> list[Path]:
    """Files under a locale folder that no content module reads."""
    content_modules()
    found = {
        path
        for folder in CONTENT_DIR.iterdir()
        if folder.is_dir() and folder != SCHEMA_DIR and not folder.name.startswith(("_", "."))
        for path in folder.rglob("*")
        if path.is_file()
    }
    return sorted(found - _READ)


def check() -> str:
    """Load every content file and compare the schemas; a ``ContentError`` says what is wrong."""
    if unread := unread_files():
        raise ContentError(
            f"{', '.join(_shown(path) for path in unread)}: no page reads this file "
            "(a misspelt name?)"
        )
    if outdated := outdated_schemas():
        raise ContentError(
            f"{_shown(SCHEMA_DIR)}: {', '.join(outdated)} out of date: run `make content-schema`"
        )
    return f"Content OK: every file under {_shown(CONTENT_DIR)} is valid ({len(_SCHEMAS)} kinds)."


def main(argv: list[str]) -> int:
    """``check``: load and validate every content file; ``schemas``: rewrite the JSON Schemas."""
    if argv not in (["check"], ["schemas"]):
        print("usage: python -m agency_site.content.files check|schemas", file=sys.stderr)
        return 2
    try:
        if argv == ["check"]:
            print(check())
        else:
            print("\n".join(_shown(path) for path in write_schemas()))
    except ContentError as error:
        print(f"Content error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    # Run through the imported module, whose registry the content modules fill.
    from agency_site.content import files

    sys.exit(files.main(sys.argv[1:]))

"""Reading the site's text files: YAML (and Markdown with a YAML front matter) under
``content/<locale>/``, each validated by a pydantic model of ``content/``.

A file is read once, at import, and validated with ``extra="forbid"``: a missing or
unknown field, or a wrong value, stops the build with the file and the field named.

``{placeholders}`` are filled by ``fill``, the one mechanism for them: a name between
braces replaced by its value from a table, an unknown name an error. A file's dotted
names (``{agency.email}``, ``{paths.contact}``: the site-wide values of ``values.py``)
are filled as it is read; a model's own templates (``{price}``, ``{clients}``) by
``fill`` when the model is used. This module knows no value itself: the caller passes
them (``files.py`` adds the site-wide ones).

A YAML file's first line names its JSON Schema (written by ``schema_tool.py``) so an
editor checks it while one types. Files live under a language's folder (``es``, ``ca``),
with the same names in each (``twins.py`` checks they mirror each other).
"""

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from pydantic import BaseModel, ValidationError

from agency_site.locale import DEFAULT_LOCALE

CONTENT_DIR = Path(__file__).parent
SCHEMA_DIR = CONTENT_DIR / "schemas"
SCHEMA_LINE = "# yaml-language-server: $schema={}"

Model = TypeVar("Model", bound=BaseModel)

# A name between braces: {price}, {agency.email}, {leads.retention_months}.
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*)\}")
_MARKDOWN_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")  # CommonMark's escapable ASCII punctuation
_FRONT_MATTER = re.compile(r"\A---\n(.*?\n)---\n", re.DOTALL)

# Every model a content file was loaded into, by schema name: what the schema tool exports.
SCHEMAS: dict[str, type[BaseModel]] = {}
# Every file read, to find files nothing reads (a misspelt name, a leftover).
READ: set[Path] = set()
# Of those, the Markdown files' models: their schema is the front matter's (no `body`).
FRONT_MATTERS: set[str] = set()


class ContentError(ValueError):
    """A content file that cannot be used, with the file (and field or line) in the message."""


def fill(
    text: str,
    values: Mapping[str, object],
    where: str = "text",
    *,
    dotted_only: bool = False,
    escape: Callable[[str], str] = str,
) -> str:
    """``text`` with every ``{name}`` replaced by its value; an unknown name is a
    ``ContentError``. ``dotted_only``: only the site-wide names (``{agency.email}``), the
    others left as written for the model that owns them."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if dotted_only and "." not in name:
            return match.group(0)
        if name not in values:
            known = ", ".join(sorted(values))
            raise ContentError(f"{where}: unknown name {{{name}}} (known: {known})")
        return escape(str(values[name]))

    return _PLACEHOLDER.sub(replace, text)


def locale_dir(locale: str = DEFAULT_LOCALE) -> Path:
    """The folder of one language's content files."""
    return CONTENT_DIR / locale


def schema_name(model: type[BaseModel]) -> str:
    """A model's schema file name without ``.json``: ``CaseStudy`` → ``case-study``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", model.__name__).lower()


def shown(path: Path) -> str:
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
    """``value`` with the site-wide ``{names}`` of its strings filled (``fill``)."""
    if isinstance(value, str):
        return fill(value, values, f"{where}: {field or 'text'}", dotted_only=True, escape=escape)
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
        raise ContentError(f"{shown(path)}: line 1: expected {expected!r}, found {first!r}")


def _depth(path: Path) -> int:
    """How many folders ``path`` sits below ``content/``."""
    return len(path.relative_to(CONTENT_DIR).parts) - 1


def _read(name: str, locale: str) -> tuple[Path, str, str]:
    """The path of ``content/<locale>/<name>``, its name as shown in errors, and its text
    (the file is then counted as read by the schema tool's ``check``)."""
    path = locale_dir(locale) / name
    where = shown(path)
    if not path.is_file():
        raise ContentError(f"{where}: file not found")
    READ.add(path)
    return path, where, path.read_text(encoding="utf-8")


def read_yaml(
    name: str,
    model: type[Model],
    values: Mapping[str, str],
    locale: str = DEFAULT_LOCALE,
) -> Model:
    """The YAML file ``content/<locale>/<name>`` validated as ``model``, its dotted
    ``{names}`` filled from ``values``."""
    path, where, text = _read(name, locale)
    _check_schema_line(text, path, model)
    SCHEMAS[schema_name(model)] = model
    return validate(model, substitute(_yaml(text, where), values, where), where)


def read_folder(
    folder: str,
    model: type[Model],
    order: Iterable[str],
    values: Mapping[str, str],
    locale: str = DEFAULT_LOCALE,
) -> tuple[Model, ...]:
    """One ``model`` per ``<id>.yaml`` of the folder, in ``order``; each file's ``id`` is its name."""
    order = tuple(order)
    directory = locale_dir(locale) / folder
    found = sorted(path.stem for path in directory.glob("*.yaml"))
    if sorted(order) != found:
        raise ContentError(
            f"{shown(directory)}: the files {found} are not the ones listed {sorted(order)}"
        )
    items = tuple(read_yaml(f"{folder}/{stem}.yaml", model, values, locale) for stem in order)
    for stem, item in zip(order, items, strict=True):
        if getattr(item, "id", stem) != stem:
            raise ContentError(
                f"{shown(directory / (stem + '.yaml'))}: id: {item.id!r} must be the file's "  # type: ignore[attr-defined]
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


def split_front_matter(text: str) -> tuple[str, str, int] | None:
    """A Markdown file's front matter (YAML text), its body and the body's first line
    number, or None when it does not start with a front matter between two ``---`` lines."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return None
    return match.group(1), text[match.end() :], text[: match.end()].count("\n") + 1


def read_markdown(
    name: str,
    model: type[Model],
    values: Mapping[str, str],
    *,
    supported: Iterable[str],
    blocks: Iterable[str] = (),
    headings: Iterable[str] = ("h2", "h3"),
    locale: str = DEFAULT_LOCALE,
) -> Model:
    """``content/<locale>/<name>``: its YAML front matter plus ``body`` (the Markdown), as
    ``model``; values filled into the body are escaped, so they show as typed."""
    _path, where, text = _read(name, locale)
    parts = split_front_matter(text)
    if parts is None:
        raise ContentError(f"{where}: must start with a front matter between two '---' lines")
    front_text, body, first_line = parts
    front = _yaml("\n" + front_text, where) or {}  # Line numbers as in the file.
    if not isinstance(front, dict) or "body" in front:
        raise ContentError(f"{where}: the front matter must be fields other than 'body'")
    lines = [
        substitute(line, values, where, f"line {number}", markdown_escaped)
        for number, line in enumerate(body.split("\n"), start=first_line)
    ]
    data = substitute(front, values, where) | {"body": "\n".join(lines)}
    check_markdown(markdown_tree(data["body"]), supported, blocks, where, first_line, headings)
    SCHEMAS[schema_name(model)] = model
    FRONT_MATTERS.add(schema_name(model))
    return validate(model, data, where)

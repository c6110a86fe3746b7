"""Checks every content file and writes the JSON Schemas an editor checks them with.

``python -m agency_site.content.schema_tool check`` (``make content-check``) loads every
file, checks that every language's files mirror the Spanish ones (``twins.py``) and prints
the first error clearly; ``... schemas`` (``make content-schema``)
rewrites ``content/schemas/*.json`` from the models the files were loaded into.
"""

import importlib
import json
import pkgutil
import sys
from pathlib import Path
from typing import Any

from agency_site.content import loader, twins
from agency_site.content.loader import CONTENT_DIR, SCHEMA_DIR, ContentError, shown


def content_modules() -> list[str]:
    """Every module of ``agency_site.content``, imported (which loads every content file)."""
    package = importlib.import_module("agency_site.content")
    names = [f"{package.__name__}.{info.name}" for info in pkgutil.walk_packages(package.__path__)]
    for name in names:
        if name != __name__:
            importlib.import_module(name)
    return names


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of the files loaded as ``name`` (a Markdown file's: its front matter)."""
    schema = loader.SCHEMAS[name].model_json_schema()
    if name in loader.FRONT_MATTERS:
        del schema["properties"]["body"]
        schema["required"].remove("body")
    return schema


def schemas() -> dict[str, str]:
    """The JSON Schema of every model a content file is loaded into, as file name → text."""
    content_modules()
    return {
        f"{name}.json": json.dumps(json_schema(name), ensure_ascii=False, indent=2, sort_keys=True)
        + "\n"
        for name in sorted(loader.SCHEMAS)
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
    return sorted(found - loader.READ)


def check() -> str:
    """Load every content file and compare the schemas; a ``ContentError`` says what is wrong."""
    if unread := unread_files():
        raise ContentError(
            f"{', '.join(shown(path) for path in unread)}: no page reads this file "
            "(a misspelt name?)"
        )
    if untranslated := twins.problems():
        raise ContentError(
            f"the translations do not mirror the Spanish files ({len(untranslated)}):\n  "
            + "\n  ".join(untranslated)
        )
    if outdated := outdated_schemas():
        raise ContentError(
            f"{shown(SCHEMA_DIR)}: {', '.join(outdated)} out of date: run `make content-schema`"
        )
    return (
        f"Content OK: every file under {shown(CONTENT_DIR)} is valid ({len(loader.SCHEMAS)} kinds), "
        f"and {', '.join(twins.TWIN_LOCALES)} mirror the Spanish files."
    )


def main(argv: list[str]) -> int:
    """``check``: load and validate every content file; ``schemas``: rewrite the JSON Schemas."""
    if argv not in (["check"], ["schemas"]):
        print("usage: python -m agency_site.content.schema_tool check|schemas", file=sys.stderr)
        return 2
    try:
        if argv == ["check"]:
            print(check())
        else:
            print("\n".join(shown(path) for path in write_schemas()))
    except ContentError as error:
        print(f"Content error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

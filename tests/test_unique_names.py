"""One name per thing in agency_site: no two top-level classes share a name, and no two
modules share a file stem, so a name in a traceback, an import or a grep means one thing.

The stems below were shared when this test came; a view named after its page's content
(``content/home.py`` beside ``pages/home.py``) is the commonest. The list may only shrink:
a new shared stem fails, and so does a stem listed here that is no longer shared.
"""

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "agency_site"
# Module stems every package may have.
ALLOWED_STEMS = {"__init__", "__main__"}
# Shared before this test (issue 30): to be renamed, never added to.
KNOWN_SHARED_STEMS = {
    "careers",
    "case_studies",
    "case_study",
    "contact",
    "files",
    "home",
    "layout",
    "legal",
    "models",
    "not_found",
    "pages",
    "runtime",
    "schedule",
    "sections",
}


def _modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "node_modules" not in path.parts)


def _shared(where: dict[str, list[str]]) -> dict[str, list[str]]:
    return {name: paths for name, paths in sorted(where.items()) if len(paths) > 1}


def shared_class_names() -> dict[str, list[str]]:
    """Each top-level class name defined in more than one module, with those modules."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in _modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                where[node.name].append(str(path.relative_to(PACKAGE.parent)))
    return _shared(where)


def shared_stems() -> dict[str, list[str]]:
    """Each module file stem used more than once, with its modules."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in _modules():
        if path.stem not in ALLOWED_STEMS:
            where[path.stem].append(str(path.relative_to(PACKAGE.parent)))
    return _shared(where)


def _listing(shared: dict[str, list[str]]) -> str:
    return "\n".join(f"  {name}: {', '.join(paths)}" for name, paths in shared.items())


def test_no_two_classes_share_a_name() -> None:
    shared = shared_class_names()
    assert not shared, "Top-level classes sharing a name:\n" + _listing(shared)


def test_no_new_module_shares_a_file_stem() -> None:
    shared = shared_stems()
    new = {stem: paths for stem, paths in shared.items() if stem not in KNOWN_SHARED_STEMS}
    assert not new, "Modules sharing a file stem (rename one):\n" + _listing(new)
    gone = KNOWN_SHARED_STEMS - set(shared)
    assert not gone, f"No longer shared, remove from KNOWN_SHARED_STEMS: {sorted(gone)}"

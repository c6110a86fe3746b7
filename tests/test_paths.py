"""Every path of the site's own endpoints is written in ``agency_site/paths.py`` only.

The code elsewhere (Python string literals, JavaScript outside its ``//`` notes) names them
by constant; documentation (docstrings, comments) may quote them. The browser code gets a
path from Python, as a placeholder's value (``$CLIENT_ERROR_PATH``, ``$FREE_SLOTS_URL``)
or a form's ``action``.
"""

import ast
import re
from pathlib import Path

from agency_site import paths

PACKAGE = Path(paths.__file__).resolve().parent
# The prefix as a path segment: ``/_site``, ``/_site/``, not ``agency_site``.
_PREFIX = re.compile(rf"(?<!\w){re.escape(paths.SITE_API_PREFIX.strip('/'))}\b")
_JS_NOTE = re.compile(r"^\s*(//|/\*|\*)")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, owners)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def python_offenders(path: Path) -> list[str]:
    """``file:line`` of each string literal of ``path`` (not a docstring) with the prefix."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    return [
        f"{path}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and _PREFIX.search(node.value)
    ]


def js_offenders(path: Path) -> list[str]:
    """``file:line`` of each line of code (not a note) of ``path`` with the prefix."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        f"{path}:{number}"
        for number, line in enumerate(lines, 1)
        if not _JS_NOTE.match(line) and _PREFIX.search(line)
    ]


def offenders(root: Path) -> list[str]:
    """Every place under ``root`` but ``paths.py`` that types the prefix in code."""
    found = [
        where
        for path in sorted(root.rglob("*.py"))
        if path != root / "paths.py"
        for where in python_offenders(path)
    ]
    return found + [where for path in sorted(root.rglob("*.js")) for where in js_offenders(path)]


def test_the_endpoints_prefix_is_typed_in_paths_py_only() -> None:
    found = offenders(PACKAGE)
    assert not found, (
        f"{paths.SITE_API_PREFIX!r} typed outside agency_site/paths.py; name a constant of "
        "paths.py instead (in JavaScript: a placeholder filled from it):\n  " + "\n  ".join(found)
    )


def test_the_check_finds_code_and_leaves_notes_alone(tmp_path: Path) -> None:
    (tmp_path / "paths.py").write_text('PREFIX = "/_site"\n')
    (tmp_path / "ok.py").write_text(
        '"""GET /_site/x."""\n# /_site/y\nNAME = "agency_site/x"\n\n\ndef f():\n    """/_site"""\n'
    )
    (tmp_path / "bad.py").write_text('X = 1\nURL = f"{X}/_site/health"\n')
    (tmp_path / "ok.js").write_text('// posts to /_site/x\nconst a = "agency_site";\n')
    (tmp_path / "bad.js").write_text('const url = "/_site/x";\n')
    assert offenders(tmp_path) == [f"{tmp_path / 'bad.py'}:2", f"{tmp_path / 'bad.js'}:1"]


def test_paths_py_imports_nothing() -> None:
    """The bottom module: ``locale`` and everything else import it, never the reverse."""
    tree = ast.parse(Path(paths.__file__).read_text(encoding="utf-8"))
    assert not [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]

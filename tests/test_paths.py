"""Every path of the site's own endpoints is written in ``agency_site/paths.py`` only, and so
are Reflex's own endpoints (``/_event``, ``/ping``, ``/_health``) and the content-hashed
files' folder (``/assets/``).

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
# Reflex's endpoints and the hashed files' folder, as paths: ``/ping``, not ``ping`` alone.
_OTHER_PATHS = re.compile(
    r"(?<![\w.])(?:"
    + "|".join(
        re.escape(path.rstrip("/"))
        for path in (paths.EVENT, paths.PING, paths.HEALTH, paths.HASHED_ASSETS)
    )
    + r")\b"
)
# Where they are still typed, and why (file under agency_site/): this list only shrinks.
OTHER_PATHS_ELSEWHERE = {
    # A regular expression that cuts Reflex's own ping path off the URL Reflex gives the
    # page (``env.PING``), to reach the backend's root: changed, it changes every build's
    # utils/state.js, which only the browser tests check.
    "reflex_ext/js/lazy_socket.js",
}
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


def python_offenders(path: Path, pattern: re.Pattern = _PREFIX) -> list[str]:
    """``file:line`` of each string literal of ``path`` (not a docstring) with ``pattern``
    (the prefix)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    return [
        f"{path}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and pattern.search(node.value)
    ]


def js_offenders(path: Path, pattern: re.Pattern = _PREFIX) -> list[str]:
    """``file:line`` of each line of code (not a note) of ``path`` with ``pattern``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        f"{path}:{number}"
        for number, line in enumerate(lines, 1)
        if not _JS_NOTE.match(line) and pattern.search(line)
    ]


def offenders(root: Path, pattern: re.Pattern = _PREFIX) -> list[str]:
    """Every place under ``root`` but ``paths.py`` that types ``pattern`` in code."""
    found = [
        where
        for path in sorted(root.rglob("*.py"))
        if path != root / "paths.py"
        for where in python_offenders(path, pattern)
    ]
    return found + [
        where for path in sorted(root.rglob("*.js")) for where in js_offenders(path, pattern)
    ]


def test_the_endpoints_prefix_is_typed_in_paths_py_only() -> None:
    found = offenders(PACKAGE)
    assert not found, (
        f"{paths.SITE_API_PREFIX!r} typed outside agency_site/paths.py; name a constant of "
        "paths.py instead (in JavaScript: a placeholder filled from it):\n  " + "\n  ".join(found)
    )


def test_reflex_s_endpoints_and_the_hashed_files_are_typed_in_paths_py_only() -> None:
    found = {
        where: where.split(":")[0].removeprefix(f"{PACKAGE}/")
        for where in offenders(PACKAGE, _OTHER_PATHS)
    }
    new = [where for where, file in found.items() if file not in OTHER_PATHS_ELSEWHERE]
    assert not new, (
        "A path of Reflex's or the hashed files' folder typed outside agency_site/paths.py; "
        "name its constant (EVENT, PING, HEALTH, HASHED_ASSETS, PICTURES):\n  " + "\n  ".join(new)
    )
    gone = OTHER_PATHS_ELSEWHERE - set(found.values())
    assert not gone, f"No longer typed there, remove from OTHER_PATHS_ELSEWHERE: {sorted(gone)}"


def test_reflex_s_own_endpoints_are_where_paths_py_says() -> None:
    from reflex_base.constants import Endpoint

    assert (
        str(Endpoint.EVENT),
        str(Endpoint.PING),
        str(Endpoint.HEALTH),
    ) == (paths.EVENT, paths.PING, paths.HEALTH)


def test_the_check_finds_code_and_leaves_notes_alone(tmp_path: Path) -> None:
    (tmp_path / "paths.py").write_text('PREFIX = "/_site"\n')
    (tmp_path / "ok.py").write_text(
        '"""GET /_site/x."""\n# /_site/y\nNAME = "agency_site/x"\n\n\ndef f():\n    """/_site"""\n'
    )
    (tmp_path / "bad.py").write_text('X = 1\nURL = f"{X}/_site/health"\n')
    (tmp_path / "ok.js").write_text('// posts to /_site/x\nconst a = "agency_site";\n')
    (tmp_path / "bad.js").write_text('const url = "/_site/x";\n')
    assert offenders(tmp_path) == [f"{tmp_path / 'bad.py'}:2", f"{tmp_path / 'bad.js'}:1"]
    (tmp_path / "ping.py").write_text('"""/ping"""\nCACHE = "/assets/"\nWORD = "ping"\n')
    (tmp_path / "ping.js").write_text("// /ping\nconst url = base + '/_event';\n")
    assert offenders(tmp_path, _OTHER_PATHS) == [
        f"{tmp_path / 'ping.py'}:2",
        f"{tmp_path / 'ping.js'}:2",
    ]


def test_paths_py_imports_nothing() -> None:
    """The bottom module: ``locale`` and everything else import it, never the reverse."""
    tree = ast.parse(Path(paths.__file__).read_text(encoding="utf-8"))
    assert not [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]

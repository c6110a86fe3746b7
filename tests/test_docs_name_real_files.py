"""The docs and the code's own words name files that exist (issue 46: seven of them named
files that had moved).

Read: ``README.md``, ``docs/*.md``, and the comments and strings (docstrings among them)
of ``agency_site/**/*.py``, plus the text of its ``.js``, ``.css`` and ``.tmpl`` files. A
token ending in ``.py``, ``.md``, ``.yaml``, ``.tmpl``, ``.js`` or ``.css`` is checked when
it names a file of this repository: a path whose first folder is one of the repository's
top-level entries or one of ``agency_site``'s (``leads/store.py``,
``agency_site/deploy/static_host.py``; relative to the repository, to ``agency_site/``, to
the file that says it, or to a content locale's folder: ``pages/home.yaml``), or a bare
name that is no ``.js``/``.css`` (``settings.py``: some file of that name must exist).
Names of other projects' files (Reflex's ``utils/state.js``, altcha's ``pbkdf2.js``), host
paths (``/srv/...``) and placeholders (``content/<locale>/x.yaml``, ``{folder}/x.yaml``)
are not this repository's and are left alone; ``{es,ca}`` is expanded, ``*`` matches.
"""

import fnmatch
import io
import itertools
import re
import subprocess
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = "py|md|yaml|tmpl|js|css"
PIECE = r"(?:[\w*-]|\{[\w,]+\})"
TOKEN = re.compile(
    rf"(?<![\w./{{}}<>$-])({PIECE}(?:[\w.*-]|\{{[\w,]+\}})*(?:/(?:[\w.*-]|\{{[\w,]+\}})+)*"
    rf"\.(?:{SUFFIXES}))(?![\w-])"
)


def tracked() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [name for name in listed if (ROOT / name).exists()]  # Deleted, not yet committed.


def lines_of(files: list[str]) -> Iterator[tuple[str, int, str]]:
    """Each line of prose that may name a file: (file, line number, text)."""
    docs = [f for f in files if f == "README.md" or (f.startswith("docs/") and f.endswith(".md"))]
    for name in docs:
        for number, line in enumerate((ROOT / name).read_text().splitlines(), 1):
            yield name, number, line
    for name in files:
        if not name.startswith("agency_site/"):
            continue
        if name.endswith((".js", ".css", ".tmpl")):
            for number, line in enumerate((ROOT / name).read_text().splitlines(), 1):
                yield name, number, line
        elif name.endswith(".py"):
            source = (ROOT / name).read_text()
            for token in tokenize.generate_tokens(io.StringIO(source).readline):
                if token.type in (tokenize.COMMENT, tokenize.STRING):
                    for offset, line in enumerate(token.string.splitlines()):
                        yield name, token.start[0] + offset, line


def expanded(token: str) -> list[str]:
    """``content/{es,ca}/x.md`` as its two paths."""
    parts = re.split(r"\{([\w,]+)\}", token)
    choices = [[part] if i % 2 == 0 else part.split(",") for i, part in enumerate(parts)]
    return ["".join(choice) for choice in itertools.product(*choices)]


def is_ours(token: str, files: list[str]) -> bool:
    """Whether the token names a file of this repository (see the module's docstring)."""
    if token.startswith("/"):
        return False
    first = token.split("/")[0]
    if "/" in token:
        tops = {f.split("/")[0] for f in files}
        inside = {f.split("/")[1] for f in files if f.startswith("agency_site/")}
        return first in tops or first in inside
    return not token.endswith((".js", ".css"))


def exists(token: str, where: str, files: list[str]) -> bool:
    names = {Path(f).name for f in files}
    for path in expanded(token):
        if "/" not in path:
            if not any(fnmatch.fnmatch(name, path) for name in names):
                return False
            continue
        places = [path, f"agency_site/{path}", f"{Path(where).parent}/{path}"]
        places.append(f"agency_site/content/*/{path}")
        if not any(fnmatch.fnmatch(f, place) for f in files for place in places):
            return False
    return True


def missing_names(files: list[str]) -> list[str]:
    return [
        f"{where}:{number}: {token}"
        for where, number, line in lines_of(files)
        for token in TOKEN.findall(line)
        if is_ours(token, files) and not exists(token, where, files)
    ]


def test_every_file_the_docs_and_docstrings_name_exists() -> None:
    assert missing_names(tracked()) == []


@pytest.mark.parametrize(
    ("said", "found"),
    [
        ("see `agency_site/static_host.py`", True),  # Moved to deploy/.
        ("(``leads/webhooks.py``)", True),
        ("`settings.py` holds it", True),
        ("content/{es,ca}/legal/gone.md", True),
        ("`agency_site/deploy/static_host.py`", False),
        ("``leads/webhooks/channel.py``", False),
        ("``content/images.py``", False),
        ("both `pages/home.yaml`", False),
        ("content/{es,ca}/legal/privacy.md", False),
        ("Reflex's `utils/state.js` and altcha's `pbkdf2.js`", False),
        ("`content/<locale>/language.yaml` and f'{folder}/{stem}.yaml'", False),
        ("sudo python3 /srv/agency_site/app/scripts/nothing.py", False),
    ],
)
def test_a_name_is_missed_only_when_no_such_file_is_tracked(said: str, found: bool) -> None:
    files = tracked()
    missed = [
        t for t in TOKEN.findall(said) if is_ours(t, files) and not exists(t, "README.md", files)
    ]
    assert bool(missed) is found, missed

"""The README's "Layout of the code" is the tree: read from the README, compared with the
files.

The table is the first fenced block of that section. An entry is a line indented by a
multiple of two spaces under its folder's line (``agency_site/`` then ``  leads/``), its
name, then two spaces or more and what it holds; a deeper-indented line continues the
description above. The rules:

- every name in the table exists (a folder ends with ``/``);
- a folder whose line has lines of its own under it (``agency_site/``) names each of its
  modules and packages on one of them; a package without lines of its own is covered by
  its line (its files may be named in its description);
- every file or folder a description names (``kinds.py``, ``content/loader.py``,
  ``js/*.js``, ``tests/e2e/``) exists, in the entry's folder, in ``agency_site/`` or at
  the root.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SECTION = "## Layout of the code"

# A file a description names (``lazy_socket.py``, ``js/*.js``) or a folder (``tests/e2e/``);
# never a URL path (``/_site/...``) nor a generated file (robots.txt, 404.html).
_FILE = r"(?:[\w-]+/)*[\w*-]+\.(?:py|js|json|yaml|md|ini|css|sh)\b"
_FOLDER = r"(?:[\w-]+/)+(?=[\s,;:)]|$)"
_MENTION = re.compile(rf"(?<![/\w.<{{-])(?:{_FILE}|{_FOLDER})")


@dataclass
class Entry:
    """One line of the table: the path it names, as written, and what its description names."""

    path: Path
    shown: str  # As the table writes it: ``leads/``, ``paths.py``.
    line: int
    mentions: list[str] = field(default_factory=list)
    children: list["Entry"] = field(default_factory=list)
    spaced: bool = True  # Two spaces or more between the name and its description.


def layout_block(text: str) -> list[tuple[int, str]]:
    """The table's lines with their line numbers in the README."""
    lines = text.splitlines()
    start = lines.index(SECTION)
    opening = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    closing = next(i for i in range(opening + 1, len(lines)) if lines[i].startswith("```"))
    return [(i + 1, lines[i]) for i in range(opening + 1, closing)]


def parse(text: str, root: Path = ROOT) -> list[Entry]:
    """The table's entries, top-level first, each with its own entries under it."""
    top: list[Entry] = []
    stack: list[tuple[int, Entry]] = []  # (indent, folder entry) of the lines above
    last: Entry | None = None
    for number, line in layout_block(text):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent > (stack[-1][0] + 2 if stack else 0) or indent % 2:
            assert last is not None, f"README.md:{number}: a description with no entry"
            last.mentions += _MENTION.findall(line)
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1].path if stack else root
        name, text = line.strip().split(" ", 1) if " " in line.strip() else (line.strip(), "")
        last = Entry(parent / name.rstrip("/"), name, number, _MENTION.findall(text))
        last.spaced = not text or text.startswith(" ")
        (stack[-1][1].children if stack else top).append(last)
        if name.endswith("/"):
            stack.append((indent, last))
    return top


def walk(entries: list[Entry]) -> Iterator[Entry]:
    """Every entry, each before those under it."""
    for entry in entries:
        yield entry
        yield from walk(entry.children)


def modules_and_packages(folder: Path) -> set[Path]:
    """What a folder's table must name: its modules (but ``__init__``) and packages."""
    return {
        path
        for path in folder.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py")
        or (path.is_dir() and (path / "__init__.py").is_file())
    }


def mention_exists(entry: Entry, mention: str, root: Path) -> bool:
    """A name of ``entry``'s description found in its folder, ``agency_site/`` or the root."""
    home = entry.path if entry.shown.endswith("/") else entry.path.parent
    return any(any(base.glob(mention.rstrip("/"))) for base in (home, root / "agency_site", root))


def problems(text: str, root: Path = ROOT) -> list[str]:
    """What the table says that the tree does not, and what the tree has it leaves out."""
    entries = parse(text, root)
    found: list[str] = []
    for entry in walk(entries):
        where = f"README.md:{entry.line}"
        shown = entry.path.relative_to(root)
        if not entry.spaced:
            found.append(f"{where}: put two spaces or more between {entry.shown} and its text")
        if not entry.path.exists():
            found.append(f"{where}: extra: {shown} is in the table, not in the tree")
        elif entry.shown.endswith("/") != entry.path.is_dir():
            kind = "a folder: end it with /" if entry.path.is_dir() else "a file: no final /"
            found.append(f"{where}: {shown} is {kind}")
        for mention in entry.mentions:
            if not mention_exists(entry, mention, root):
                found.append(
                    f"{where}: extra: {mention} (in the description of {shown}) is not in the tree"
                )
        if entry.children and entry.path.is_dir():
            named = {child.path for child in entry.children}
            for path in sorted(modules_and_packages(entry.path) - named):
                kind = "package" if path.is_dir() else "module"
                found.append(
                    f"{where}: missing: {path.relative_to(root)}{'/' if path.is_dir() else ''} "
                    f"({kind}) has no line under {shown}/"
                )
    return found


def test_the_readme_layout_is_the_tree():
    found = problems(README.read_text(encoding="utf-8"))
    assert not found, "The README's layout table and the tree differ:\n" + "\n".join(found)


def test_the_table_covers_the_code_package_line_by_line():
    """``agency_site/`` is listed module by module, so the completeness rule applies to it."""
    [code] = [e for e in parse(README.read_text(encoding="utf-8")) if e.shown == "agency_site/"]
    assert code.children


def test_a_missing_module_an_extra_name_and_a_wrong_mention_are_each_named(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for name in ("__init__.py", "a.py", "b.py", "sub/__init__.py", "sub/x.py"):
        (tmp_path / "pkg" / name).write_text("")
    (tmp_path / "docs").mkdir()
    readme = "\n".join(
        [
            SECTION,
            "",
            "```",
            "pkg/",
            "  a.py           first, see sub/x.py",
            "  gone.py        removed since",
            "  sub/           a package; its y.py and x.py",
            "docs/            how-to",
            "```",
        ]
    )
    assert problems(readme, tmp_path) == [
        "README.md:4: missing: pkg/b.py (module) has no line under pkg/",
        "README.md:6: extra: pkg/gone.py is in the table, not in the tree",
        "README.md:7: extra: y.py (in the description of pkg/sub) is not in the tree",
    ]


def test_a_name_and_its_text_are_two_spaces_apart(tmp_path):
    (tmp_path / "notes.md").write_text("")
    readme = "\n".join([SECTION, "```", "notes.md what it says", "```"])
    assert problems(readme, tmp_path) == [
        "README.md:3: put two spaces or more between notes.md and its text"
    ]

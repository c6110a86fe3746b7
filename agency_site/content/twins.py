"""A language's files against the Spanish ones: every ``content/es/`` file has its twin
under ``content/<locale>/`` with the same structure, and no text of the twin reads as
Spanish.

The same structure: the same keys in the same order, lists of the same length, the same
numbers and booleans; the same value where a string is a fact (an id, a link's target,
an icon, a path, a URL, an e-mail address, a ``{placeholder}`` alone); in every text the
same ``{placeholders}`` and the same figures (prices, hours, counts: the digits, in
order). A Markdown file: the same front matter, and a body with the same blocks (headings
of the same levels, lists of the same length, the same data blocks) and links to the same
targets.

Reads as Spanish: a text that has a word only Spanish writes (``y``, ``los``, ``para``,
``también``, ``-ción``...). A term kept in Spanish on purpose is named in ``KEPT_IN_SPANISH``
with the reason.

``python -m agency_site.content.twins`` prints every problem (``make content-check`` runs it).
"""

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from agency_site.content.loader import (
    CONTENT_DIR,
    DEFAULT_LOCALE,
    locale_dir,
    markdown_tree,
    shown,
    split_front_matter,
)

# The languages besides the default one, each a folder of twins.
TWIN_LOCALES: tuple[str, ...] = ("ca",)

# Keys whose string value is a fact, the same in every language.
FACT_KEYS = frozenset(
    {
        "id",
        "key",
        "href",
        "path",
        "icon",
        "gradient",
        "image",
        "src",
        "network",
        "kind",
        "slug",
        "order",
    }
)
# A string that is a fact wherever it is: a URL, a site path, an e-mail, a {placeholder}
# alone, a colour class list.
_FACT_VALUE = re.compile(
    r"\A(?:https?://\S+|/[\w\-/.]*|[\w.+-]+@[\w.-]+|\{[a-z][\w.]*\}|(?:from|to|via)-\S+(?: \S+)*)\Z"
)
_PLACEHOLDER = re.compile(r"\{[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\}")
_DIGITS = re.compile(r"\d+")
# Words only Spanish writes (Catalan: i, els/les, per a, amb, nostre, també, però, molt,
# des de, fins, més, anys, -ció); matched whole, in any case.
_SPANISH = re.compile(
    r"\b(?:y|los|las|para|con|nuestr[oa]s?|vuestr[oa]s?|está|están|también|pero|muy|desde|"
    r"hasta|más|años|hacemos|usted|ustedes|cuando|donde|sin embargo|\w+ción|\w+ciones|\w*ñ\w*)\b",
    re.IGNORECASE,
)
# A lower-case word: a text that has one and reads exactly as the Spanish is untranslated
# (names, brands and the English navigation labels are capitalised, and stay).
_COMMON_WORD = re.compile(r"(?<![\w{.])[a-záéíóúüñ]{4,}\b")
# Terms kept in Spanish on purpose, with why: matched and ignored before the check above.
KEPT_IN_SPANISH: dict[str, str] = {}
# Texts the same in every language on purpose (the "not translated" check skips them):
# the browser's own storage names the cookies policy lists, and Catalan words spelled as
# in Spanish with no other natural choice.
SAME_ON_PURPOSE = frozenset(
    {"token", "react-router-scroll-positions", "theme", "confirmada", "Jornada completa"}
)


def _spanish_words(text: str) -> list[str]:
    """The Spanish-only words of ``text``, terms kept on purpose aside."""
    for term in KEPT_IN_SPANISH:
        text = text.replace(term, "")
    text = _PLACEHOLDER.sub("", text)
    text = re.sub(r"https?://\S+|[\w.+-]+@[\w.-]+", "", text)
    return _SPANISH.findall(text)


def _compare(spanish: Any, twin: Any, where: str, key: str = "") -> Iterator[str]:
    """The differences of structure between two parsed trees, and Spanish left in ``twin``."""
    if isinstance(spanish, dict):
        if not isinstance(twin, dict) or list(spanish) != list(twin):
            yield f"{where}: keys {list(twin) if isinstance(twin, dict) else twin!r} differ from the Spanish {list(spanish)}"
            return
        for name in spanish:
            yield from _compare(spanish[name], twin[name], f"{where}.{name}", str(name))
    elif isinstance(spanish, list):
        if not isinstance(twin, list) or len(spanish) != len(twin):
            yield f"{where}: {len(twin) if isinstance(twin, list) else twin!r} items, the Spanish has {len(spanish)}"
            return
        for index, (a, b) in enumerate(zip(spanish, twin, strict=True)):
            yield from _compare(a, b, f"{where}.{index}", key)
    elif isinstance(spanish, str) and isinstance(twin, str):
        yield from _compare_text(spanish, twin, where, key)
    elif spanish != twin or type(spanish) is not type(twin):
        yield f"{where}: {twin!r}, the Spanish says {spanish!r}"


def _compare_text(spanish: str, twin: str, where: str, key: str) -> Iterator[str]:
    """One string: a fact is the same; a text keeps its placeholders and figures."""
    if key in FACT_KEYS or _FACT_VALUE.match(spanish.strip()):
        if twin != spanish:
            yield f"{where}: {twin!r} must be the same as in Spanish, {spanish!r}"
        return
    if sorted(_PLACEHOLDER.findall(twin)) != sorted(_PLACEHOLDER.findall(spanish)):
        yield f"{where}: placeholders {sorted(_PLACEHOLDER.findall(twin))} differ from the Spanish {sorted(_PLACEHOLDER.findall(spanish))}"
    if _DIGITS.findall(twin) != _DIGITS.findall(spanish):
        yield f"{where}: figures {_DIGITS.findall(twin)} differ from the Spanish {_DIGITS.findall(spanish)}"
    if words := _spanish_words(twin):
        yield f"{where}: reads as Spanish ({', '.join(sorted(set(words)))})"
    elif (
        twin == spanish
        and twin not in SAME_ON_PURPOSE
        and _COMMON_WORD.search(_PLACEHOLDER.sub("", twin))
    ):
        yield f"{where}: not translated ({twin[:60]!r})"


def _markdown_shape(body: str) -> Iterator[tuple[Any, ...]]:
    """The blocks of a Markdown body as comparable facts: types, levels, sizes, targets."""
    for node in markdown_tree(body).walk():
        if node.type == "heading":
            yield ("heading", node.tag)
        elif node.type in ("bullet_list", "ordered_list"):
            yield (node.type, len(node.children))
        elif node.type == "fence":
            yield ("fence", node.info.strip(), node.content)
        elif node.type == "link":
            yield ("link", node.attrs.get("href"))
        elif node.type in ("paragraph", "table", "tr"):
            yield (node.type, len(node.children))


def _texts(body: str) -> Iterator[str]:
    """The text of a Markdown body, line by line outside fenced blocks."""
    fenced = False
    for line in body.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            yield line


def _parse(path: Path) -> tuple[Any, str | None]:
    """A file's YAML (a Markdown file's front matter) and its Markdown body, if any."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        parts = split_front_matter(text)
        if parts is None:
            return None, text
        return yaml.safe_load(parts[0]), parts[1]
    return yaml.safe_load(text), None


def compare_file(name: str, locale: str) -> list[str]:
    """The problems of ``content/<locale>/<name>`` against ``content/es/<name>``."""
    spanish_path, twin_path = locale_dir(DEFAULT_LOCALE) / name, locale_dir(locale) / name
    where = shown(twin_path)
    if not twin_path.is_file():
        return [f"{where}: missing (the Catalan twin of {shown(spanish_path)})"]
    spanish, spanish_body = _parse(spanish_path)
    twin, twin_body = _parse(twin_path)
    problems = list(_compare(spanish, twin, where))
    if spanish_body is not None and twin_body is not None:
        if list(_markdown_shape(spanish_body)) != list(_markdown_shape(twin_body)):
            problems.append(
                f"{where}: the body's blocks (headings, lists, links, data blocks) differ "
                "from the Spanish"
            )
        body_where = f"{where}: body"
        spanish_text, twin_text = "\n".join(_texts(spanish_body)), "\n".join(_texts(twin_body))
        problems.extend(_compare_text(spanish_text, twin_text, body_where, ""))
    return problems


def files(locale: str) -> list[str]:
    """The names of a language's content files, relative to its folder."""
    folder = locale_dir(locale)
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def problems(locales: tuple[str, ...] = TWIN_LOCALES) -> list[str]:
    """Every problem of every twin language: missing, extra or different files."""
    found: list[str] = []
    spanish = files(DEFAULT_LOCALE)
    for locale in locales:
        for extra in sorted(set(files(locale)) - set(spanish)):
            found.append(f"{shown(locale_dir(locale) / extra)}: no Spanish file of that name")
        for name in spanish:
            found.extend(compare_file(name, locale))
    return found


def main() -> int:
    """Print every problem; exit 1 if there is any."""
    if found := problems():
        print("\n".join(found), file=sys.stderr)
        print(
            f"{len(found)} problem(s) in the translations under {shown(CONTENT_DIR)}",
            file=sys.stderr,
        )
        return 1
    print(f"Translations OK: {', '.join(TWIN_LOCALES)} mirror every Spanish file.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Start the JavaScript of a prerendered page only after its first paint.

Every page's text is already in its HTML. React Router's bootstrap, though, fetches
~170 KB of modules (and its ``<link rel="modulepreload">`` tags more) before the
first paint, and Lighthouse's simulated mobile load counts them against the largest
contentful paint. The build therefore rewrites each page so the module preloads and
the bootstrap start one frame after the first paint (``js/deferred_boot.js``): the
visitor reads at once and the page becomes interactive right after.

The rewrite knows the exact lines React Router 8.4 writes into the bootstrap of a
prerendered page (``Scripts`` in ``react-router/dist/*/lib/dom/ssr/components.js``)
and nothing else: any other line fails the build with the page and the line
(``HydrationBuildError``), because a line it does not understand, pasted into the
boot function, could stop every page from hydrating. Each rewritten script must then
pass ``node --check``.
"""

import json
import re
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from agency_site.reflex_ext.js import JsStatements, load_js, node_check

_PRELOAD = re.compile(r'<link rel="modulepreload"(?: fetchpriority="low")? href="([^"]+)"/>')
_BOOTSTRAP = re.compile(
    r'<script type="module" async="">(?P<body>[^<]*?window\.__reactRouterRouteModules'
    r"[^<]*?)</script>"
)
_MODULE = r'"([^"\\\s]+)"'
# React Router's bootstrap lines, each with the statement it becomes inside the boot function.
_LINES: tuple[tuple[re.Pattern, Callable[[re.Match], str]], ...] = (
    # The route manifest, imported for its side effects.
    (re.compile(rf"import {_MODULE};"), lambda m: f"await import({json.dumps(m[1])});"),
    # A route module (or one chunk of it): route0 = the root, route1 = the page.
    (
        re.compile(rf"import \* as (\w+) from {_MODULE};"),
        lambda m: f"const {m[1]} = await import({json.dumps(m[2])});",
    ),
    # A route split into chunks, put back together.
    (re.compile(r"const \w+ = \{\.\.\.\w+(?:,\.\.\.\w+)*\};"), lambda m: m[0]),
    # The route modules by route id, read by the client entry.
    (
        re.compile(r'window\.__reactRouterRouteModules = \{"[^"\\]+":\w+(?:,"[^"\\]+":\w+)*\};'),
        lambda m: m[0],
    ),
    # The client entry, which hydrates the page.
    (re.compile(rf"import\({_MODULE}\);"), lambda m: m[0]),
)


class HydrationBuildError(RuntimeError):
    """A page's bootstrap the build does not understand, or a rewrite that is not valid JS."""


def _statement(line: str) -> str | None:
    """The boot function's statement for one bootstrap line, or None if not recognised."""
    for pattern, statement in _LINES:
        if match := pattern.fullmatch(line):
            return statement(match)
    return None


def _boot_statements(html: str, body_start: int, body: str, source: str) -> list[str]:
    """Every line of the bootstrap ``body`` (at ``body_start`` in ``html``) as a statement."""
    statements = []
    first_line = html.count("\n", 0, body_start) + 1
    for number, raw in enumerate(body.split("\n"), start=first_line):
        line = raw.strip()
        if not line:
            continue
        statement = _statement(line)
        if statement is None:
            msg = (
                f"{source}:{number}: React Router's bootstrap has a line the build does not "
                f"recognise: {line[:200]!r}. Teach agency_site/reflex_ext/hydration.py its "
                "meaning (after a Reflex or React Router upgrade) instead of pasting it."
            )
            raise HydrationBuildError(msg)
        statements.append(statement)
    return statements


def deferred_bootstrap(statements: list[str], preloads: list[str]) -> str:
    """The code of the bootstrap that preloads and imports its modules after the first paint."""
    return load_js("deferred_boot.js", PRELOADS=preloads, BOOTSTRAP=JsStatements(tuple(statements)))


def _rewrite(html: str, source: str) -> tuple[str, str | None]:
    """The page's HTML rewritten, and the code of its deferred bootstrap (None: nothing to do)."""
    preloads = _PRELOAD.findall(html)
    bootstrap = _BOOTSTRAP.search(html)
    if bootstrap is None:
        if preloads:
            msg = (
                f"{source}: the page preloads modules but its React Router bootstrap "
                "was not recognised (agency_site/reflex_ext/hydration.py)."
            )
            raise HydrationBuildError(msg)
        return html, None
    statements = _boot_statements(html, bootstrap.start("body"), bootstrap["body"], source)
    code = deferred_bootstrap(statements, preloads)
    html = _PRELOAD.sub("", html)
    bootstrap = _BOOTSTRAP.search(html)
    script = f'<script type="module" async="">{code}</script>'
    return html[: bootstrap.start()] + script + html[bootstrap.end() :], code


def check_scripts(scripts: dict[str, str]) -> None:
    """Fail the build unless ``node --check`` accepts every script (by the page it goes in)."""
    distinct = {code: page for page, code in scripts.items()}
    with tempfile.TemporaryDirectory(prefix="deferred-boot-") as folder:
        files = {}
        for number, (code, page) in enumerate(distinct.items()):
            files[page] = Path(folder) / f"boot-{number}.mjs"
            files[page].write_text(code)
        with ThreadPoolExecutor(max_workers=4) as pool:
            problems = dict(zip(files, pool.map(node_check, files.values()), strict=True))
    failed = {page: problem for page, problem in problems.items() if problem}
    if failed:
        page, problem = next(iter(failed.items()))
        msg = (
            f"{page}: the rewritten bootstrap is not valid JavaScript "
            f"({len(failed)} page(s) in all); node --check says:\n{problem}"
        )
        raise HydrationBuildError(msg)


def defer_hydration(static_dir: Path) -> None:
    """Rewrite every prerendered page of the build (see the module docstring).

    Every page is rewritten and checked before any is written: a failed build leaves
    the pages as they were.
    """
    rewritten: dict[Path, str] = {}
    scripts: dict[str, str] = {}
    for page in sorted(static_dir.rglob("*.html")):
        html, code = _rewrite(page.read_text(), str(page))
        if code is not None:
            rewritten[page], scripts[str(page)] = html, code
    check_scripts(scripts)
    for page, html in rewritten.items():
        page.write_text(html)

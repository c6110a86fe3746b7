"""React Router's server entry with every page part inline: a page whose parts are React
``<Suspense>`` boundaries (``components/layout.py``) prerenders as plain HTML in document order.

Each part of a page (header, each section, footer) is a Suspense boundary so that React
hydrates them one by one: a tap while the page hydrates makes React hydrate at once only the
page's frame and the part tapped, not the whole page (the tap on load of ``make bench-inp``:
docs/benchmark.md). React's server renderer, though, sends a finished boundary larger than
``progressiveChunkSize`` (12,800 bytes by default) *after* the rest of the page, in a
``<div hidden>`` that an inline script moves into place: without JavaScript (the forms work
without it, crawlers) a page's sections would stay hidden. Nothing on these pages suspends,
so with an infinite ``progressiveChunkSize`` every boundary is inline, where it stands.

React Router 8.4 has no option for it: the build writes ``app/entry.server.jsx`` (which React
Router uses instead of its default) from the **pristine** default of the installed
``@react-router/dev`` with that one option added. The anchor is exact text that must occur
exactly once, and the file must render the page in exactly one place (``RENDER_CALLS``); the
result, its one JSX element set aside, must pass ``node --check``. Any difference fails the
build with an ``EntryServerBuildError`` naming it. A static asset of ``build_plugin.py``, which
Reflex asks for once the frontend packages are installed (the default lives in
``node_modules``) and writes with the compiled pages, before Vite builds.
"""

from pathlib import Path

from agency_site.reflex_ext.anchored_edits import AnchorMismatch, Edit, apply_edits, check_counts
from agency_site.reflex_ext.js import node_check_code

# React Router's default server entry for Node, as the installed @react-router/dev ships it.
PRISTINE = Path("node_modules/@react-router/dev/dist/config/defaults/entry.server.node.jsx")
# Where React Router looks for the app's own server entry.
TARGET = Path("app/entry.server.jsx")
# The one place the default renders a page: its element and the start of its options.
_ELEMENT = "      <ServerRouter context={routerContext} url={request.url} />,\n"
ANCHOR = _ELEMENT + "      {\n"
OPTION = (
    "        // Every Suspense boundary inline, in document order (agency_site/reflex_ext/"
    "entry_server.py).\n"
    "        progressiveChunkSize: Number.POSITIVE_INFINITY,\n"
)
# Every way the default could render a page: each text, how often.
RENDER_CALLS = {"renderToPipeableStream(": 1, "renderToReadableStream(": 0, "renderToString(": 0}


class EntryServerBuildError(RuntimeError):
    """React Router's default server entry is not the one this patch was written for."""


def _fail(what: str) -> EntryServerBuildError:
    return EntryServerBuildError(
        f"{PRISTINE}: {what}. React Router's default server entry changed: re-read it and "
        "update agency_site/reflex_ext/entry_server.py (ANCHOR, RENDER_CALLS), or the pages' "
        "sections would be prerendered after the page, hidden until a script moves them."
    )


def patch_entry_server(pristine: str) -> str:
    """The default entry with every boundary inline (raises ``EntryServerBuildError``)."""
    try:
        check_counts(pristine, RENDER_CALLS)
        patched = apply_edits(pristine, [Edit("the page's render call", ANCHOR, ANCHOR + OPTION)])
    except AnchorMismatch as mismatch:
        raise _fail(str(mismatch)) from None
    # node reads no JSX: the one element is set aside for the syntax check.
    if problem := node_check_code(patched.replace(_ELEMENT, "      null,\n"), "entry.server.js"):
        raise _fail(f"the patched file is not valid JavaScript; node --check says:\n{problem}")
    return patched


def entry_server_asset(web_dir: Path) -> tuple[str, str]:
    """``app/entry.server.jsx`` (its path under ``web_dir``, its text) from the default
    installed in ``web_dir`` (a static asset of the build plugin)."""
    source = web_dir / PRISTINE
    if not source.is_file():
        raise _fail("not found (are the frontend packages installed?)")
    return str(TARGET), patch_entry_server(source.read_text())

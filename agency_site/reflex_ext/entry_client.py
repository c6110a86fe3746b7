"""React Router's client entry with the hydration one task later: a tap that came while the
page's modules were evaluated is answered by the browser before React listens.

Reflex's ``app/entry.client.js`` calls ``hydrateRoot`` in the same task that evaluates
React DOM (the largest module, about 40 ms of a 4x-throttled phone's CPU). A tap during that
task waits for it, and by then React listens at the document: it hydrates the page at once,
synchronously, to replay the tap (``make bench-inp``'s "tap on load": React's
``dispatchDiscreteEvent`` 100-200 ms of script). Started from a ``setTimeout`` instead, the
tap queued meanwhile is dispatched first, to a page React does not listen to yet: the
browser focuses the field natively (the forms' hooks see a field focused before hydration:
``form_http_fallback.js``, ``lazy_socket.js``), and React hydrates after, in its time slices.

The build writes ``app/entry.client.js`` from Reflex's **pristine** template with that one
change (the plugin says it provides the entry, so Reflex does not write its own over it). The
anchor is exact text that must occur exactly once and ``hydrateRoot(`` must be called exactly
once; the result must pass ``node --check``. Any difference fails the build with an
``EntryClientBuildError`` naming it.
"""

from agency_site.reflex_ext.anchored_edits import AnchorMismatch, Edit, apply_edits, check_counts
from agency_site.reflex_ext.internals import WEB_TEMPLATE_DIR
from agency_site.reflex_ext.js import node_check_code

# Where Reflex's template lies and where React Router reads the app's client entry.
ENTRY_CLIENT = "app/entry.client.js"
# The one place the template hydrates the page.
ANCHOR = """startTransition(() => {
  hydrateRoot(document, createElement(HydratedRouter));
});
"""
REPLACEMENT = """// One task later: a tap queued while the modules were evaluated reaches the page before
// React listens to it (agency_site/reflex_ext/entry_client.py).
setTimeout(() => {
  startTransition(() => {
    hydrateRoot(document, createElement(HydratedRouter));
  });
}, 0);
"""
# Every way the template could hydrate or render: each text, how often.
HYDRATE_CALLS = {"hydrateRoot(": 1, "createRoot(": 0, "render(": 0}


class EntryClientBuildError(RuntimeError):
    """Reflex's client entry is not the one this patch was written for."""


def _fail(what: str) -> EntryClientBuildError:
    return EntryClientBuildError(
        f"{WEB_TEMPLATE_DIR / ENTRY_CLIENT}: {what}. Reflex's client entry changed: re-read it "
        "and update agency_site/reflex_ext/entry_client.py (ANCHOR, HYDRATE_CALLS), or a tap "
        "while a page loads would wait for the whole page's hydration."
    )


def patch_entry_client(template: str) -> str:
    """The template with the hydration one task later (raises ``EntryClientBuildError``)."""
    try:
        check_counts(template, HYDRATE_CALLS)
        patched = apply_edits(template, [Edit("the page's hydration", ANCHOR, REPLACEMENT)])
    except AnchorMismatch as mismatch:
        raise _fail(str(mismatch)) from None
    if problem := node_check_code(patched, "entry.client.js"):
        raise _fail(f"the patched file is not valid JavaScript; node --check says:\n{problem}")
    return patched


def entry_client() -> tuple[str, str]:
    """A save task of the build plugin: ``app/entry.client.js``, patched and checked."""
    return ENTRY_CLIENT, patch_entry_client((WEB_TEMPLATE_DIR / ENTRY_CLIENT).read_text())

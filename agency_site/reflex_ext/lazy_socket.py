"""The websocket opens only for a visitor who uses a form: Reflex's ``utils/state.js`` patched.

Stock Reflex 0.10.1 opens the websocket on every page load of an app with backend state
(a "warm" transport before React mounts, then ``ensureSocketConnected`` when the event
loop mounts), sends ``hydrate_and_load`` in the CONNECT packet and ``on_load_internal``
on every client-side navigation. This site needs the backend for its forms only, so the
build writes ``.web/utils/state.js`` from Reflex's **pristine** template (the ``.web``
copy is only refreshed on a Reflex upgrade, so a rebuild would see its own patch) with
``js/lazy_socket.js`` pasted after the imports and these changes (``_EDITS``):

- socket.io-client is imported when the first socket is created, not with every page;
- the warm transport and ``ensureSocketConnected`` do nothing until the socket is wanted;
- every batch of events a component queues goes through ``lazyEvents`` first;
- the event loop watches for a focus inside a ``<form>`` and then connects;
- ``getBackendURL`` answers the page's own origin on a one-origin build (``backend_origin.py``).

Each anchor is exact text that must occur exactly once in the template; the number of
places the template creates or connects a socket is counted too (``CONNECT_PATHS``), so
a Reflex upgrade with a new way to open the socket fails the build instead of opening it
for every reader. The result must pass ``node --check``. Any difference is a
``LazySocketBuildError`` naming the anchor.
"""

from agency_site.paths import CLIENT_ERRORS
from agency_site.reflex_ext.anchored_edits import AnchorMismatch, Edit, apply_edits, check_counts
from agency_site.reflex_ext.backend_origin import get_backend_url_edit
from agency_site.reflex_ext.internals import WEB_TEMPLATE_DIR
from agency_site.reflex_ext.js import load_js, node_check_code

STATE_JS = "utils/state.js"
MAX_REPORT_CHARS = 2000

# Every way Reflex 0.10.1's state.js creates or connects a socket: each text, how often.
CONNECT_PATHS: dict[str, int] = {
    'import io from "socket.io-client";': 1,  # The library, imported with every page.
    "io(endpoint.href": 1,  # createSocket: the only constructor call.
    "createSocket(": 2,  # The warm transport and connect().
    "export const connect = async (": 1,
    "await connect(": 1,  # ensureSocketConnected.
    "ensureSocketConnected(": 3,  # addEvents, the mount effect, the main event loop.
    ".connect();": 2,  # The first connect and reconnect().
    ".io.open(": 1,  # The warm transport.
}


_CONNECT_SIGNATURE = """export const connect = async (
  socket,
  dispatch,
  transports,
  setConnectErrors,
  client_storage = {},
  navigate,
  params,
) => {
"""
_ENSURE_GATE = """      Object.keys(app.initialState).length > 1 &&
      !isBackendDisabled() &&
      !socket.current?.connected"""
_WARM_GATE = """      socketStarted ||
      Object.keys(app.initialState ?? {}).length <= 1 ||"""
_ADD_EVENTS = """  const addEvents = useCallback((events, args, event_actions) => {
    const _events = normalizeEvents(events);"""
_MAIN_LOOP = """  // Main event loop.
  useEffect(() => {"""
_LAST_IMPORT = 'import { uploadFiles } from "$/utils/helpers/upload";\n'


def _edits() -> tuple[Edit, ...]:
    """The changes to the template, in the order they are applied."""
    code = load_js(
        "lazy_socket.js", CLIENT_ERROR_PATH=CLIENT_ERRORS, MAX_REPORT_CHARS=MAX_REPORT_CHARS
    )
    return (
        Edit("socket.io-client import", 'import io from "socket.io-client";\n', ""),
        Edit("after the imports", _LAST_IMPORT, f"{_LAST_IMPORT}\n{code}\n"),
        Edit("warm transport gate", _WARM_GATE, f"      !socketWanted ||\n{_WARM_GATE}"),
        Edit(
            "connect() loads socket.io",
            _CONNECT_SIGNATURE,
            _CONNECT_SIGNATURE + "  await loadSocketIo();\n",
        ),
        Edit("ensureSocketConnected gate", _ENSURE_GATE, f"      socketWanted &&\n{_ENSURE_GATE}"),
        Edit(
            "addEvents filter",
            _ADD_EVENTS,
            _ADD_EVENTS.replace(
                "normalizeEvents(events)", "lazyEvents(normalizeEvents(events), socket)"
            ),
        ),
        Edit(
            "form focus watch",
            _MAIN_LOOP,
            "  // The socket opens when a form is used (lazy_socket.js).\n"
            "  useEffect(() => watchFormFocus(ensureSocketConnected, socket), []);\n\n"
            + _MAIN_LOOP,
        ),
        Edit("backend on the page's origin", *get_backend_url_edit()),
    )


class LazySocketBuildError(RuntimeError):
    """Reflex's state.js is not the one the lazy-socket patch was written for."""


def _fail(what: str) -> LazySocketBuildError:
    return LazySocketBuildError(
        f"{STATE_JS}: {what}. Reflex's template changed: re-read it and update "
        "agency_site/reflex_ext/lazy_socket.py (its anchors and CONNECT_PATHS), or every "
        "reader would open a websocket."
    )


def check_connect_paths(template: str) -> None:
    """Fail unless the template creates and connects sockets exactly where we expect."""
    try:
        check_counts(template, CONNECT_PATHS)
    except AnchorMismatch as mismatch:
        raise _fail(str(mismatch)) from None


def patch_state_js(template: str) -> str:
    """The pristine ``state.js`` text with the lazy socket (raises ``LazySocketBuildError``)."""
    check_connect_paths(template)
    try:
        return apply_edits(template, _edits())
    except AnchorMismatch as mismatch:
        raise _fail(str(mismatch)) from None


def pristine_state_js() -> str:
    """The ``state.js`` of the installed Reflex, as it ships."""
    return (WEB_TEMPLATE_DIR / STATE_JS).read_text()


def lazy_state_js() -> tuple[str, str]:
    """A save task of the build plugin: ``utils/state.js`` patched and checked by node."""
    patched = patch_state_js(pristine_state_js())
    if problem := node_check_code(patched, "state.js"):
        raise _fail(f"the patched file is not valid JavaScript; node --check says:\n{problem}")
    return STATE_JS, patched

"""What the site assumes of Reflex's internals (agency_site/reflex_ext), checked against Reflex."""

import ast
import logging
from pathlib import Path
from types import SimpleNamespace

import pytest
import reflex as rx

from agency_site.agency_site import app
from agency_site.components import form_hooks, form_layouts
from agency_site.forms.declarations import BOOKING
from agency_site.reflex_ext import connection_overlay
from agency_site.reflex_ext.client_state import refs_keys
from agency_site.reflex_ext.internals import FORM_DATA_ENTRIES_KEY, WEB_TEMPLATE_DIR, static_dir
from agency_site.reflex_ext.js import (
    PATCH_JS_DIR,
    SITE_JS_DIR,
    JsName,
    JsStatements,
    js_files,
    load_js,
    node_check,
)
from agency_site.state import ui
from agency_site.state.form_states import BookingFormState
from tests.run_async import run

SITE_HOOK_VARS = {
    "nav_scrolled": ui.nav_scrolled,
    "menu_effects": ui.menu_effects,
    "page_fades": ui.page_fades,
    "close_menus": ui.close_menus(),
    "booking_dates": form_hooks.MIN_DATE,
    "slot_filter": form_hooks.slot_filter(BOOKING, BOOKING.field("time")),
    "http_fallback": form_hooks.HTTP_FALLBACKS[BookingFormState].hook,
    "form_challenge": form_layouts.challenge_loader(BOOKING),
}


PACKAGE = Path(__file__).resolve().parents[1] / "agency_site"


@pytest.mark.parametrize("path", js_files(), ids=lambda path: path.name)
def test_every_js_file_is_valid_javascript_as_written(path: Path) -> None:
    assert node_check(path) == ""


@pytest.mark.parametrize(
    "code", ['import x from "y";\nvar z = ;\n', "export default } f(1);\n", "var z = ;\n"]
)
def test_a_broken_js_file_is_refused_module_or_script(code: str, tmp_path: Path) -> None:
    """node --check alone passes a broken .js file with imports (its module detection)."""
    path = tmp_path / "broken.js"
    path.write_text(code)
    problem = node_check(path)
    assert "SyntaxError" in problem and str(path) in problem
    path.write_text(code.replace(" = ;", " = 1;").replace(" } ", " "))
    assert node_check(path) == ""


def _loaders(name: str) -> set[Path]:
    """The Python files of the site that name the browser code file ``name``."""
    return {path for path in PACKAGE.rglob("*.py") if f'"{name}"' in path.read_text()}


@pytest.mark.parametrize("path", js_files(), ids=lambda path: path.name)
def test_reflex_s_patched_code_is_behind_the_fence_and_the_site_s_beside_its_components(
    path: Path,
) -> None:
    """A file of reflex_ext/js/ is loaded by reflex_ext alone (it patches Reflex's code);
    one of components/js/ is the site's own feature, loaded outside reflex_ext."""
    fence = PACKAGE / "reflex_ext"
    loaders = _loaders(path.name)
    assert loaders, f"{path} is loaded by nothing"
    inside = {loader for loader in loaders if loader.is_relative_to(fence)}
    assert [js.name for js in js_files()].count(path.name) == 1
    if path.parent == PATCH_JS_DIR:
        assert inside == loaders, f"{path} (a patch of Reflex) is loaded outside the fence"
    else:
        assert path.parent == SITE_JS_DIR
        assert not inside, f"{path} (the site's own) is loaded by {inside}: move it"


def _fence_breaches(path: Path) -> list[str]:
    """What a module outside the fence does that only reflex_ext may: import Reflex other than
    as ``import reflex as rx`` (``reflex_base``, ``reflex.utils``...), or set ``__module__``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias for alias in node.names if alias.name.split(".")[0].startswith("reflex")]
            found += [
                f"import {alias.name}"
                for alias in names
                if (alias.name, alias.asname) != ("reflex", "rx")
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reflex"):
            found.append(f"from {node.module} import ...")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "__module__"
            and isinstance(node.ctx, ast.Store)
        ):
            found.append("sets __module__")
    return [f"{path.relative_to(PACKAGE.parent)}:{what}" for what in found]


def test_outside_the_fence_the_site_uses_reflex_as_rx_only() -> None:
    fence = PACKAGE / "reflex_ext"
    breaches = [
        breach
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.is_relative_to(fence)
        for breach in _fence_breaches(path)
    ]
    assert not breaches, "Reflex internals outside agency_site/reflex_ext:\n" + "\n".join(breaches)


def test_a_file_in_neither_folder_is_an_error() -> None:
    with pytest.raises(FileNotFoundError, match="neither folder"):
        load_js("no_such_file.js")


@pytest.mark.parametrize("name", sorted(SITE_HOOK_VARS))
def test_the_site_s_browser_code_is_valid_javascript_once_filled_in(
    name: str, tmp_path: Path
) -> None:
    var = SITE_HOOK_VARS[name]
    code = [*var._get_all_var_data().hooks, str(var)]
    file = tmp_path / f"{name}.mjs"
    file.write_text("\n".join(code))
    assert node_check(file) == ""


def test_placeholders_and_values_must_match() -> None:
    with pytest.raises(ValueError, match="THRESHOLD_PX"):
        load_js("nav_scrolled.js")
    with pytest.raises(ValueError, match="EXTRA"):
        load_js("nav_scrolled.js", THRESHOLD_PX=10, EXTRA=1)
    assert "window.scrollY > 10)" in load_js("nav_scrolled.js", THRESHOLD_PX=10)


def test_values_are_json_names_are_bare_and_statements_take_whole_lines() -> None:
    code = load_js("page_fades.js", NAVIGATED_FLAG=JsName("__flag"))
    assert "window.__flag === true" in code
    with pytest.raises(ValueError):
        JsName('x"; alert(1); "')
    boot = load_js("deferred_boot.js", PRELOADS=["/a.js"], BOOTSTRAP=JsStatements(("a();", "b();")))
    assert 'const __preloads = ["/a.js"];' in boot
    assert "\na();\nb();\n};" in boot


def test_client_state_keys_are_where_reflex_keeps_the_value_and_the_setter() -> None:
    value, setter = refs_keys(ui.services_open)
    hooks = "\n".join(ui.services_open._get_all_var_data().hooks)
    assert f"refs['{value}'] ??=" in hooks
    assert f"refs['{setter}'] =" in hooks
    assert f"refs['{setter}']" in str(ui.services_open.set_value(False))


def test_the_connection_overlay_is_a_default_app_wrap_and_the_site_drops_it() -> None:
    defaults = rx.App.__dataclass_fields__["app_wraps"].default_factory()
    assert connection_overlay._OVERLAY in defaults
    assert connection_overlay._OVERLAY not in app.app_wraps

    # A Reflex that no longer has the wrap fails the site's start, saying what to re-check.
    defaults.pop(connection_overlay._OVERLAY)
    with pytest.raises(RuntimeError, match="Overlay"):
        connection_overlay.drop_connection_overlay(SimpleNamespace(app_wraps=defaults))


def test_socketio_routes_websocket_events_through_the_site_s_guard(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        run(app.event_namespace.trigger_event("event", "sid", ["not", "an", "event"]))
    assert "Refused a crafted websocket event" in caplog.text


def test_a_form_s_entries_travel_under_the_key_the_guard_checks() -> None:
    state_js = (WEB_TEMPLATE_DIR / "utils" / "state.js").read_text()
    assert f'const FORM_DATA_ENTRIES_KEY = "{FORM_DATA_ENTRIES_KEY}";' in state_js


def test_the_frontend_build_is_where_the_server_looks_for_pages() -> None:
    assert static_dir().parts[-3:] == (".web", "build", "client")

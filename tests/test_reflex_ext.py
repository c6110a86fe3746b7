"""What the site assumes of Reflex's internals (agency_site/reflex_ext), checked against Reflex."""

import logging
from pathlib import Path
from types import SimpleNamespace

import pytest
import reflex as rx

from agency_site.agency_site import app
from agency_site.components import form_hooks
from agency_site.forms.declarations import BOOKING
from agency_site.reflex_ext import connection_overlay
from agency_site.reflex_ext.client_state import refs_keys
from agency_site.reflex_ext.internals import FORM_DATA_ENTRIES_KEY, WEB_TEMPLATE_DIR, static_dir
from agency_site.reflex_ext.js import JS_DIR, JsName, JsStatements, load_js, node_check
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
}


@pytest.mark.parametrize("name", sorted(path.name for path in JS_DIR.glob("*.js")))
def test_every_js_file_is_valid_javascript_as_written(name: str) -> None:
    assert node_check(JS_DIR / name) == ""


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

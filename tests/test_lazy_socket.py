"""The lazy websocket's build patch and the guards that keep readers off the backend."""

import json
import logging

import httpx
import pytest
from starlette.applications import Starlette

from agency_site.agency_site import app
from agency_site.client_errors import MAX_BODY_BYTES, PER_ADDRESS, create_app, one_line
from agency_site.paths import CLIENT_ERRORS
from agency_site.reflex_ext import lazy_socket
from agency_site.reflex_ext.internals import compile_client_storage
from agency_site.reflex_ext.lazy_socket import (
    CONNECT_PATHS,
    LazySocketBuildError,
    lazy_state_js,
    patch_state_js,
    pristine_state_js,
)
from tests.run_async import run

SITE = "http://localhost:3000"


def test_the_installed_reflex_opens_sockets_only_where_the_patch_expects() -> None:
    template = pristine_state_js()
    assert {text: template.count(text) for text in CONNECT_PATHS} == CONNECT_PATHS


def test_a_new_upstream_connect_path_fails_the_build() -> None:
    template = pristine_state_js() + "\nsocket.current.connect();\n"
    with pytest.raises(LazySocketBuildError, match=r"'\.connect\(\);' occurs 3"):
        patch_state_js(template)


def test_a_missing_anchor_fails_the_build_naming_it() -> None:
    template = pristine_state_js().replace("  // Main event loop.\n", "  // The loop.\n")
    with pytest.raises(LazySocketBuildError, match="form focus watch"):
        patch_state_js(template)


def test_the_patched_state_js_is_valid_and_gated() -> None:
    path, code = lazy_state_js()  # node --check runs inside
    assert path == "utils/state.js"
    assert 'import io from "socket.io-client";' not in code
    assert 'await import("socket.io-client")' in code
    assert code.count("socketWanted &&") == 1
    assert code.count("!socketWanted ||") == 1
    assert "lazyEvents(normalizeEvents(events), socket)" in code
    assert "watchFormFocus(ensureSocketConnected, socket)" in code
    assert "export const socketConnected = " in code
    assert json.dumps(CLIENT_ERRORS) in code


def test_the_build_writes_state_js_from_the_pristine_template() -> None:
    # A rebuild must not patch an already-patched file: the source is Reflex's template.
    assert lazy_socket.pristine_state_js().count("let socketWanted") == 0


def test_no_page_has_an_on_load_event() -> None:
    with_on_load = [route for route, page in app._unevaluated_pages.items() if page.on_load]
    assert with_on_load == []


def test_no_state_keeps_values_in_browser_storage() -> None:
    storage = compile_client_storage(app._state)
    assert storage == {"cookies": {}, "local_storage": {}, "session_storage": {}}


def test_no_form_field_takes_the_focus_by_itself() -> None:
    rendered = [
        json.dumps(
            page.component().render() if callable(page.component) else page.component.render()
        )
        for page in app._unevaluated_pages.values()
    ]
    assert not [text for text in rendered if "autoFocus" in text or "auto_focus" in text]


class Client:
    """Posts to the error-report endpoint of one app (one rate limiter)."""

    def __init__(self) -> None:
        self.app: Starlette = create_app(allowed_origins=[SITE], trusted_hops=0)

    def post(self, body: str, origin: str = SITE) -> int:
        async def request() -> int:
            transport = httpx.ASGITransport(app=self.app, client=("203.0.113.9", 1234))
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
                answer = await http.post(CLIENT_ERRORS, content=body, headers={"origin": origin})
                return answer.status_code

        return run(request())


@pytest.fixture
def client() -> Client:
    return Client()


def test_a_reader_s_error_report_is_one_bounded_log_line(client: Client, caplog) -> None:
    report = {"page": "/about", "info": "TypeError: x\n" + "y" * 3_000}
    with caplog.at_level(logging.WARNING, logger="agency_site.client_errors"):
        assert client.post(json.dumps(report)) == 204
    (line,) = [record.getMessage() for record in caplog.records]
    assert line.startswith("Browser error on /about: TypeError: x\\n")
    assert "\n" not in line and len(line) < 700


def test_error_reports_are_capped_rate_limited_and_from_the_site_only(client: Client) -> None:
    assert client.post("x" * (MAX_BODY_BYTES + 1)) == 413
    assert client.post("{}", origin="https://evil.example") == 403
    answers = [client.post("not json") for _ in range(PER_ADDRESS + 2)]
    assert 429 in answers and answers.count(204) <= PER_ADDRESS


def test_one_line_escapes_control_characters_and_bounds_length() -> None:
    assert one_line("a\nb\x1b", 100) == "a\\nb\\x1b"
    assert len(one_line("é" * 1000, 50)) == 50

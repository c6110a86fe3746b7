"""One server, any of its names: a one-origin build reaches the backend at the page's own
origin, and the backend takes a request from the host it was sent to."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agency_site.reflex_ext import backend_origin
from agency_site.reflex_ext.backend_origin import (
    GET_BACKEND_URL_ANCHOR,
    accept_own_origin,
    one_origin,
    own_origin,
    socket_origins,
)
from agency_site.reflex_ext.lazy_socket import patch_state_js, pristine_state_js
from agency_site.site_api import origin_allowed

SITE = "https://www.example.es"


def test_one_origin_is_the_api_and_the_site_on_the_same_scheme_host_and_port() -> None:
    assert one_origin("http://localhost:3000", "http://localhost:3000")
    assert one_origin("https://www.example.es/", "https://www.example.es")
    assert not one_origin("http://localhost:8000", "http://localhost:3000")
    assert not one_origin("https://api.example.es", "https://www.example.es")
    assert not one_origin("http://www.example.es", "https://www.example.es")


def test_the_forms_post_to_the_page_s_origin_only_on_one_origin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(backend_origin, "one_origin", lambda *urls: True)
    assert backend_origin.backend_base() == ""
    monkeypatch.setattr(backend_origin, "one_origin", lambda *urls: False)
    assert backend_origin.backend_base() == backend_origin.get_config().api_url.rstrip("/")


def test_get_backend_url_s_anchor_is_in_reflex_s_template_once_and_patched() -> None:
    template = pristine_state_js()
    assert template.count(GET_BACKEND_URL_ANCHOR) == 1
    patched = patch_state_js(template)
    flag = "true" if one_origin() else "false"
    assert f'if (typeof window !== "undefined" && {flag}) {{' in patched
    assert "endpoint.host = window.location.host;" in patched


def test_a_request_from_the_host_it_was_sent_to_is_allowed_whatever_its_name() -> None:
    for host in ("localhost:3000", "127.0.0.1:3000", "0.0.0.0:3000", "[::1]:3000"):
        assert origin_allowed({"origin": f"http://{host}", "host": host}, (SITE,))
        assert origin_allowed({"referer": f"http://{host}/contact", "host": host}, (SITE,))
    # Another site, whatever host it names, is not.
    assert not origin_allowed({"origin": "http://evil.example", "host": "127.0.0.1:3000"}, ())
    assert not origin_allowed({"origin": "http://127.0.0.1:3000"}, ())  # No Host: not own.
    assert not origin_allowed({"origin": "null", "host": "null"}, ())


@given(
    sent=st.text(max_size=40),
    host=st.text(max_size=30),
)
def test_own_origin_is_exactly_the_host_the_request_was_sent_to(sent: str, host: str) -> None:
    if own_origin(sent, {"host": host}):
        assert sent in (f"http://{host}", f"https://{host}")


def test_the_socket_handshake_takes_the_site_s_origins_and_its_own_host() -> None:
    import engineio

    server = engineio.AsyncServer(async_mode="asgi", cors_allowed_origins=[SITE])
    server.cors_allowed_origins = socket_origins([SITE])

    def allowed(origin: str, host: str) -> bool:
        environ = {"HTTP_ORIGIN": origin, "HTTP_HOST": host, "wsgi.url_scheme": "http"}
        return origin in (server._cors_allowed_origins(environ) or [])

    assert allowed(SITE, "backend:8000")
    assert allowed("http://127.0.0.1:3000", "127.0.0.1:3000")
    assert not allowed("http://evil.example", "127.0.0.1:3000")


def test_the_app_s_socket_checks_its_handshake_with_the_site_s_rule() -> None:
    from agency_site.agency_site import app

    check = app.sio.eio.cors_allowed_origins
    assert callable(check)
    assert check("http://127.0.0.1:3000", {"HTTP_HOST": "127.0.0.1:3000"})
    assert not check("http://evil.example", {"HTTP_HOST": "127.0.0.1:3000"})

    class NoSocket:
        sio = None

    with pytest.raises(RuntimeError):
        accept_own_origin(NoSocket(), [SITE])

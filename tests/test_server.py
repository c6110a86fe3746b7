"""The production middleware: clean page URLs, real 404s and security headers."""

import asyncio
from pathlib import Path
from urllib.parse import unquote

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route
from starlette.staticfiles import StaticFiles

from agency_site.reflex_ext.internals import get_config
from agency_site.server import SiteMiddleware
from agency_site.settings import get_settings
from agency_site.web_base.security_headers import (
    HEADER_POLICY,
    asset_headers,
    content_security_policy,
    document_headers,
    is_document,
    security_headers,
)
from tests.run_async import run


class Client:
    """Sync GET requests to an ASGI app, in process."""

    def __init__(self, app) -> None:
        self.app = app

    def get(self, path: str) -> httpx.Response:
        async def request() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://site") as client:
                return await client.get(path)

        return run(request())


@pytest.fixture
def client(tmp_path: Path) -> Client:
    """The middleware around a static build like Reflex's (page.html and page/index.html)."""
    (tmp_path / "about").mkdir()
    (tmp_path / "about" / "index.html").write_text("about (dir)")
    (tmp_path / "about.html").write_text("about")
    (tmp_path / "index.html").write_text("home")
    (tmp_path / "404.html").write_text("Página no encontrada")
    (tmp_path / "ca" / "about").mkdir(parents=True)
    (tmp_path / "ca.html").write_text("inici")
    (tmp_path / "ca" / "about.html").write_text("sobre nosaltres")
    (tmp_path / "ca" / "404.html").write_text("Pàgina no trobada")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "entry-Ab12.js").write_text("js")
    (tmp_path / "assets" / "font-Ab12.woff2").write_bytes(b"wOF2")
    (tmp_path / "robots.txt").write_text("User-agent: *")
    static = StaticFiles(directory=tmp_path, html=True)
    return Client(SiteMiddleware(static, pages_dir=tmp_path))


def test_page_path_is_served_without_redirect(client: Client) -> None:
    response = client.get("/about")
    assert response.status_code == 200
    assert response.text == "about"


def test_trailing_slash_redirects_permanently_to_the_canonical_path(client: Client) -> None:
    response = client.get("/about/?utm=x")
    assert response.status_code == 308
    assert response.headers["location"] == "/about?utm=x"


def test_home_and_unknown_paths_keep_their_answers(client: Client) -> None:
    assert client.get("/").text == "home"
    for path in ("/portfolio", "/404", "/services"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.text == "Página no encontrada"


def test_catalan_pages_are_served_and_unknown_catalan_paths_get_the_catalan_404(
    client: Client,
) -> None:
    assert (client.get("/ca").text, client.get("/ca/about").text) == ("inici", "sobre nosaltres")
    assert client.get("/ca/about/").headers["location"] == "/ca/about"
    for path in ("/ca/portfolio", "/ca/404", "/ca/services/nothing"):
        response = client.get(path)
        assert (response.status_code, response.text) == (404, "Pàgina no trobada"), path
        assert "Content-Security-Policy" in response.headers
    assert client.get("/cat").text == "Página no encontrada"  # Not a Catalan path.


def test_documents_carry_both_header_sets(client: Client) -> None:
    for path in ("/", "/about", "/portfolio"):
        headers = client.get(path).headers
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "strict-origin-when-cross-origin"
        assert headers["x-frame-options"] == "SAMEORIGIN"
        assert headers["cross-origin-opener-policy"] == "same-origin"
        assert "camera=()" in headers["permissions-policy"]
        # The short header: the page carries the rest in its <meta> (tests/test_security_headers.py).
        assert headers["content-security-policy"] == HEADER_POLICY


def test_assets_and_other_answers_carry_the_asset_set_only(client: Client) -> None:
    """A script, font or JSON answer is no document: ~3 KB of CSP on each would be waste."""
    for path in ("/assets/entry-Ab12.js", "/assets/font-Ab12.woff2", "/robots.txt", "/about/"):
        headers = client.get(path).headers
        assert headers["x-content-type-options"] == "nosniff", path
        for name in document_headers():
            assert name.lower() not in headers, (path, name)


def test_a_document_is_told_by_its_content_type() -> None:
    assert is_document("text/html; charset=utf-8") and is_document("TEXT/HTML")
    for content_type in ("application/json", "text/javascript", "", "text/htmlx"):
        assert not is_document(content_type), content_type


def test_the_backend_s_own_pages_get_the_whole_policy_as_a_header(tmp_path: Path) -> None:
    """A form answer or booking page under /_site/ has no <meta> policy of its own."""

    async def answer(request: Request) -> HTMLResponse:
        return HTMLResponse("<h1>Gracias</h1>")

    backend = Starlette(routes=[Route("/_site/forms/contact", answer)])
    app = SiteMiddleware(backend, pages_dir=tmp_path)
    policy = Client(app).get("/_site/forms/contact").headers["content-security-policy"]
    assert policy == content_security_policy(get_config().api_url, get_settings().site_url)
    assert "script-src 'self';" in policy and "frame-ancestors 'self'" in policy


def test_hsts_only_for_an_https_site_and_on_every_answer() -> None:
    assert "Strict-Transport-Security" not in security_headers("http://x")
    assert "Strict-Transport-Security" in security_headers("https://x")
    assert "Strict-Transport-Security" in asset_headers("https://x")


def test_hashed_bundles_are_cached_for_a_year_pages_are_not(client: Client) -> None:
    assert client.get("/assets/entry-Ab12.js").headers["cache-control"] == (
        "public, max-age=31536000, immutable"
    )
    assert "cache-control" not in client.get("/about").headers
    assert "cache-control" not in client.get("/assets/missing.js").headers


@pytest.mark.parametrize(
    "path",
    [
        "/%2Fevil.com%2F..%2Fabout/",
        "//evil.com/../about/",
        "/%5Cevil.com/../about/",
        "/%5C%5Cevil.com%2F..%2Fabout/",
        "/\\evil.com/../about/",
        "/.%2E/about/",
        "/%2E%2E/about/",
        "/%2e%2e%2fabout/",
        "//about/",
        "/about//",
        "/ABOUT/",
        "/evil.com%2F%2E%2E%2Fabout/",
    ],
)
def test_a_slash_redirect_never_leaves_the_site(client: Client, path: str) -> None:
    """Sent as is (no client-side normalisation): any redirect stays on the site."""
    status, headers = raw_get(client.app, path)
    location = headers.get("location")
    assert location in (None, "/about"), (path, status, location)


def raw_get(app, raw_path: str) -> tuple[int, dict[str, str]]:
    """GET ``raw_path`` exactly as a server would pass it on: the path percent-decoded once."""
    messages: list[dict] = []
    scope = {
        "type": "http",
        "method": "GET",
        "path": unquote(raw_path),
        "raw_path": raw_path.encode(),
        "query_string": b"",
        "headers": [],
        "scheme": "http",
        "server": ("site", 80),
        "root_path": "",
    }

    requests = [{"type": "http.request", "body": b""}]

    async def receive() -> dict:
        if requests:
            return requests.pop()
        await asyncio.sleep(3600)  # No disconnect while the answer is sent.
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        messages.append(message)

    run(app(scope, receive, send))
    start = messages[0]
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}


def test_the_redirect_target_is_built_from_the_page_not_from_the_request() -> None:
    middleware = SiteMiddleware(lambda *_: None, pages_dir=Path("/nonexistent"))
    assert middleware._page_name("//evil.com/../about/") is None
    assert middleware._page_name("/about/") is None  # No such page in that build.

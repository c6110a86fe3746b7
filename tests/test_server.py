"""The production middleware: clean page URLs, real 404s and security headers."""

from pathlib import Path

import httpx
import pytest
from starlette.staticfiles import StaticFiles

from agency_site.server import SiteMiddleware, content_security_policy, security_headers
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
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "entry-Ab12.js").write_text("js")
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


def test_every_response_carries_the_security_headers(client: Client) -> None:
    for path in ("/", "/about", "/portfolio", "/about/"):
        headers = client.get(path).headers
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "strict-origin-when-cross-origin"
        assert headers["x-frame-options"] == "SAMEORIGIN"
        assert "frame-ancestors 'self'" in headers["content-security-policy"]


def test_csp_lets_the_page_reach_the_backend_websocket() -> None:
    csp = content_security_policy("https://api.example.es/path")
    assert "connect-src 'self' https://api.example.es wss://api.example.es" in csp
    assert "object-src 'none'" in csp


def test_hsts_only_for_an_https_site() -> None:
    assert "Strict-Transport-Security" not in security_headers("http://x", "http://x")
    assert "Strict-Transport-Security" in security_headers("https://x", "https://x")


def test_hashed_bundles_are_cached_for_a_year_pages_are_not(client: Client) -> None:
    assert client.get("/assets/entry-Ab12.js").headers["cache-control"] == (
        "public, max-age=31536000, immutable"
    )
    assert "cache-control" not in client.get("/about").headers
    assert "cache-control" not in client.get("/assets/missing.js").headers

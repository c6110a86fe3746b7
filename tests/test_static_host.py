"""The export's files for a static host or CDN (Cloudflare Pages, Netlify): their syntax,
their limits, and that they say what the servers say."""

from pathlib import Path

import pytest

from agency_site.deploy.__main__ import main as deploy
from agency_site.deploy.static_host import (
    HASHED_CACHE,
    MAX_HEADER_LINE,
    MAX_HEADER_RULES,
    MAX_REDIRECTS,
    build_pages,
    headers_file,
    netlify_redirects,
    redirects_file,
    write_host_files,
)
from agency_site.deploy.topology import page_paths
from agency_site.web_base.security_headers import (
    HEADER_POLICY,
    asset_headers,
    document_headers,
    with_page_policy,
)

SITE = "https://www.example.es"


def parse_headers(text: str) -> dict[str, dict[str, str]]:
    """``_headers`` as Cloudflare Pages and Netlify read it: a path pattern at the start of a
    line, its headers indented below it (``Name: value``); ``#`` starts a comment."""
    rules: dict[str, dict[str, str]] = {}
    current = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            current = rules.setdefault(line.strip(), {})
            continue
        name, _, value = line.strip().partition(":")
        assert current is not None and value, line
        current[name.strip()] = value.strip()
    return rules


def parse_redirects(text: str) -> list[tuple[str, str, int]]:
    lines = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
    return [(source, target, int(code)) for source, target, code in lines]


def test_headers_carry_the_servers_sets_on_every_path_and_cache_only_the_bundles() -> None:
    text = headers_file(SITE)
    rules = parse_headers(text)
    assert rules["/*"] == asset_headers(SITE) | document_headers()
    assert rules["/*"]["Content-Security-Policy"] == HEADER_POLICY  # Pages carry the rest.
    assert "Strict-Transport-Security" in rules["/*"]
    # Both hosts join matching rules' values: only the bundles say how long to keep them.
    assert rules["/assets/*"] == {"Cache-Control": HASHED_CACHE}
    assert len(rules) <= MAX_HEADER_RULES
    assert max(map(len, text.splitlines())) <= MAX_HEADER_LINE


def test_every_real_page_redirects_from_its_slash_form_and_nothing_else() -> None:
    pages = ["/", *page_paths()]
    redirects = parse_redirects(redirects_file(pages))
    assert redirects == [(f"{page}/", page, 308) for page in page_paths()]
    assert len(redirects) <= MAX_REDIRECTS
    assert all(len(" ".join(map(str, line))) <= 1000 for line in redirects)


def test_netlify_is_told_each_other_language_s_not_found_page_after_the_redirects() -> None:
    redirects = parse_redirects(netlify_redirects(["/", "/about"]))
    assert redirects == [("/about/", "/about", 308), ("/ca/*", "/ca/404.html", 404)]


def _build(folder: Path) -> Path:
    """A build as Reflex writes it: page.html and page/index.html, the not-found pages."""
    html = with_page_policy("<html><head></head></html>", SITE, SITE)
    for name in (
        "index.html",
        "about.html",
        "about/index.html",
        "services/branding.html",
        "ca.html",
        "ca/about.html",
        "404.html",
        "__spa-fallback.html",
        "ca/404.html",
    ):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(html)
    return folder


def test_the_build_s_pages_are_its_html_files_but_copies_and_not_found_pages(
    tmp_path: Path,
) -> None:
    assert build_pages(_build(tmp_path)) == [
        "/",
        "/about",
        "/ca",
        "/ca/about",
        "/services/branding",
    ]


def test_static_host_readies_an_export_for_netlify_and_refuses_what_is_not_one(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    build = _build(tmp_path / "export")
    assert deploy(["static-host", "netlify", str(build)]) == 2
    assert "no _headers or _redirects" in capsys.readouterr().err
    write_host_files(build, SITE)
    assert deploy(["static-host", "cloudflare", str(build)]) == 0
    assert "/ca/*" not in (build / "_redirects").read_text()  # Cloudflare finds ca/404.html.
    assert deploy(["static-host", "netlify", str(build)]) == 0
    assert ("/ca/*", "/ca/404.html", 404) in parse_redirects((build / "_redirects").read_text())
    (build / "about.html").write_text("<html><head></head></html>")  # No policy of its own.
    assert deploy(["static-host", "netlify", str(build)]) == 2
    assert "carry no Content-Security-Policy" in capsys.readouterr().err

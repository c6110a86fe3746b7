"""What crawlers and sharing previews get from the production server, without running JS."""

import json
import re

import pytest
from playwright.sync_api import APIRequestContext, Browser, Page, expect

from agency_site.content.not_found import NOT_FOUND
from agency_site.content.site import SITE
from agency_site.locale import OG_LOCALE
from agency_site.routes import ROUTES
from agency_site.seo.urls import social_image_path


@pytest.fixture
def http(page: Page) -> APIRequestContext:
    """Plain HTTP requests (no browser, no JS) to the site; redirects are not followed."""
    return page.request


def _head_value(html: str, pattern: str) -> str:
    match = re.search(pattern, html)
    assert match, pattern
    return match.group(1)


@pytest.mark.parametrize("route", ROUTES, ids=[r.path for r in ROUTES])
def test_prerendered_head_has_canonical_open_graph_and_json_ld(
    http: APIRequestContext, deploy_url: str, route
) -> None:
    response = http.get(route.path, max_redirects=0)
    assert response.status == 200
    html = response.text()
    url = deploy_url + route.path
    assert _head_value(html, r'<link href="([^"]+)" rel="canonical"') == url
    assert _head_value(html, r'<meta content="([^"]+)" property="og:url"') == url
    assert _head_value(html, r'<meta content="([^"]+)" property="og:image"') == (
        deploy_url + social_image_path(route.locale)
    )
    assert (
        _head_value(html, r'<meta content="([^"]+)" property="og:locale"')
        == (OG_LOCALE[route.locale])
    )
    assert 'name="twitter:card"' in html
    documents = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html)
    assert len(documents) == 1
    graph = json.loads(documents[0])["@graph"]
    assert graph[0]["@type"] == "ProfessionalService"
    assert graph[0]["address"]["addressLocality"] == SITE.address.city
    types = [entry["@type"] for entry in graph]
    assert types.count("BreadcrumbList") == (0 if route.spanish_path == "/" else 1)
    assert types.count("JobPosting") == (3 if route.spanish_path == "/careers" else 0)
    assert types.count("FAQPage") == (1 if route.spanish_path == "/contact" else 0)
    assert types.count("Service") == (1 if route.spanish_path.startswith("/services/") else 0)


def test_unknown_paths_answer_404_with_the_prerendered_not_found_page(
    http: APIRequestContext,
) -> None:
    response = http.get("/portfolio")
    assert response.status == 404
    html = response.text()
    assert f">{NOT_FOUND.heading}</h1>" in html
    assert NOT_FOUND.intro in html
    assert '<meta content="noindex" name="robots"/>' in html
    assert http.get("/404").status == 404


def test_not_found_page_is_readable_without_javascript(browser: Browser, base_url: str) -> None:
    context = browser.new_context(base_url=base_url, java_script_enabled=False)
    page = context.new_page()
    response = page.goto("/blog")
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text(NOT_FOUND.heading)
    expect(page.get_by_text(NOT_FOUND.intro)).to_be_visible()
    context.close()


def test_trailing_slash_redirects_to_the_canonical_path(http: APIRequestContext) -> None:
    response = http.get("/about/", max_redirects=0)
    assert response.status == 308
    assert response.headers["location"] == "/about"


def test_robots_txt_points_to_the_absolute_sitemap(
    http: APIRequestContext, deploy_url: str
) -> None:
    response = http.get("/robots.txt")
    assert response.status == 200
    assert f"Sitemap: {deploy_url}/sitemap.xml" in response.text()


def test_sitemap_lists_every_route_and_not_the_404_page(
    http: APIRequestContext, deploy_url: str
) -> None:
    locs = re.findall(r"<loc>([^<]+)</loc>", http.get("/sitemap.xml").text())
    assert sorted(locs) == sorted(deploy_url + r.path for r in ROUTES)


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/favicon.ico", "image/vnd.microsoft.icon"),
        ("/apple-touch-icon.png", "image/png"),
        ("/social-card.png", "image/png"),
        ("/manifest.webmanifest", "application/manifest+json"),
    ],
)
def test_icons_social_image_and_manifest_are_served(
    http: APIRequestContext, path: str, content_type: str
) -> None:
    response = http.get(path)
    assert response.status == 200
    assert response.headers["content-type"].startswith(content_type)


def test_pages_link_icons_and_manifest(page: Page) -> None:
    page.goto("/")
    for selector in (
        "link[rel='icon'][href='/favicon.ico']",
        "link[rel='apple-touch-icon'][href='/apple-touch-icon.png']",
        "link[rel='manifest'][href='/manifest.webmanifest']",
        "meta[name='theme-color'][content='#4338ca']",
    ):
        expect(page.locator(selector)).to_have_count(1)


# That every page runs under the CSP without an error in the console is checked where each
# route is loaded for its first-sight checks: test_a11y.py.


def test_responses_carry_security_headers(http: APIRequestContext) -> None:
    headers = http.get("/").headers
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert "frame-ancestors 'self'" in headers["content-security-policy"]  # The short header.

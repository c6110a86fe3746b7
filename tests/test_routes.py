"""The route registry matches SPEC §2: every route once, the right pages, the 404 page."""

from collections import Counter

from agency_site import paths
from agency_site.components.navbar import NAV_LINKS
from agency_site.content.case_studies import CASE_STUDIES
from agency_site.content.services import SERVICES
from agency_site.routes import ROUTES

SPEC_ROUTES = {
    "/",
    "/about",
    "/case-studies",
    "/case-studies/ecommerce-growth",
    "/case-studies/influencer-success",
    "/case-studies/b2b-leads",
    "/careers",
    "/privacy-policy",
    "/terms-of-service",
    "/cookies-policy",
    "/influencer-program",
    "/contact",
    "/schedule",
    "/services/branding",
    "/services/social-media",
    "/services/automation",
    "/services/web-development",
    "/services/advertising",
    "/services/visual-content",
    "/services/consulting",
    "/services/training",
    "/services/product-photography",
}


def test_every_spec_route_is_registered_exactly_once() -> None:
    counts = Counter(route.path for route in ROUTES)
    assert set(counts) == SPEC_ROUTES
    assert all(n == 1 for n in counts.values()), counts


def test_undeclared_links_of_the_spec_are_not_routes() -> None:
    registered = {route.path for route in ROUTES}
    assert {paths.PORTFOLIO, paths.BLOG, paths.SERVICES_PREFIX}.isdisjoint(registered)


def test_service_dropdown_lists_exactly_the_nine_service_routes() -> None:
    service_paths = [paths.service(s.id) for s in SERVICES]
    assert len(service_paths) == 9
    assert set(service_paths) == {p for p in SPEC_ROUTES if p.startswith("/services/")}


def test_case_study_pages_are_one_static_route_per_case() -> None:
    assert [c.id for c in CASE_STUDIES] == ["ecommerce-growth", "influencer-success", "b2b-leads"]


def test_navbar_links_point_to_declared_routes() -> None:
    registered = {route.path for route in ROUTES}
    assert [href for _, href in NAV_LINKS] == [
        "/",
        "/influencer-program",
        "/case-studies",
        "/about",
    ]
    assert all(href in registered for _, href in NAV_LINKS)


def test_titles_carry_the_fixed_title_and_are_unique() -> None:
    home = next(r for r in ROUTES if r.path == "/")
    titles = [r.title for r in ROUTES]
    assert len(set(titles)) == len(titles)
    assert all(t.endswith(home.title) for t in titles)
    about = next(r for r in ROUTES if r.path == "/about")
    assert about.title == f"Sobre nosotros | {home.title}"

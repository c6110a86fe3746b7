"""The route registry matches SPEC §2: every route once, the right pages, the 404 page."""

from collections import Counter

import pytest
from pydantic import ValidationError

from agency_site import paths
from agency_site.components import footer
from agency_site.components.navbar import nav_links
from agency_site.content import about, pages
from agency_site.content.base import PageMeta, euros
from agency_site.content.case_studies import CASE_STUDIES
from agency_site.content.sections import PacksSection, StatsSection
from agency_site.content.service_pages import SERVICE_PAGES, SERVICES, ServicePage
from agency_site.content.site import SITE
from agency_site.locale import localized_path
from agency_site.routes import BY_PATH, ROUTES, Route
from tests import spec_facts as spec


def test_every_spec_route_is_registered_exactly_once() -> None:
    counts = Counter(route.path for route in ROUTES)
    assert set(counts) >= spec.ALL_ROUTES
    assert all(n == 1 for n in counts.values()), counts


def test_undeclared_links_of_the_spec_are_not_routes() -> None:
    registered = {route.path for route in ROUTES}
    assert {paths.PORTFOLIO, paths.BLOG, paths.SERVICES_PREFIX}.isdisjoint(registered)


def test_service_dropdown_lists_exactly_the_nine_service_routes() -> None:
    service_paths = [paths.service(s.id) for s in SERVICES]
    assert set(service_paths) >= spec.SERVICE_ROUTES
    assert set(service_paths) == {r.path for r in ROUTES if r.path.startswith("/services/")}


def test_case_study_pages_are_one_static_route_per_case() -> None:
    assert set(spec.CASE_IDS) <= {c.id for c in CASE_STUDIES}
    assert {paths.case_study(c.id) for c in CASE_STUDIES} <= {r.path for r in ROUTES}


def test_navbar_links_point_to_declared_routes() -> None:
    registered = {route.path for route in ROUTES}
    assert [href for _, href in nav_links()] == [
        "/",
        "/influencer-program",
        "/case-studies",
        "/about",
    ]
    assert all(href in registered for _, href in nav_links())
    assert [label for label, _ in nav_links()] == [
        "Home",
        "Influencer Program",
        "Case Studies",
        "About",
    ]
    assert (pages.CONTACT_BUTTON.label, pages.CONTACT_BUTTON.href) == ("Contact", paths.CONTACT)


def test_footer_menus_name_each_page_as_its_route_does() -> None:
    names = {route.path: route.name for route in ROUTES}
    for menu in (pages.FOOTER_COMPANY, pages.FOOTER_LEGAL, pages.SERVICES_MENU):
        for link in menu:
            assert link.label == names.get(link.href, "Blog")
    assert [link.href for link in pages.FOOTER_LEGAL] == [
        "/privacy-policy",
        "/terms-of-service",
        "/cookies-policy",
    ]
    assert paths.BLOG in {link.href for link in pages.FOOTER_COMPANY}
    assert footer.footer() is not None


def test_route_arguments_are_keywords() -> None:
    with pytest.raises(TypeError):
        Route("/", lambda: None, None, "d")  # type: ignore[misc]


def _route(path: str) -> Route:
    return next(route for route in ROUTES if route.path == path)


def _prices(service_id: str) -> list[int]:
    page = SERVICE_PAGES[service_id]
    return [p.price_from for s in page.sections if isinstance(s, PacksSection) for p in s.packs]


def test_descriptions_quote_the_figures_of_the_content() -> None:
    branding = _route(paths.service("branding")).description
    assert tuple(_prices("branding")) == spec.PACK_PRICES["branding"]
    for price in _prices("branding"):
        assert f"desde {euros(price)}" in branding
    photography = SERVICE_PAGES["product-photography"]
    description = _route(paths.service("product-photography")).description
    assert f"desde {euros(min(_prices('product-photography')))}" in description
    stats = {stat.key: stat.value for stat in photography.stats if stat.key}
    conversion, _, delivery = spec.PHOTOGRAPHY_CLAIMS
    assert stats["conversion"] == conversion and stats["delivery"].startswith(delivery)
    assert all(value in description for value in stats.values())
    about_description = _route(paths.ABOUT).description
    assert all(
        stat.value.strip("+") in about_description
        for stat in about.PAGE.section(StatsSection).stats
    )


def test_a_description_quoting_an_unknown_figure_is_rejected() -> None:
    data = SERVICE_PAGES["branding"].model_dump(exclude_computed_fields=True)
    meta = PageMeta(description="Desde {precio}")
    with pytest.raises(ValidationError, match=r"unknown name \{precio\}"):
        ServicePage(**(data | {"meta": meta.model_dump()}))


def test_sitemap_priorities() -> None:
    assert _route(paths.HOME).priority == 1.0
    assert {_route(paths.service(s.id)).priority for s in SERVICES} == {0.8}
    assert {_route(p).priority for p in (paths.CONTACT, paths.SCHEDULE)} == {0.9}
    assert _route(paths.PRIVACY_POLICY).priority == 0.3


def test_titles_carry_the_fixed_title_and_are_unique() -> None:
    home = next(r for r in ROUTES if r.path == "/")
    titles = [r.title for r in ROUTES]
    assert len(set(titles)) == len(titles)
    # Each ends with its language's fixed title (its Home's whole title).
    assert all(r.title.endswith(BY_PATH[localized_path("/", r.locale)].title) for r in ROUTES)
    assert BY_PATH["/ca"].title != home.title
    assert home.name is None and home.title == SITE.fixed_title
    assert _route(paths.ABOUT).title == f"{about.PAGE.meta.name} | {home.title}"

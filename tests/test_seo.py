"""Search and sharing metadata: descriptions, canonical URLs, Open Graph, JSON-LD, sitemap."""

import json
from xml.etree import ElementTree

import pytest

from agency_site import locale, paths, routes
from agency_site.agency_site import app
from agency_site.content.seo import SEO
from agency_site.content.site import SITE
from agency_site.reflex_ext.build_plugin import sitemap_pages
from agency_site.routes import ROUTES, Route
from agency_site.seo import head, schema
from agency_site.seo.files import robots_txt, sitemap_xml, web_manifest
from agency_site.seo.urls import absolute_url, canonical_path
from agency_site.settings import get_settings
from tests import spec_facts as spec

SITE_URL = get_settings().site_url


def _meta(route: Route) -> dict[str, str]:
    """The property/name → content pairs of a route's head tags."""
    tags = head.page_meta(route.path, route.title, route.description, [])
    return {
        tag.get("property", tag.get("name")): tag["content"]
        for tag in tags
        if isinstance(tag, dict)
    }


def _json_ld(route: Route) -> dict:
    """The parsed JSON-LD document of a route."""
    return head.page_json_ld(routes.structured_data(route))


def _route(path: str) -> Route:
    return next(r for r in ROUTES if r.path == path)


@pytest.mark.parametrize("route", ROUTES, ids=[r.path for r in ROUTES])
def test_meta_description_is_120_to_160_characters(route: Route) -> None:
    assert 120 <= len(route.description) <= 160, (len(route.description), route.description)


def test_meta_descriptions_are_unique() -> None:
    descriptions = [r.description for r in ROUTES]
    assert len(set(descriptions)) == len(descriptions)


@pytest.mark.parametrize("route", ROUTES, ids=[r.path for r in ROUTES])
def test_open_graph_and_twitter_tags_are_absolute_and_spanish(route: Route) -> None:
    meta = _meta(route)
    url = SITE_URL + (route.path if route.path != "/" else "/")
    assert meta["og:url"] == url
    assert meta["og:title"] == meta["twitter:title"] == route.title
    assert meta["og:description"] == meta["twitter:description"] == route.description
    assert meta["og:type"] == "website"
    assert meta["og:locale"] == "es_ES"
    assert meta["og:site_name"] == SITE.name
    assert meta["twitter:card"] == "summary_large_image"
    assert meta["twitter:image"] == head.social_image_url() == f"{SITE_URL}/social-card.png"
    assert (meta["og:image:width"], meta["og:image:height"]) == ("1200", "630")


def test_every_page_links_its_twins_by_hreflang_and_says_its_language() -> None:
    for route in (routes.BY_PATH["/about"], routes.BY_PATH["/ca/about"]):
        tags = head.page_meta(
            route.path,
            route.title,
            route.description,
            [],
            language=route.locale,
            alternates=routes.alternates(route),
        )
        links = {
            str(tag.href_lang).strip('"'): str(tag.href).strip('"')
            for tag in tags
            if not isinstance(tag, dict) and tag.tag == "link" and str(tag.rel) == '"alternate"'
        }
        assert links == {
            "es": f"{SITE_URL}/about",
            "ca": f"{SITE_URL}/ca/about",
            "x-default": f"{SITE_URL}/about",
        }
        meta = {
            tag["property"]: tag["content"]
            for tag in tags
            if isinstance(tag, dict) and "property" in tag
        }
        assert meta["og:locale"] == {"es": "es_ES", "ca": "ca_ES"}[route.locale]
        with locale.active(route.locale):
            web_page = schema.web_page(route.path, route.title, route.description)
        assert web_page["inLanguage"] == route.locale


def test_canonical_link_is_the_absolute_url_without_trailing_slash() -> None:
    tags = head.page_meta("/about", "t", "d", [])
    link = next(t for t in tags if not isinstance(t, dict) and t.tag == "link")
    assert str(link.rel) == '"canonical"'
    assert str(link.href) == f'"{SITE_URL}/about"'
    assert canonical_path("/about/") == "/about"
    assert canonical_path("/") == "/"
    assert absolute_url("/") == SITE_URL + "/"


def _sitemap() -> ElementTree.Element:
    pages = sitemap_pages({"unevaluated_pages": list(app._unevaluated_pages.values())})
    return ElementTree.fromstring(sitemap_xml(pages))


_NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


def test_sitemap_lists_every_route_at_its_canonical_url_and_not_the_404_page() -> None:
    urls = _sitemap().findall("s:url", _NS)
    locs = [url.findtext("s:loc", namespaces=_NS) for url in urls]
    assert sorted(locs) == sorted(absolute_url(r.path) for r in ROUTES)
    assert not any("404" in loc for loc in locs)
    home = next(url for url in urls if url.findtext("s:loc", namespaces=_NS) == SITE_URL + "/")
    assert home.findtext("s:priority", namespaces=_NS) == "1.0"


def test_sitemap_pairs_every_page_with_its_twins_both_ways() -> None:
    """Each URL lists es, ca and x-default; the Catalan twin lists the same three."""
    alternates = {
        url.findtext("s:loc", namespaces=_NS): {
            link.get("hreflang"): link.get("href") for link in url.findall("x:link", _NS)
        }
        for url in _sitemap().findall("s:url", _NS)
    }
    for loc, links in alternates.items():
        assert set(links) == {"es", "ca", "x-default"}, loc
        assert loc in links.values() and links["x-default"] == links["es"]
        assert alternates[links["ca"]] == links == alternates[links["es"]]
    assert alternates[f"{SITE_URL}/about"]["ca"] == f"{SITE_URL}/ca/about"


def test_every_page_carries_the_agency_as_a_professional_service() -> None:
    organization = _json_ld(_route(paths.HOME))["@graph"][0]
    assert organization["@type"] == "ProfessionalService"
    assert organization["name"] == SITE.name
    assert organization["email"] == SITE.email
    assert organization["telephone"] == "+34973390000"
    assert organization["address"]["addressLocality"] == "Agramunt"
    assert organization["address"]["postalCode"] == SITE.address.postal_code
    assert organization["address"]["addressCountry"] == "ES"
    assert organization["url"] == SITE_URL + "/"


def test_home_has_no_breadcrumbs() -> None:
    assert [e["@type"] for e in _json_ld(_route(paths.HOME))["@graph"]] == ["ProfessionalService"]


def test_inner_pages_have_breadcrumbs_through_their_registered_parents() -> None:
    case = _route(paths.case_study("b2b-leads"))
    crumbs = _json_ld(case)["@graph"][1]
    assert crumbs["@type"] == "BreadcrumbList"
    assert [(i["position"], i["name"], i["item"]) for i in crumbs["itemListElement"]] == [
        (1, SEO.home_crumb, SITE_URL + "/"),
        (2, _route(paths.CASE_STUDIES).name, SITE_URL + "/case-studies"),
        (3, case.name, SITE_URL + "/case-studies/b2b-leads"),
    ]
    # /services is not a page: a service's trail skips it.
    service = _route(paths.service("branding"))
    assert routes.breadcrumb_trail(service) == [
        (SEO.home_crumb, "/"),
        (service.name, service.path),
    ]


def test_a_route_plugs_in_its_own_structured_data() -> None:
    faq = {"@type": "FAQPage", "mainEntity": []}
    route = Route(
        path="/contact",
        page=lambda: None,
        name="Contacto",
        description="d",
        structured_data=lambda: [faq],
    )
    assert routes.structured_data(route)[-1] == faq
    assert routes.structured_data(route)[0]["@type"] == "BreadcrumbList"


def test_json_ld_text_cannot_close_its_script_tag() -> None:
    document = schema.graph([{"name": "</script><script>alert(1)</script>"}])
    text = schema.to_script_text(document)
    assert "</" not in text and "<" not in text
    assert json.loads(text) == document


def test_robots_txt_allows_crawling_and_points_to_the_absolute_sitemap() -> None:
    assert robots_txt() == f"User-agent: *\nAllow: /\n\nSitemap: {SITE_URL}/sitemap.xml\n"


def test_urls_follow_the_deploy_url_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFLEX_DEPLOY_URL", "https://www.agencia.example/")
    get_settings.cache_clear()
    try:
        assert absolute_url("/about") == "https://www.agencia.example/about"
        assert "Sitemap: https://www.agencia.example/sitemap.xml" in robots_txt()
        assert head.social_image_url() == "https://www.agencia.example/social-card.png"
    finally:
        get_settings.cache_clear()


def test_web_manifest_uses_the_agency_colours_and_shipped_icons() -> None:
    manifest = json.loads(web_manifest())
    assert manifest["theme_color"] == "#4338ca"
    assert manifest["background_color"] == "#ffffff"
    assert manifest["lang"] == "es"
    assert manifest["short_name"] == SITE.name
    assert {icon["sizes"] for icon in manifest["icons"]} == {"192x192", "512x512"}


def _entries(path: str, type_: str) -> list[dict]:
    """The JSON-LD entries of ``type_`` on the page at ``path``."""
    return [e for e in _json_ld(_route(path))["@graph"] if e["@type"] == type_]


def test_careers_describes_each_position_as_a_job_posting() -> None:
    jobs = {job["title"]: job for job in _entries(paths.CAREERS, "JobPosting")}
    for title, (_, employment, low, high, locality) in spec.JOBS.items():
        job = jobs[title]
        assert job["employmentType"] == employment
        assert job["baseSalary"]["currency"] == "EUR"
        salary = job["baseSalary"]["value"]
        assert (salary["minValue"], salary["maxValue"], salary["unitText"]) == (low, high, "YEAR")
        assert job["hiringOrganization"] == {"@id": schema.organization_id()}
        if locality is None:
            assert job["jobLocationType"] == "TELECOMMUTE" and "jobLocation" not in job
        else:
            assert job["jobLocation"]["address"]["addressLocality"] == locality
    assert all(job["datePosted"] and job["description"] for job in jobs.values())


def test_contact_carries_its_faq_as_a_faq_page() -> None:
    from agency_site.content.contact import PAGE as CONTACT_PAGE

    (faq,) = _entries(paths.CONTACT, "FAQPage")
    assert [q["name"] for q in faq["mainEntity"]] == [item.question for item in CONTACT_PAGE.faq]
    assert all(q["acceptedAnswer"]["text"] for q in faq["mainEntity"])


@pytest.mark.parametrize(
    ("service_id", "prices"),
    [*spec.PACK_PRICES.items(), ("consulting", ())],
)
def test_service_pages_are_services_with_offers_for_their_packs(
    service_id: str, prices: tuple[int, ...]
) -> None:
    (entry,) = _entries(paths.service(service_id), "Service")
    assert entry["provider"] == {"@id": schema.organization_id()}
    assert entry["url"] == absolute_url(paths.service(service_id))
    assert tuple(offer["price"] for offer in entry.get("offers", [])) == prices
    assert all(offer["priceCurrency"] == "EUR" for offer in entry.get("offers", []))


def test_every_service_page_has_a_service_entry() -> None:
    service_routes = [r for r in ROUTES if r.path.startswith(paths.SERVICES_PREFIX + "/")]
    assert {r.path for r in service_routes} >= spec.SERVICE_ROUTES
    assert all(len(_entries(r.path, "Service")) == 1 for r in service_routes)

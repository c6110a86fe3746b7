"""The site's routes: one per page of the page table (``content/pages.py``) in each
language (``/about`` and ``/ca/about``), rendered by the view of its kind of content in
its language, plus the not-found page (which speaks the language of the path asked for).

``agency_site.py`` registers exactly these; tests and the sitemap read them from here.
A page of a kind the site already has needs no line here; a new kind of page adds its
view (and its JSON-LD, if any) to ``KINDS``.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import reflex as rx

from agency_site import locale, paths
from agency_site.components.legal import legal_page
from agency_site.content.careers import CareersPage
from agency_site.content.case_studies import CaseStudiesPage, CaseStudy
from agency_site.content.contact import ContactPage
from agency_site.content.home import HomePage
from agency_site.content.legal import LegalPage
from agency_site.content.pages import PAGES, PageEntry
from agency_site.content.schedule import SchedulePage
from agency_site.content.sections import SectionsPage
from agency_site.content.seo import SEO
from agency_site.content.service_pages import ServicePage
from agency_site.content.site import SITE
from agency_site.pages import (
    careers,
    case_studies,
    case_study,
    contact,
    home,
    not_found,
    schedule,
    sections_page,
    service,
)
from agency_site.reflex_ext import page_bundles
from agency_site.seo import head, schema

StructuredData = Callable[[], Sequence[schema.JsonLd]]


@dataclass(frozen=True)
class Kind:
    """How a kind of page content is shown: its view, and the JSON-LD entries it adds
    (JobPosting, FAQPage, Service...) to the agency and the breadcrumbs every page carries."""

    view: Callable[[Any], rx.Component]
    structured_data: Callable[[Any], Sequence[schema.JsonLd]] | None = None
    # The JavaScript bundle its pages share, if they share one (else one per page).
    bundle: str | None = None


# Each kind of page content (its model), by the view that renders it.
KINDS: dict[type, Kind] = {
    HomePage: Kind(home.page),
    CaseStudiesPage: Kind(case_studies.page),
    CaseStudy: Kind(case_study.page, bundle="case_study"),
    CareersPage: Kind(careers.page, lambda _: schema.job_postings()),
    LegalPage: Kind(legal_page),
    SectionsPage: Kind(sections_page.page),
    ContactPage: Kind(lambda _: contact.page(), lambda _: schema.faq_page()),
    SchedulePage: Kind(schedule.page),
    ServicePage: Kind(
        service.page, lambda content: schema.service(content.id), bundle="service_sections"
    ),
}


@dataclass(frozen=True, kw_only=True)
class Route:
    """A page of the site."""

    path: str
    locale: str = locale.DEFAULT_LOCALE
    page: Callable[[], rx.Component]
    name: str | None  # Prefix of the document title; None for the fixed title alone.
    description: str
    priority: float = 0.7
    structured_data: StructuredData | None = None

    @property
    def title(self) -> str:
        """The document title."""
        with locale.active(self.locale):
            return SITE.page_title(self.name)

    @property
    def spanish_path(self) -> str:
        """The path of the same page in Spanish (the default language): its twins' key."""
        return locale.unlocalized_path(self.path)

    @property
    def social_image(self) -> str:
        """Its ``og:image``: the social card of its language."""
        with locale.active(self.locale):
            return head.social_image_url()

    def path_in(self, language: str) -> str:
        """The path of the same page in ``language``."""
        return locale.localized_path(self.spanish_path, language)


def _route(entry: PageEntry, language: str) -> Route:
    """The route of a page of the table: its kind's view of its content, in its language."""
    kind = KINDS[type(entry.content)]

    def page() -> rx.Component:
        with locale.active(language, page=locale.unlocalized_path(entry.path)):
            return kind.view(entry.content)

    slug = entry.path.strip("/").replace("/", "_").replace("-", "_") or "home"
    page.__name__ = f"page_{slug}"  # How Reflex names the page in its messages.
    # The pages of a kind with a bundle share its JavaScript module (one per language);
    # any other page has its own (reflex_ext/page_bundles.py).
    bundle = kind.bundle and kind.bundle + locale.prefix(language).replace("/", "_")
    page_bundles.bundle_page(page, bundle or slug)
    extra = kind.structured_data

    def structured() -> Sequence[schema.JsonLd]:
        with locale.active(language):
            return extra(entry.content) if extra else ()

    return Route(
        path=entry.path,
        locale=language,
        page=page,
        name=entry.name,
        description=entry.description,
        priority=entry.priority,
        structured_data=structured if extra else None,
    )


# Every page in every language: the Spanish ones first, in the table's order.
ROUTES: tuple[Route, ...] = tuple(
    _route(entry, language) for language in locale.LOCALES for entry in PAGES.of(language).values()
)
BY_PATH: dict[str, Route] = {route.path: route for route in ROUTES}


def breadcrumb_trail(route: Route) -> list[tuple[str, str]]:
    """(name, path) pairs from Home down to ``route``, through its registered parent pages,
    in its language."""
    with locale.active(route.locale):
        trail = [(SEO.home_crumb, locale.localized_path(paths.HOME))]
    parts = route.spanish_path.strip("/").split("/")
    for depth in range(1, len(parts) + 1):
        parent = BY_PATH.get(locale.localized_path("/" + "/".join(parts[:depth]), route.locale))
        if parent is not None and parent.name:
            trail.append((parent.name, parent.path))
    return trail


def structured_data(route: Route) -> list[schema.JsonLd]:
    """The JSON-LD entries of a page besides the agency: breadcrumbs and its own."""
    entries = (
        [] if route.spanish_path == paths.HOME else [schema.breadcrumbs(breadcrumb_trail(route))]
    )
    if route.structured_data is not None:
        entries.extend(route.structured_data())
    return entries


def alternates(route: Route) -> dict[str, str]:
    """The page's path in each language, by hreflang (``es``, ``ca``), and ``x-default``
    (the Spanish one): what its head and the sitemap list."""
    found = {locale.HTML_LANG[language]: route.path_in(language) for language in locale.LOCALES}
    return found | {"x-default": route.path_in(locale.DEFAULT_LOCALE)}


def register(app: rx.App) -> None:
    """Add every route, then the not-found page, to the app."""
    for route in ROUTES:
        app.add_page(
            route.page,
            route=route.path,
            title=route.title,
            description=route.description,
            image=route.social_image,
            meta=head.page_meta(
                route.path,
                route.title,
                route.description,
                structured_data(route),
                language=route.locale,
                alternates=alternates(route),
            ),
            context={
                "sitemap": {
                    "priority": route.priority,
                    "changefreq": "monthly",
                    "alternates": alternates(route),
                }
            },
        )
    app.add_page(
        not_found.page,
        route=paths.NOT_FOUND,
        title=not_found.title(),
        description=not_found.description(),
        image=head.social_image_url(),
        meta=head.not_found_meta(),
        context={"sitemap": None},
    )

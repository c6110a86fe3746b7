"""The site's routes: one per page of the page table (``content/pages.py``), rendered by
the view of its kind of content, plus the not-found page.

``agency_site.py`` registers exactly these; tests and the sitemap read them from here.
A page of a kind the site already has needs no line here; a new kind of page adds its
view (and its JSON-LD, if any) to ``KINDS``.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import reflex as rx

from agency_site import paths
from agency_site.components.legal import legal_page
from agency_site.content.careers import CareersPage
from agency_site.content.case_studies import CaseStudiesPage, CaseStudy
from agency_site.content.contact import ContactPage
from agency_site.content.home import HomePage
from agency_site.content.legal import LegalPage
from agency_site.content.not_found import NOT_FOUND
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
    page: Callable[[], rx.Component]
    name: str | None  # Prefix of the document title; None for the fixed title alone.
    description: str
    priority: float = 0.7
    structured_data: StructuredData | None = None

    @property
    def title(self) -> str:
        """The document title."""
        return SITE.page_title(self.name)


def _route(entry: PageEntry) -> Route:
    """The route of a page of the table: its kind's view of its content."""
    kind = KINDS[type(entry.content)]

    def page() -> rx.Component:
        return kind.view(entry.content)

    slug = entry.path.strip("/").replace("/", "_").replace("-", "_") or "home"
    page.__name__ = f"page_{slug}"  # How Reflex names the page in its messages.
    # Reflex writes a page's memoized components to one JavaScript module per Python module
    # of its function (reflex_base/utils/memo_paths.py): the pages of a kind with a bundle
    # share that one; any other page has its own (inlined in the page's chunk).
    page.__module__ = f"agency_site.pages.{kind.bundle or slug}"
    extra = kind.structured_data
    return Route(
        path=entry.path,
        page=page,
        name=entry.name,
        description=entry.description,
        priority=entry.priority,
        structured_data=(lambda: extra(entry.content)) if extra else None,
    )


ROUTES: tuple[Route, ...] = tuple(_route(entry) for entry in PAGES.values())

NOT_FOUND_TITLE = SITE.page_title(NOT_FOUND.heading)


def breadcrumb_trail(route: Route) -> list[tuple[str, str]]:
    """(name, path) pairs from Home down to ``route``, through its registered parent pages."""
    by_path = {r.path: r for r in ROUTES}
    trail = [(SEO.home_crumb, paths.HOME)]
    parts = route.path.strip("/").split("/")
    for depth in range(1, len(parts) + 1):
        parent = by_path.get("/" + "/".join(parts[:depth]))
        if parent is not None and parent.name:
            trail.append((parent.name, parent.path))
    return trail


def structured_data(route: Route) -> list[schema.JsonLd]:
    """The JSON-LD entries of a page besides the agency: breadcrumbs and its own."""
    entries = [] if route.path == paths.HOME else [schema.breadcrumbs(breadcrumb_trail(route))]
    if route.structured_data is not None:
        entries.extend(route.structured_data())
    return entries


def register(app: rx.App) -> None:
    """Add every route, then the not-found page, to the app."""
    for route in ROUTES:
        app.add_page(
            route.page,
            route=route.path,
            title=route.title,
            description=route.description,
            image=head.social_image_url(),
            meta=head.page_meta(route.path, route.title, route.description, structured_data(route)),
            context={"sitemap": {"priority": route.priority, "changefreq": "monthly"}},
        )
    app.add_page(
        not_found.page,
        route=paths.NOT_FOUND,
        title=NOT_FOUND_TITLE,
        description=NOT_FOUND.description,
        image=head.social_image_url(),
        meta=head.not_found_meta(),
        context={"sitemap": None},
    )

"""The one registry of the site's pages: path, page function, title and description.

``agency_site.py`` registers exactly these routes (plus the not-found page); tests and
the sitemap read them from here. Each page's name, description and sitemap priority
come from its content, through ``content/page_index.py`` (which the menus also read).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import reflex as rx

from agency_site import paths
from agency_site.components.service_sections import page_for
from agency_site.content.case_studies import CASE_STUDIES
from agency_site.content.not_found import NOT_FOUND
from agency_site.content.page_index import PAGES
from agency_site.content.seo import SEO
from agency_site.content.service_pages import SERVICES
from agency_site.content.site import SITE
from agency_site.pages import (
    about,
    careers,
    case_studies,
    case_study,
    contact,
    cookies_policy,
    home,
    influencer_program,
    not_found,
    privacy_policy,
    schedule,
    terms_of_service,
)
from agency_site.seo import head, schema

StructuredData = Callable[[], Sequence[schema.JsonLd]]


@dataclass(frozen=True, kw_only=True)
class Route:
    """A page of the site."""

    path: str
    page: Callable[[], rx.Component]
    name: str | None  # Prefix of the document title; None for the fixed title alone.
    description: str
    priority: float = 0.7
    # Page-specific JSON-LD entries (JobPosting, FAQPage, Service...), added to the
    # agency and the breadcrumbs every page carries.
    structured_data: StructuredData | None = None

    @property
    def title(self) -> str:
        """The document title."""
        return SITE.page_title(self.name)


def _route(
    path: str, page: Callable[[], rx.Component], structured_data: StructuredData | None = None
) -> Route:
    """The route of ``path``: its name, description and priority from the page index."""
    entry = PAGES[path]
    return Route(
        path=path,
        page=page,
        name=entry.name,
        description=entry.description,
        priority=entry.priority,
        structured_data=structured_data,
    )


ROUTES: tuple[Route, ...] = (
    _route(paths.HOME, home.page),
    _route(paths.ABOUT, about.page),
    _route(paths.CASE_STUDIES, case_studies.page),
    *[_route(paths.case_study(case.id), case_study.page_for(case)) for case in CASE_STUDIES],
    _route(paths.CAREERS, careers.page, schema.job_postings),
    _route(paths.PRIVACY_POLICY, privacy_policy.page),
    _route(paths.TERMS_OF_SERVICE, terms_of_service.page),
    _route(paths.COOKIES_POLICY, cookies_policy.page),
    _route(paths.INFLUENCER_PROGRAM, influencer_program.page),
    _route(paths.CONTACT, contact.page, schema.faq_page),
    _route(paths.SCHEDULE, schedule.page),
    # Each a ``Service`` to search engines.
    *[_route(paths.service(s.id), page_for(s.id), partial(schema.service, s.id)) for s in SERVICES],
)
if {route.path for route in ROUTES} != set(PAGES):
    raise ValueError("Every page of content/page_index.py needs exactly one route.")

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

"""Every page of the site by path: its name, description and sitemap priority, and the menus.

Read from each page's own content (its file's ``meta``, a service page's ``meta``), with
the figures a description quotes filled in from that content. ``routes.py`` registers
these pages; the navigation bar and the footer list them from here.
"""

from collections.abc import Mapping, Sequence

from agency_site import paths
from agency_site.content import (
    about,
    careers,
    case_studies,
    contact,
    home,
    influencer,
    legal,
    schedule,
)
from agency_site.content.base import Content, Link, PageMeta, figures
from agency_site.content.service_pages import SERVICE_PAGES, SERVICES


class PageEntry(Content):
    """A page as the routes, the sitemap and the menus see it."""

    path: str
    name: str | None  # Prefix of the document title; None for the fixed title alone.
    description: str
    priority: float
    nav_label: str = ""


def _entry(path: str, meta: PageMeta, quoted: Mapping[str, str] | None = None) -> PageEntry:
    """The entry of ``path``, its description's figures filled in from ``quoted``."""
    return PageEntry(
        path=path,
        name=meta.name,
        description=meta.describe(quoted or {}),
        priority=meta.priority,
        nav_label=meta.nav_label,
    )


PAGES: dict[str, PageEntry] = {
    entry.path: entry
    for entry in (
        _entry(paths.HOME, home.PAGE.meta),
        _entry(paths.ABOUT, about.META, figures(about.STATS)),
        _entry(paths.CASE_STUDIES, case_studies.PAGE.meta),
        *[
            _entry(
                paths.case_study(case.id),
                case_studies.PAGE.case_meta.model_copy(update={"name": case.title}),
                {"subtitle": case.subtitle},
            )
            for case in case_studies.CASE_STUDIES
        ],
        _entry(paths.CAREERS, careers.CAREERS.meta),
        _entry(paths.PRIVACY_POLICY, legal.PRIVACY.meta),
        _entry(paths.TERMS_OF_SERVICE, legal.TERMS.meta),
        _entry(paths.COOKIES_POLICY, legal.COOKIES.meta),
        _entry(paths.INFLUENCER_PROGRAM, influencer.META),
        _entry(paths.CONTACT, contact.META, {"response_promise": contact.RESPONSE_PROMISE}),
        _entry(paths.SCHEDULE, schedule.META),
        *[
            PageEntry(
                path=paths.service(service.id),
                name=service.title,
                description=SERVICE_PAGES[service.id].description(),
                priority=SERVICE_PAGES[service.id].meta.priority,
            )
            for service in SERVICES
        ],
    )
}

# The menus, in the order they list their pages (SPEC §2). The navbar adds the services
# dropdown and the Contact button; the footer its services column.
NAVBAR: tuple[str, ...] = (paths.HOME, paths.INFLUENCER_PROGRAM, paths.CASE_STUDIES, paths.ABOUT)
FOOTER_COMPANY: tuple[str, ...] = (
    paths.ABOUT,
    paths.CASE_STUDIES,
    paths.INFLUENCER_PROGRAM,
    paths.CAREERS,
    paths.BLOG,
    paths.CONTACT,
    paths.SCHEDULE,
)
FOOTER_LEGAL: tuple[str, ...] = (paths.PRIVACY_POLICY, paths.TERMS_OF_SERVICE, paths.COOKIES_POLICY)
SERVICES_MENU: tuple[str, ...] = tuple(paths.service(service.id) for service in SERVICES)
# Linked from the menus but not pages of the site yet (they land on the not-found page).
UNDECLARED: dict[str, str] = {paths.BLOG: "Blog"}


def menu(menu_paths: Sequence[str]) -> tuple[Link, ...]:
    """A footer menu: each page's name (an undeclared page's label) and path."""
    return tuple(
        Link(label=PAGES[path].name if path in PAGES else UNDECLARED[path], href=path)
        for path in menu_paths
    )


def nav_menu(menu_paths: Sequence[str]) -> tuple[Link, ...]:
    """A navigation bar menu: each page's navigation label and path."""
    return tuple(Link(label=PAGES[path].nav_label, href=path) for path in menu_paths)

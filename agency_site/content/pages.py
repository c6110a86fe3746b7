"""The one table of the site's pages, built from their content: each page's path, name,
description, sitemap priority and navigation label come from its file's ``meta`` (a
service's and a case study's path from its id), its description's ``{figures}`` filled in
from its own content. ``routes.py`` registers a route per entry (the view of its kind of
content); the menus of ``layout.yaml`` name their pages from here. Each language has its
table (``PAGES.of("ca")``): the same pages, at ``/ca`` + the Spanish path.

A new page: its file, and one line below.
"""

from collections.abc import Mapping
from typing import Any

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
from agency_site.content.layout import LAYOUT, MenuItem
from agency_site.content.loader import ContentError
from agency_site.content.service_pages import SERVICE_PAGES, SERVICES
from agency_site.locale import Localized, current, localized_path


class PageEntry(Content):
    """A page as the routes, the sitemap and the menus see it, with the content it shows."""

    path: str
    name: str | None  # Prefix of the document title; None for the fixed title alone.
    description: str
    priority: float
    nav_label: str = ""
    content: Any  # What its view renders: the page's content model.


def _entry(
    content: Any,
    meta: PageMeta | None = None,
    *,
    path: str = "",
    name: str | None = None,
    quoted: Mapping[str, str] | None = None,
) -> PageEntry:
    """The entry of a page's ``content``: from its ``meta`` (by default ``content.meta``),
    its description quoting the content's figures and ``quoted``."""
    meta = meta or content.meta
    return PageEntry(
        path=path or meta.path,
        name=name or meta.name,
        description=meta.describe(figures(content) | dict(quoted or {})),
        priority=meta.priority,
        nav_label=meta.nav_label,
        content=content,
    )


def _entries() -> tuple[PageEntry, ...]:
    """Every page of the language in use, at its path in that language (``/ca/about``)."""
    entries = (
        _entry(home.PAGE.value),
        _entry(about.PAGE.value),
        _entry(case_studies.PAGE.value),
        *[
            _entry(
                case,
                case_studies.PAGE.case_meta,
                path=paths.case_study(case.id),
                name=case.title,
                quoted={"subtitle": case.subtitle},
            )
            for case in case_studies.CASE_STUDIES
        ],
        _entry(careers.CAREERS.value),
        *[_entry(document) for document in legal.DOCUMENTS],
        _entry(influencer.PAGE.value),
        _entry(
            contact.PAGE.value,
            path=paths.CONTACT,
            quoted={"response_promise": contact.PAGE.response_promise},
        ),
        _entry(schedule.PAGE.value),
        *[
            _entry(page, path=paths.service(page.id), name=page.listing.title, quoted=page.facts)
            for page in SERVICE_PAGES.values()
        ],
    )
    return tuple(entry.model_copy(update={"path": localized_path(entry.path)}) for entry in entries)


def _table() -> dict[str, PageEntry]:
    """The pages of the language in use, by path."""
    entries = _entries()
    table = {entry.path: entry for entry in entries}
    if len(table) != len(entries) or "" in table:
        raise ContentError("Every page needs its own path (meta.path).")
    return table


# The pages of the language in use by path (``PAGES.of("ca")``: the Catalan ones).
PAGES: Localized[dict[str, PageEntry]] = Localized(_table)


def _label(item: MenuItem, navigation: bool = False) -> Link:
    """A menu entry as a link: a page by its name (or navigation label), a link as written;
    its target in the language in use."""
    if isinstance(item, Link):
        return item.model_copy(update={"href": localized_path(item.href)})
    path = localized_path(item)
    if path not in PAGES:
        raise ContentError(f"content/{current()}/layout.yaml: the menus name {item!r}, not a page")
    page = PAGES[path]
    return Link(label=(page.nav_label if navigation else page.name) or "", href=path)


# The menus of layout.yaml, in order (SPEC §2); the services' in the order of their files.
NAVBAR: Localized[tuple[Link, ...]] = Localized(
    lambda: tuple(_label(item, navigation=True) for item in LAYOUT.navbar.links)
)
CONTACT_BUTTON: Localized[Link] = Localized(lambda: _label(LAYOUT.navbar.contact, navigation=True))
FOOTER_COMPANY: Localized[tuple[Link, ...]] = Localized(
    lambda: tuple(_label(item) for item in LAYOUT.footer.company_links)
)
FOOTER_LEGAL: Localized[tuple[Link, ...]] = Localized(
    lambda: tuple(_label(item) for item in LAYOUT.footer.legal_links)
)
SERVICES_MENU: Localized[tuple[Link, ...]] = Localized(
    lambda: tuple(
        Link(label=service.title, href=localized_path(paths.service(service.id)))
        for service in SERVICES
    )
)

"""Every page of the site by path: its name, description and sitemap priority, and the menus.

Read from each page's own content (its ``META``, a service page's ``meta``), with the
figures a description quotes filled in from that content. ``routes.py`` registers
these pages; the navigation bar and the footer list them from here.
"""

from collections.abc import Mapping, Sequence

from agency_site import paths
from agency_site.content import about, contact, home, influencer, schedule
from agency_site.content.base import Content, Link, PageMeta, figures
from agency_site.content.case_studies import CASE_STUDIES
from agency_site.content.service_pages import SERVICE_PAGES
from agency_site.content.services import SERVICES


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


# ---------------------------------------------------------------------------------------
# Pages whose content is being moved to YAML/Markdown files (case studies, careers, legal):
# their name and description stay here until those files carry a ``meta`` of their own.
_CASE_STUDIES_META = PageMeta(
    name="Casos de éxito",
    nav_label="Case Studies",
    description=(
        "Casos de éxito reales: cómo ayudamos a un e-commerce, a una influencer y a una "
        "empresa B2B a crecer con estrategias digitales y resultados medibles."
    ),
    priority=0.8,
)
# One per case, named by the case's title; {subtitle} is the case's own.
_CASE_STUDY_META = PageMeta(
    description=(
        "Caso de éxito: {subtitle}. Descubre el reto, la estrategia que aplicamos y los "
        "resultados conseguidos."
    ),
    priority=0.6,
)
_CAREERS_META = PageMeta(
    name="Trabaja con nosotros",
    description=(
        "Ofertas de empleo en marketing digital, desarrollo y contenidos: posiciones abiertas, "
        "salarios, beneficios y cómo enviarnos tu candidatura espontánea."
    ),
    priority=0.5,
)
_LEGAL_META: dict[str, PageMeta] = {
    paths.PRIVACY_POLICY: PageMeta(
        name="Política de privacidad",
        description=(
            "Política de privacidad: quién trata tus datos, con qué finalidad y base legal, a "
            "quién se comunican, cuánto tiempo se conservan y cómo ejercer tus derechos."
        ),
        priority=0.3,
    ),
    paths.TERMS_OF_SERVICE: PageMeta(
        name="Términos y condiciones",
        description=(
            "Términos y condiciones de uso del sitio web e información legal del titular "
            "conforme a la LSSI-CE: identificación, propiedad intelectual y responsabilidad."
        ),
        priority=0.3,
    ),
    paths.COOKIES_POLICY: PageMeta(
        name="Política de cookies",
        description=(
            "Política de cookies: qué datos guarda este sitio web en tu navegador y para qué. "
            "No usamos cookies de analítica ni de publicidad. Cómo borrarlos."
        ),
        priority=0.3,
    ),
}
# ---------------------------------------------------------------------------------------

PAGES: dict[str, PageEntry] = {
    entry.path: entry
    for entry in (
        _entry(paths.HOME, home.META),
        _entry(paths.ABOUT, about.META, figures(about.STATS)),
        _entry(paths.CASE_STUDIES, _CASE_STUDIES_META),
        *[
            _entry(
                paths.case_study(case.id),
                _CASE_STUDY_META.model_copy(update={"name": case.title}),
                {"subtitle": case.subtitle},
            )
            for case in CASE_STUDIES
        ],
        _entry(paths.CAREERS, _CAREERS_META),
        *[_entry(path, meta) for path, meta in _LEGAL_META.items()],
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

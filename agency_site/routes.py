"""The one registry of the site's pages: path, page function, title and description.

``agency_site.py`` registers exactly these routes (plus the not-found page);
tests, the sitemap and the navigation all read them from here.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import reflex as rx

from agency_site import paths
from agency_site.content.case_studies import CASE_STUDIES
from agency_site.content.seo import SEO
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
from agency_site.pages.services import (
    advertising,
    automation,
    branding,
    consulting,
    product_photography,
    social_media,
    training,
    visual_content,
    web_development,
)
from agency_site.seo import head, schema


@dataclass(frozen=True)
class Route:
    """A page of the site."""

    path: str
    page: Callable[[], rx.Component]
    name: str | None  # Prefix of the document title; None for the fixed title alone.
    description: str
    priority: float = 0.7
    # Page-specific JSON-LD entries (JobPosting, FAQPage, Service...), added to the
    # agency and the breadcrumbs every page carries.
    structured_data: Callable[[], Sequence[schema.JsonLd]] | None = None

    @property
    def title(self) -> str:
        """The document title."""
        return SITE.page_title(self.name)


def _service(service_id: str, module, name: str, description: str) -> Route:
    """A service page route, described to search engines as a ``Service``."""
    return Route(
        paths.service(service_id),
        module.page,
        name,
        description,
        0.8,
        structured_data=partial(schema.service, service_id),
    )


ROUTES: tuple[Route, ...] = (
    Route(
        paths.HOME,
        home.page,
        None,
        "Agencia de marketing digital y desarrollo web en Agramunt: branding, redes sociales, "
        "webs, publicidad y automatización para hacer crecer tu negocio.",
        1.0,
    ),
    Route(
        paths.ABOUT,
        about.page,
        "Sobre nosotros",
        "Conoce a nuestro equipo: más de 10 años, 500 clientes satisfechos y 1000 proyectos "
        "de marketing digital y desarrollo web con un ROI medio del 300%.",
    ),
    Route(
        paths.CASE_STUDIES,
        case_studies.page,
        "Casos de éxito",
        "Casos de éxito reales: cómo ayudamos a un e-commerce, a una influencer y a una "
        "empresa B2B a crecer con estrategias digitales y resultados medibles.",
        0.8,
    ),
    *[
        Route(
            paths.case_study(case.id),
            case_study.page_for(case),
            case.title,
            f"Caso de éxito: {case.subtitle}. Descubre el reto, la estrategia que aplicamos "
            "y los resultados conseguidos.",
            0.6,
        )
        for case in CASE_STUDIES
    ],
    Route(
        paths.CAREERS,
        careers.page,
        "Trabaja con nosotros",
        "Ofertas de empleo en marketing digital, desarrollo y contenidos: posiciones abiertas, "
        "salarios, beneficios y cómo enviarnos tu candidatura espontánea.",
        0.5,
        structured_data=schema.job_postings,
    ),
    Route(
        paths.PRIVACY_POLICY,
        privacy_policy.page,
        "Política de privacidad",
        "Política de privacidad: quién trata tus datos, con qué finalidad y base legal, a quién "
        "se comunican, cuánto tiempo se conservan y cómo ejercer tus derechos.",
        0.3,
    ),
    Route(
        paths.TERMS_OF_SERVICE,
        terms_of_service.page,
        "Términos y condiciones",
        "Términos y condiciones de uso del sitio web e información legal del titular conforme a "
        "la LSSI-CE: identificación, propiedad intelectual y responsabilidad.",
        0.3,
    ),
    Route(
        paths.COOKIES_POLICY,
        cookies_policy.page,
        "Política de cookies",
        "Política de cookies: qué datos guarda este sitio web en tu navegador y para qué. No "
        "usamos cookies de analítica ni de publicidad. Cómo borrarlos.",
        0.3,
    ),
    Route(
        paths.INFLUENCER_PROGRAM,
        influencer_program.page,
        "Programa para influencers",
        "Creamos tu infoproducto sin coste para ti y compartimos los beneficios: cursos, "
        "ebooks y programas online para influencers, coaches y creadores.",
        0.8,
    ),
    Route(
        paths.CONTACT,
        contact.page,
        "Contacto",
        "Contacta con nuestra agencia por e-mail, teléfono o WhatsApp. Respuesta garantizada en "
        "menos de 24 horas y presupuesto personalizado sin compromiso.",
        0.9,
        structured_data=schema.faq_page,
    ),
    Route(
        paths.SCHEDULE,
        schedule.page,
        "Agendar consulta",
        "Agenda una consulta gratuita con nuestro equipo: elige día y hora y te llamamos para "
        "analizar tu proyecto de marketing digital o desarrollo web.",
        0.9,
    ),
    _service(
        "branding",
        branding,
        "Branding y Diseño",
        "Branding y diseño de marca: logotipo, identidad corporativa y packaging. Packs "
        "Esencial desde 99€, Profesional desde 499€ y Empresarial desde 999€.",
    ),
    _service(
        "social-media",
        social_media,
        "Gestión de Redes Sociales",
        "Gestión profesional de redes sociales: estrategia, calendario editorial, diseño de "
        "publicaciones, comunidad e informes mensuales de resultados.",
    ),
    _service(
        "automation",
        automation,
        "Automatización de Marketing",
        "Automatización de marketing: embudos de venta, email marketing, integración con CRM, "
        "chatbots y lead scoring para vender más con menos esfuerzo.",
    ),
    _service(
        "web-development",
        web_development,
        "Desarrollo Web y E-commerce",
        "Desarrollo de webs corporativas, tiendas online y landing pages rápidas, seguras y "
        "optimizadas para SEO y conversión. Pide tu presupuesto.",
    ),
    _service(
        "advertising",
        advertising,
        "Publicidad Digital",
        "Campañas de publicidad digital en Google Ads, Meta Ads, TikTok y LinkedIn optimizadas "
        "cada semana para conseguir el máximo retorno de tu inversión.",
    ),
    _service(
        "visual-content",
        visual_content,
        "Contenido Visual",
        "Fotografía profesional, producción de vídeo, motion graphics y diseño gráfico para tu "
        "web, tus redes sociales y tus campañas de publicidad.",
    ),
    _service(
        "consulting",
        consulting,
        "Consultoría Empresarial",
        "Consultoría empresarial y estrategia digital: más de 500 proyectos de éxito, un ROI "
        "medio del 45% y un 98% de clientes satisfechos. Consulta gratuita.",
    ),
    _service(
        "training",
        training,
        "Formación Profesional",
        "Formación en marketing digital: más de 5000 alumnos, un 98% de satisfacción y grupos "
        "de 15 personas como máximo. Programas, cursos y formación in company.",
    ),
    _service(
        "product-photography",
        product_photography,
        "Fotografía de Producto para Amazon",
        "Fotografía de producto para Amazon con fondo blanco puro y contenido A+. Packs desde "
        "99€, entrega en 48-72 horas y un 32% más de conversión media.",
    ),
)

NOT_FOUND_TITLE = SITE.page_title("Página no encontrada")


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
        description="La página que buscas no existe o está en construcción.",
        image=head.social_image_url(),
        meta=head.not_found_meta(),
        context={"sitemap": None},
    )

"""Copy of the case study list and of the three case study detail pages.

One ``CaseStudy`` holds both what the list shows (SPEC §3 "summary": client, industry,
tags, challenge, solution, the three results, image) and what its detail page adds
(solution points, metric descriptions, key achievements, testimonial), so no figure
is written twice.
"""

from pydantic import Field

from agency_site import paths
from agency_site.content.base import Content, Hero, Image
from agency_site.content.sections import Action, CallToAction

HERO = Hero(
    eyebrow="Casos de éxito",
    heading="Resultados reales para clientes reales",
    intro=(
        "Descubre cómo hemos ayudado a tiendas online, influencers y empresas B2B a crecer "
        "con estrategias digitales a medida y resultados que se pueden medir."
    ),
)

DEFAULT_CASE_ID = "ecommerce-growth"


class CaseMetric(Content):
    """A result of a case: the figure, what it measures, an icon and how it was reached."""

    value: str
    label: str
    icon: str
    description: str


class CaseTestimonial(Content):
    """The client's words about the project."""

    quote: str
    author: str
    role: str
    image: Image


class CaseStudy(Content):
    """A case study: its id in the URL, the summary of the list and the detail page."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    subtitle: str
    client: str
    industry: str
    tags: tuple[str, ...] = Field(min_length=1)
    challenge: str
    solution: str
    solution_points: tuple[str, ...] = Field(min_length=1)
    results: tuple[CaseMetric, ...] = Field(min_length=3, max_length=3)
    key_achievements: tuple[str, ...] = Field(min_length=1)
    testimonial: CaseTestimonial
    image: Image


class CaseStudyLabels(Content):
    """Fixed headings and labels of the case study pages."""

    eyebrow: str
    client: str
    industry: str
    challenge: str
    solution: str
    results: str
    read_more: str
    solution_points: str
    overview: str
    achievements: str
    testimonial: str
    back: str


LABELS = CaseStudyLabels(
    eyebrow="Caso de éxito",
    client="Cliente",
    industry="Sector",
    challenge="El reto",
    solution="La solución",
    results="Resultados",
    read_more="Ver caso completo",
    solution_points="Qué hicimos",
    overview="El proyecto",
    achievements="Logros clave",
    testimonial="Lo que dice el cliente",
    back="Ver todos los casos",
)

LIST_CTA = CallToAction(
    title="¿Será tu negocio nuestro próximo caso de éxito?",
    text=(
        "Analizamos tu situación sin compromiso y te proponemos una estrategia con objetivos "
        "claros y medibles desde el primer mes."
    ),
    actions=(
        Action(label="Solicitar consulta gratuita", href=paths.CONTACT, icon="send"),
        Action(label="Agendar una llamada", href=paths.SCHEDULE, icon="calendar"),
    ),
)
DETAIL_CTA = CallToAction(
    title="¿Quieres resultados como estos?",
    text=(
        "Cuéntanos tus objetivos y te explicamos cómo aplicaríamos esta estrategia a tu "
        "negocio. La primera consulta es gratuita."
    ),
    actions=(Action(label="Solicitar consulta gratuita", href=paths.CONTACT, icon="send"),),
)

CASE_STUDIES: tuple[CaseStudy, ...] = (
    CaseStudy(
        id="ecommerce-growth",
        title="Crecimiento de un e-commerce de moda",
        subtitle="Cómo una tienda de moda sostenible dejó de depender de las rebajas",
        client="Bohème Store",
        industry="Moda y e-commerce",
        tags=("E-commerce", "Publicidad digital", "CRO"),
        challenge=(
            "Bohème Store tenía un producto excelente y una comunidad fiel en Instagram, pero "
            "su tienda online era lenta, convertía poco y dependía por completo de las "
            "rebajas para vender."
        ),
        solution=(
            "Rediseñamos la tienda pensando en el móvil, ordenamos el catálogo y pusimos en "
            "marcha campañas de captación y remarketing con un seguimiento semanal."
        ),
        solution_points=(
            "Nueva tienda online más rápida y con un proceso de compra en tres pasos",
            "Fichas de producto con fotos, guía de tallas y opiniones de clientes",
            "Campañas en Meta Ads y Google Shopping segmentadas por colección",
            "Email marketing automatizado: bienvenida, carrito abandonado y recompra",
        ),
        results=(
            CaseMetric(
                value="+45%",
                label="ventas",
                icon="trending-up",
                description="Crecimiento de la facturación online en los primeros seis meses.",
            ),
            CaseMetric(
                value="1200+",
                label="nuevos clientes",
                icon="users",
                description="Personas que compraron por primera vez en la tienda.",
            ),
            CaseMetric(
                value="2,5%",
                label="conversión",
                icon="percent",
                description="Tasa de conversión de la tienda, casi el doble que al empezar.",
            ),
        ),
        key_achievements=(
            "La tienda carga en menos de dos segundos en el móvil",
            "El email marketing genera una de cada cinco ventas",
            "Las ventas fuera de temporada de rebajas se han consolidado",
        ),
        testimonial=CaseTestimonial(
            quote=(
                "Por primera vez sabemos de dónde viene cada venta. La nueva tienda y las "
                "campañas nos han permitido crecer sin depender de los descuentos."
            ),
            author="Clara Vidal",
            role="Fundadora de Bohème Store",
            image=Image(
                src="https://images.unsplash.com/photo-1573496359142-b8d87734a5a2",
                alt="Retrato de Clara Vidal, fundadora de Bohème Store",
                width=400,
                height=400,
            ),
        ),
        image=Image(
            src="https://images.unsplash.com/photo-1441986300917-64674bd600d8",
            alt="Interior de una tienda de moda con prendas colgadas en percheros",
            width=1200,
            height=800,
        ),
    ),
    CaseStudy(
        id="influencer-success",
        title="De influencer a creadora de un infoproducto de éxito",
        subtitle="Un programa online de entrenamiento que genera ingresos cada mes",
        client="Andrea Ruiz",
        industry="Fitness y bienestar",
        tags=("Infoproducto", "Programa para influencers", "Automatización"),
        challenge=(
            "Andrea tenía una gran comunidad en Instagram y TikTok, pero sus ingresos "
            "dependían de colaboraciones puntuales con marcas y no tenía tiempo ni equipo "
            "para crear un producto propio."
        ),
        solution=(
            "Dentro de nuestro programa para influencers creamos con ella un programa online "
            "de entrenamiento en casa, sin coste inicial y con los beneficios compartidos."
        ),
        solution_points=(
            "Encuesta a su comunidad para definir el programa más demandado",
            "Grabación y edición profesional de más de 60 sesiones de entrenamiento",
            "Plataforma de alumnos con pagos mensuales y acceso desde el móvil",
            "Lanzamiento con lista de espera, directos y una secuencia de emails",
        ),
        results=(
            CaseMetric(
                value="15K€+",
                label="ingresos mensuales",
                icon="euro",
                description="Facturación recurrente del programa desde el tercer mes.",
            ),
            CaseMetric(
                value="800+",
                label="alumnos",
                icon="graduation-cap",
                description="Personas inscritas en el programa durante el primer año.",
            ),
            CaseMetric(
                value="75%",
                label="retención",
                icon="repeat",
                description="Alumnos que siguen suscritos después de tres meses.",
            ),
        ),
        key_achievements=(
            "Un ingreso estable que ya no depende de las colaboraciones con marcas",
            "Lista de espera completa antes de abrir las inscripciones",
            "Una comunidad de alumnos que recomienda el programa",
        ),
        testimonial=CaseTestimonial(
            quote=(
                "Yo solo tuve que hacer lo que mejor sé: entrenar y motivar. Ellos se "
                "encargaron de todo lo demás y hoy el programa es mi principal fuente de "
                "ingresos."
            ),
            author="Andrea Ruiz",
            role="Entrenadora personal e influencer de fitness",
            image=Image(
                src="https://images.unsplash.com/photo-1544005313-94ddf0286df2",
                alt="Retrato de Andrea Ruiz, entrenadora personal e influencer",
                width=400,
                height=400,
            ),
        ),
        image=Image(
            src="https://images.unsplash.com/photo-1517836357463-d25dfeac3438",
            alt="Mujer entrenando en un gimnasio mientras graba una sesión",
            width=1200,
            height=800,
        ),
    ),
    CaseStudy(
        id="b2b-leads",
        title="Generación de leads para una empresa B2B",
        subtitle="Más oportunidades comerciales de calidad con marketing automatizado",
        client="Tecnomec Solutions",
        industry="Maquinaria industrial",
        tags=("B2B", "Automatización", "LinkedIn Ads"),
        challenge=(
            "Tecnomec vendía maquinaria industrial casi solo a través de ferias y contactos. "
            "Su web apenas generaba solicitudes y el equipo comercial perdía tiempo con "
            "contactos poco interesados."
        ),
        solution=(
            "Diseñamos un sistema de captación con contenidos técnicos, campañas en LinkedIn "
            "y automatización del seguimiento, conectado con su CRM."
        ),
        solution_points=(
            "Guías técnicas descargables para cada sector industrial al que venden",
            "Campañas en LinkedIn Ads dirigidas a directores de planta y de compras",
            "Lead scoring y secuencias de emails según el interés de cada contacto",
            "Integración con el CRM y alertas al comercial cuando un lead está listo",
        ),
        results=(
            CaseMetric(
                value="+65%",
                label="leads",
                icon="magnet",
                description="Solicitudes de información cualificadas respecto al año anterior.",
            ),
            CaseMetric(
                value="15%",
                label="tasa de cierre",
                icon="handshake",
                description="Oportunidades generadas que acabaron en un contrato firmado.",
            ),
            CaseMetric(
                value="180%",
                label="ROI",
                icon="chart-column-increasing",
                description="Retorno de la inversión en marketing durante el primer año.",
            ),
        ),
        key_achievements=(
            "El equipo comercial dedica su tiempo a contactos preparados para comprar",
            "Un flujo constante de oportunidades durante todo el año, no solo en ferias",
            "Un ciclo de venta más corto gracias al seguimiento automatizado",
        ),
        testimonial=CaseTestimonial(
            quote=(
                "Ahora la web trabaja para nosotros. Cada semana llegan contactos que ya "
                "conocen nuestras máquinas y saben lo que necesitan."
            ),
            author="Sergio Blanco",
            role="Director general de Tecnomec Solutions",
            image=Image(
                src="https://images.unsplash.com/photo-1560250097-0b93528c311a",
                alt="Retrato de Sergio Blanco, director general de Tecnomec Solutions",
                width=400,
                height=400,
            ),
        ),
        image=Image(
            src="https://images.unsplash.com/photo-1552664730-d307ca884978",
            alt="Equipo comercial reunido revisando resultados en una sala de reuniones",
            width=1200,
            height=800,
        ),
    ),
)


def case_study_by_id(case_id: str) -> CaseStudy:
    """The case study with this id (``KeyError`` if there is none)."""
    for case in CASE_STUDIES:
        if case.id == case_id:
            return case
    raise KeyError(case_id)

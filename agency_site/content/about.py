"""Copy of the About page."""

from agency_site import paths
from agency_site.content.base import Benefit, Hero, Image, PageMeta, ServiceBlock, Stat
from agency_site.content.sections import Action, CallToAction, SectionHeading

META = PageMeta(
    name="Sobre nosotros",
    nav_label="About",
    # The figures are the STATS below (keys).
    description=(
        "Conoce a nuestro equipo: más de {years} años, {clients} clientes satisfechos y "
        "{projects} proyectos de marketing digital y desarrollo web con un ROI medio del {roi}."
    ),
)

HERO = Hero(
    eyebrow="Sobre nosotros",
    heading="Un equipo apasionado por hacer crecer negocios",
    intro=(
        "Somos una agencia de marketing digital y desarrollo web nacida en Agramunt. "
        "Combinamos creatividad, tecnología y datos para que empresas, profesionales y "
        "creadores consigan resultados que se pueden medir."
    ),
)
HERO_IMAGE = Image(
    src="https://images.unsplash.com/photo-1522071820081-009f0129c71c",
    alt="El equipo de la agencia trabajando junto en una mesa con portátiles",
    width=1200,
    height=800,
)

STATS_HEADING = SectionHeading(
    eyebrow="En cifras",
    title="Resultados que hablan por nosotros",
)
STATS: tuple[Stat, ...] = (
    Stat(value="500+", label="clientes satisfechos", key="clients"),
    Stat(value="1000+", label="proyectos", key="projects"),
    Stat(value="300%", label="ROI medio", key="roi"),
    Stat(value="10+", label="años", key="years"),
)

VALUES_HEADING = SectionHeading(
    eyebrow="Por qué elegirnos",
    title="Lo que nos diferencia",
    intro=(
        "Trabajamos como una extensión de tu equipo: con objetivos compartidos, "
        "transparencia total y la vista puesta en el retorno de cada euro invertido."
    ),
)
VALUES: tuple[Benefit, ...] = (
    Benefit(
        icon="chart-line",
        title="Resultados medibles",
        description=(
            "Fijamos objetivos claros desde el primer día y te mostramos cada mes cómo "
            "avanzamos hacia ellos, con datos y sin tecnicismos."
        ),
    ),
    Benefit(
        icon="users",
        title="Equipo multidisciplinar",
        description=(
            "Estrategas, diseñadores, desarrolladores, creativos y expertos en publicidad "
            "bajo un mismo techo, coordinados en tu proyecto."
        ),
    ),
    Benefit(
        icon="handshake",
        title="Trato cercano",
        description=(
            "Tienes un interlocutor que conoce tu negocio y te responde rápido. Nada de "
            "tickets ni de esperas interminables."
        ),
    ),
    Benefit(
        icon="rocket",
        title="Innovación constante",
        description=(
            "Probamos cada nueva herramienta, formato y plataforma para aplicar a tu negocio "
            "solo lo que de verdad funciona."
        ),
    ),
)

APPROACH_HEADING = SectionHeading(
    eyebrow="Nuestro método",
    title="Cómo trabajamos",
    intro="Un proceso claro en cuatro fases que repetimos y mejoramos en cada proyecto.",
)
APPROACH: tuple[ServiceBlock, ...] = (
    ServiceBlock(
        icon="search",
        title="Analizamos",
        description=(
            "Empezamos por entender tu negocio, tu mercado, tu competencia y a tus clientes."
        ),
        features=("Auditoría digital", "Estudio de la competencia", "Definición de objetivos"),
    ),
    ServiceBlock(
        icon="map",
        title="Planificamos",
        description="Diseñamos una estrategia a medida con acciones, plazos y presupuesto.",
        features=("Plan de acción", "Calendario de trabajo", "Indicadores de éxito"),
    ),
    ServiceBlock(
        icon="hammer",
        title="Ejecutamos",
        description=(
            "Nuestro equipo pone en marcha cada acción con calidad y en los plazos acordados."
        ),
        features=("Diseño y desarrollo", "Contenido y campañas", "Coordinación contigo"),
    ),
    ServiceBlock(
        icon="trending-up",
        title="Medimos y mejoramos",
        description=(
            "Analizamos los resultados y optimizamos de forma continua para crecer cada mes."
        ),
        features=("Informes mensuales", "Pruebas A/B", "Optimización continua"),
    ),
)

MISSION = CallToAction(
    title="Nuestra misión",
    text=(
        "Que cualquier empresa, profesional o creador, esté donde esté, tenga a su alcance el "
        "marketing digital y la tecnología de las grandes marcas. ¿Empezamos por la tuya?"
    ),
    actions=(Action(label="Hablemos de tu proyecto", href=paths.CONTACT, icon="send"),),
)

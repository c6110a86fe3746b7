"""Copy of the influencer / info-product programme landing (also teased on Home)."""

from agency_site import paths
from agency_site.content.base import Benefit, Content, Hero, Image, PageMeta, Stat
from agency_site.content.sections import Action, CallToAction, SectionHeading

META = PageMeta(
    name="Programa para influencers",
    nav_label="Influencer Program",
    description=(
        "Creamos tu infoproducto sin coste para ti y compartimos los beneficios: cursos, "
        "ebooks y programas online para influencers, coaches y creadores."
    ),
    priority=0.8,
)

HERO = Hero(
    eyebrow="Programa para influencers",
    heading="Convierte tu comunidad en un infoproducto rentable",
    intro=(
        "Creamos tu curso, ebook o programa online sin coste para ti: nos encargamos de la "
        "estrategia, la producción, la tecnología y la venta, y compartimos los beneficios."
    ),
)

HERO_ACTIONS: tuple[Action, ...] = (
    Action(label="Quiero mi infoproducto", href=paths.CONTACT, icon="send"),
    Action(label="Ver casos de éxito", href=paths.CASE_STUDIES),
)

HERO_IMAGE = Image(
    src="https://images.unsplash.com/photo-1611162616475-46b635cb6868",
    alt="Creadora de contenido grabando un vídeo para su comunidad con el móvil",
    width=1200,
    height=900,
)

STATS: tuple[Stat, ...] = (
    Stat(value="+300%", label="ROI"),
    Stat(value="45%", label="conversión"),
    Stat(value="90%", label="satisfacción"),
)
STATS_NOTE = (
    "Resultados medios de los lanzamientos de infoproductos que hemos creado con creadores."
)


class Step(Content):
    """A numbered step of how the programme works."""

    title: str
    description: str


class Deal(Content):
    """Who contributes what to the partnership."""

    title: str
    points: tuple[str, ...]


HOW_HEADING = SectionHeading(
    eyebrow="Cómo funciona",
    title="De tu conocimiento a un producto que se vende solo",
    intro=(
        "Un proceso probado en cuatro pasos. Tú decides el tema y el tono; nosotros ponemos "
        "el equipo, la inversión y la experiencia en lanzamientos."
    ),
)
STEPS: tuple[Step, ...] = (
    Step(
        title="Analizamos tu comunidad",
        description=(
            "Estudiamos tu audiencia, sus preguntas y lo que ya valora de ti para encontrar el "
            "infoproducto con más potencial de venta."
        ),
    ),
    Step(
        title="Diseñamos el producto contigo",
        description=(
            "Definimos juntos el formato (curso, ebook, membresía o mentoría), el temario y "
            "el precio, siempre con tu estilo y tu voz."
        ),
    ),
    Step(
        title="Producimos y lanzamos",
        description=(
            "Grabamos y editamos el contenido, montamos la plataforma y los pagos, y "
            "preparamos la campaña de lanzamiento para tu comunidad."
        ),
    ),
    Step(
        title="Compartimos los beneficios",
        description=(
            "Cada mes recibes tu parte de las ventas con informes transparentes. Si el "
            "producto no vende, tú no pierdes dinero: la inversión es nuestra."
        ),
    ),
)

DEAL_HEADING = SectionHeading(
    eyebrow="Un acuerdo sin riesgo",
    title="Sin coste para ti, beneficios compartidos",
    intro=(
        "Asumimos la inversión de crear y lanzar el infoproducto. Solo ganamos si tú ganas, "
        "así que trabajamos para que se venda desde el primer día."
    ),
)
DEALS: tuple[Deal, Deal] = (
    Deal(
        title="Tú aportas",
        points=(
            "Tu conocimiento y experiencia",
            "Tu comunidad y tu credibilidad",
            "Unas horas para grabar y revisar el contenido",
        ),
    ),
    Deal(
        title="Nosotros aportamos",
        points=(
            "Estrategia y diseño del infoproducto",
            "Guion, grabación y edición profesional",
            "Plataforma de venta, pagos y atención al alumno",
            "Campañas de lanzamiento y publicidad",
            "Toda la inversión inicial",
        ),
    ),
)

SERVICES_HEADING = SectionHeading(
    eyebrow="Qué hacemos por ti",
    title="Un equipo completo trabajando en tu lanzamiento",
)
SERVICES: tuple[Benefit, ...] = (
    Benefit(
        icon="lightbulb",
        title="Estrategia de producto",
        description="Validamos la idea con tu audiencia antes de producir nada.",
    ),
    Benefit(
        icon="video",
        title="Producción de contenido",
        description="Guion, grabación, edición y materiales descargables de calidad.",
    ),
    Benefit(
        icon="monitor-smartphone",
        title="Tecnología y plataforma",
        description="Área de alumnos, pasarela de pago y automatizaciones listas para vender.",
    ),
    Benefit(
        icon="megaphone",
        title="Marketing y ventas",
        description="Embudos, email marketing y publicidad para cada lanzamiento.",
    ),
    Benefit(
        icon="headset",
        title="Atención al alumno",
        description="Resolvemos las dudas técnicas y de pago para que tú te centres en crear.",
    ),
    Benefit(
        icon="chart-no-axes-combined",
        title="Informes transparentes",
        description="Ves en todo momento las ventas, los ingresos y tu parte de los beneficios.",
    ),
)

AUDIENCE_HEADING = SectionHeading(
    eyebrow="Para quién es",
    title="Pensado para quien ya tiene una comunidad que confía en él",
)
AUDIENCES: tuple[Benefit, ...] = (
    Benefit(
        icon="sparkles",
        title="Influencers",
        description="Con una audiencia fiel en Instagram, TikTok o YouTube que te pide más.",
    ),
    Benefit(
        icon="target",
        title="Coaches y mentores",
        description="Que quieren llegar a más personas sin multiplicar sus horas de sesión.",
    ),
    Benefit(
        icon="graduation-cap",
        title="Expertos y formadores",
        description="Que dominan una materia y quieren convertirla en un curso de referencia.",
    ),
    Benefit(
        icon="pen-tool",
        title="Creadores de contenido",
        description="Que buscan ingresos estables más allá de las colaboraciones con marcas.",
    ),
)

CTA = CallToAction(
    title="¿Tienes una comunidad y algo que enseñar?",
    text=(
        "Cuéntanos quién eres y a quién te diriges. Analizamos tu caso sin compromiso y te "
        "decimos qué infoproducto podríamos crear juntos."
    ),
    actions=HERO_ACTIONS,
)

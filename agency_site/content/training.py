"""The professional training service page: programmes, courses and in-company training."""

from agency_site import paths
from agency_site.content import service_actions as actions
from agency_site.content.base import Action, Benefit, Hero, Image, PageMeta, ServiceBlock, Stat
from agency_site.content.sections import CallToAction
from agency_site.content.service_sections import (
    BenefitsSection,
    BlocksSection,
    FeaturesSection,
    Programme,
    ProgrammesSection,
    ServicePage,
)

PAGE = ServicePage(
    id="training",
    meta=PageMeta(
        description=(
            "Formación en marketing digital: más de {students} alumnos, un {satisfaction} "
            "de satisfacción y grupos de 15 personas como máximo. Programas, cursos y "
            "formación in company."
        ),
        priority=0.8,
    ),
    hero=Hero(
        eyebrow="Formación Profesional",
        heading="Formación práctica en marketing digital",
        intro=(
            "Programas impartidos por profesionales en activo, en grupos reducidos y con casos "
            "reales, para que apliques lo aprendido desde el primer día."
        ),
    ),
    actions=(
        Action(label="Ver programas formativos", href=paths.CONTACT),
        Action(label="Agendar asesoría gratuita", href=paths.SCHEDULE),
    ),
    stats=(
        Stat(value="+5000", label="alumnos formados", key="students"),
        Stat(value="98%", label="de satisfacción", key="satisfaction"),
        Stat(value="+20", label="programas formativos"),
        Stat(value="85%", label="de empleabilidad"),
    ),
    highlight="Grupos reducidos: máximo 15 alumnos por clase",
    sections=(
        ProgrammesSection(
            eyebrow="Programas principales",
            title="Aprende con quien lo hace cada día",
            intro=(
                "Programas completos, con clases prácticas y un proyecto final sobre un caso "
                "real o sobre tu propio negocio."
            ),
            programmes=(
                Programme(
                    icon="megaphone",
                    title="Marketing Digital Avanzado",
                    duration="40 horas",
                    description=(
                        "Domina la estrategia y los canales del marketing digital y aprende a "
                        "medir el retorno de cada acción."
                    ),
                    topics=(
                        "Plan de marketing digital",
                        "SEO y publicidad en buscadores",
                        "Redes sociales y Meta Ads",
                        "Email marketing y automatización",
                        "Medición del ROI",
                    ),
                    cta=actions.REQUEST_INFO,
                ),
                Programme(
                    icon="chart-line",
                    title="Analítica Digital",
                    duration="30 horas",
                    description=(
                        "Convierte los datos de tu web y tus campañas en decisiones que mejoran "
                        "los resultados."
                    ),
                    topics=(
                        "Google Analytics 4",
                        "Google Tag Manager",
                        "Cuadros de mando con Looker Studio",
                        "Medición de conversiones",
                    ),
                    cta=actions.REQUEST_INFO,
                ),
                Programme(
                    icon="trending-up",
                    title="Growth Hacking",
                    duration="35 horas",
                    description=(
                        "Aprende a crecer rápido y con poco presupuesto mediante la "
                        "experimentación continua."
                    ),
                    topics=(
                        "Embudo AARRR",
                        "Diseño de experimentos y pruebas A/B",
                        "Herramientas no-code",
                        "Estrategias de referidos",
                    ),
                    cta=actions.REQUEST_INFO,
                ),
                Programme(
                    icon="user-round",
                    title="Personal Branding",
                    duration="25 horas",
                    description=(
                        "Construye una marca personal sólida que te abra puertas profesionales "
                        "y atraiga clientes."
                    ),
                    topics=(
                        "Propuesta de valor personal",
                        "LinkedIn como escaparate",
                        "Creación de contenido",
                        "Networking online",
                    ),
                    cta=actions.REQUEST_INFO,
                ),
            ),
        ),
        BlocksSection(
            eyebrow="Cursos especializados",
            title="Profundiza en una disciplina",
            intro="Cursos cortos y prácticos para dominar una herramienta o un canal concreto.",
            blocks=(
                ServiceBlock(
                    icon="shopping-bag",
                    title="E-commerce & Amazon",
                    description=(
                        "Monta y optimiza tu tienda online y vende en Amazon con fichas de "
                        "producto que convierten."
                    ),
                ),
                ServiceBlock(
                    icon="layout-template",
                    title="Diseño UX/UI",
                    description=(
                        "Diseña interfaces claras y agradables centradas en las necesidades de "
                        "quien las usa."
                    ),
                ),
                ServiceBlock(
                    icon="video",
                    title="Producción Audiovisual",
                    description=(
                        "Graba y edita vídeos profesionales para redes sociales con tu móvil o "
                        "con una cámara."
                    ),
                ),
                ServiceBlock(
                    icon="workflow",
                    title="Automatización",
                    description=(
                        "Automatiza tareas de marketing y ventas con herramientas no-code y "
                        "email marketing."
                    ),
                ),
            ),
        ),
        BlocksSection(
            eyebrow="Formación in company",
            title="Formación para tu equipo",
            intro="Llevamos la formación a tu empresa, adaptada a tus objetivos y a tu sector.",
            blocks=(
                ServiceBlock(
                    icon="building-2",
                    title="Formación a Medida",
                    description=(
                        "Diseñamos un programa a partir de las necesidades de tu equipo y lo "
                        "impartimos en tus instalaciones u online."
                    ),
                    features=(
                        "Análisis previo de necesidades",
                        "Contenidos con casos de tu empresa",
                        "Horarios adaptados al equipo",
                    ),
                ),
                ServiceBlock(
                    icon="messages-square",
                    title="Consultoría y Mentoring",
                    description=(
                        "Acompañamos a tu equipo mientras aplica lo aprendido, con sesiones "
                        "individuales o en grupo."
                    ),
                    features=(
                        "Sesiones de mentoring periódicas",
                        "Revisión de proyectos reales",
                        "Seguimiento de resultados",
                    ),
                ),
            ),
        ),
        BenefitsSection(
            eyebrow="Beneficios",
            title="Por qué formarte con nosotros",
            benefits=(
                Benefit(
                    icon="briefcase",
                    title="Profesores en activo",
                    description=(
                        "Te enseñan profesionales que aplican cada día lo que explican en "
                        "proyectos de clientes reales."
                    ),
                ),
                Benefit(
                    icon="hammer",
                    title="Aprendes haciendo",
                    description=(
                        "Cada clase combina teoría y práctica, y terminas con un proyecto que "
                        "puedes enseñar."
                    ),
                ),
                Benefit(
                    icon="user-check",
                    title="Atención personalizada",
                    description=(
                        "En grupos reducidos el profesor conoce tu proyecto y resuelve tus "
                        "dudas concretas."
                    ),
                ),
                Benefit(
                    icon="award",
                    title="Certificado y empleo",
                    description=(
                        "Obtienes un certificado de aprovechamiento y acceso a nuestra bolsa de "
                        "empleo y prácticas."
                    ),
                ),
            ),
        ),
        FeaturesSection(
            eyebrow="Cómo es la formación",
            title="Todo lo que incluye cada programa",
            features=(
                "Clases presenciales en Agramunt u online en directo",
                "Grabaciones de todas las sesiones",
                "Material didáctico descargable",
                "Proyecto final con casos reales",
                "Tutorías individuales",
                "Certificado de aprovechamiento",
                "Comunidad de antiguos alumnos",
                "Bolsa de empleo y prácticas",
            ),
            image=Image(
                src="https://images.unsplash.com/photo-1524178232363-1fb2b075b655",
                alt="Alumnos atendiendo una clase de formación en un aula",
                width=1200,
                height=800,
            ),
        ),
    ),
    cta=CallToAction(
        title="¿Qué programa encaja contigo?",
        text=(
            "Cuéntanos tu perfil y tus objetivos y te recomendamos la formación que más te "
            "conviene, con fechas y precios."
        ),
        actions=(actions.REQUEST_INFO,),
    ),
)

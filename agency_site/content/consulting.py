"""The business consulting service page."""

from agency_site.content import service_actions as actions
from agency_site.content.base import Benefit, Hero, Image, PageMeta, ServiceBlock, Stat
from agency_site.content.sections import CallToAction
from agency_site.content.service_sections import (
    BenefitsSection,
    BlocksSection,
    FeaturesSection,
    ServicePage,
    Step,
    StepsSection,
)

PAGE = ServicePage(
    id="consulting",
    meta=PageMeta(
        description=(
            "Consultoría empresarial y estrategia digital: más de {projects} proyectos de "
            "éxito, un ROI medio del {roi} y un {satisfied} de clientes satisfechos. "
            "Consulta gratuita."
        ),
        priority=0.8,
    ),
    hero=Hero(
        eyebrow="Consultoría Empresarial",
        heading="Decisiones estratégicas basadas en datos",
        intro=(
            "Analizamos tu negocio, tu mercado y tu competencia para diseñar contigo un plan "
            "de crecimiento digital realista, medible y rentable."
        ),
    ),
    actions=(actions.FREE_CONSULTATION, actions.SEE_CASE_STUDIES),
    stats=(
        Stat(value="+500", label="proyectos de éxito", key="projects"),
        Stat(value="+45%", label="ROI medio", key="roi"),
        Stat(value="98%", label="clientes satisfechos", key="satisfied"),
        Stat(value="15+", label="años de experiencia"),
    ),
    sections=(
        BlocksSection(
            eyebrow="Servicios principales",
            title="Consultoría para crecer con método",
            intro=(
                "Te acompañamos desde el diagnóstico hasta la implantación, con un equipo que "
                "combina estrategia, marketing y tecnología."
            ),
            blocks=(
                ServiceBlock(
                    icon="stethoscope",
                    title="Diagnóstico digital",
                    description=(
                        "Evaluamos tu presencia online, tus canales de venta y tus herramientas "
                        "para saber de dónde partes."
                    ),
                    features=("Auditoría de canales", "Madurez digital", "Oportunidades de mejora"),
                ),
                ServiceBlock(
                    icon="map",
                    title="Plan estratégico",
                    description=(
                        "Definimos objetivos, prioridades, presupuesto y calendario para los "
                        "próximos 12 a 24 meses."
                    ),
                    features=("Objetivos medibles", "Hoja de ruta", "Presupuesto por fases"),
                ),
                ServiceBlock(
                    icon="scan-search",
                    title="Análisis de la competencia",
                    description=(
                        "Estudiamos a tus competidores y a tu mercado para encontrar huecos "
                        "donde diferenciarte."
                    ),
                    features=(
                        "Benchmark de competidores",
                        "Posicionamiento",
                        "Tendencias del sector",
                    ),
                ),
                ServiceBlock(
                    icon="cpu",
                    title="Transformación digital",
                    description=(
                        "Elegimos e implantamos las herramientas que tu empresa necesita y "
                        "acompañamos al equipo en el cambio."
                    ),
                    features=(
                        "Selección de software",
                        "Digitalización de procesos",
                        "Gestión del cambio",
                    ),
                ),
                ServiceBlock(
                    icon="settings",
                    title="Optimización de procesos",
                    description=(
                        "Revisamos cómo trabajáis en marketing, ventas y atención al cliente para "
                        "eliminar tareas que no aportan."
                    ),
                    features=("Mapa de procesos", "Automatizaciones", "Ahorro de costes"),
                ),
                ServiceBlock(
                    icon="chart-pie",
                    title="Cuadros de mando",
                    description=(
                        "Reunimos los indicadores clave de tu negocio en un panel claro para "
                        "decidir con datos y no por intuición."
                    ),
                    features=("Definición de KPI", "Panel actualizado", "Informes para dirección"),
                ),
            ),
        ),
        BlocksSection(
            eyebrow="Servicios especializados",
            title="Para retos concretos",
            blocks=(
                ServiceBlock(
                    icon="store",
                    title="Consultoría para e-commerce",
                    description=(
                        "Mejoramos la conversión, el ticket medio y la recurrencia de tu tienda "
                        "online."
                    ),
                ),
                ServiceBlock(
                    icon="globe",
                    title="Internacionalización digital",
                    description=(
                        "Te ayudamos a vender en nuevos países con la web, los canales y los "
                        "mensajes adecuados a cada mercado."
                    ),
                ),
                ServiceBlock(
                    icon="rocket",
                    title="Lanzamiento de productos",
                    description=(
                        "Validamos la idea, definimos el precio y planificamos el lanzamiento "
                        "para reducir riesgos."
                    ),
                ),
                ServiceBlock(
                    icon="handshake",
                    title="Relevo y crecimiento de pymes",
                    description=(
                        "Acompañamos a empresas familiares en la profesionalización de su "
                        "gestión comercial y de marketing."
                    ),
                ),
            ),
        ),
        StepsSection(
            eyebrow="Cómo trabajamos",
            title="Un proceso claro de principio a fin",
            steps=(
                Step(
                    title="Consulta gratuita",
                    description=(
                        "Escuchamos tu situación y tus objetivos y te decimos con franqueza si "
                        "podemos ayudarte."
                    ),
                ),
                Step(
                    title="Diagnóstico",
                    description=(
                        "Analizamos datos, procesos y mercado y te presentamos las conclusiones "
                        "por escrito."
                    ),
                ),
                Step(
                    title="Plan de acción",
                    description=(
                        "Acordamos prioridades, responsables, plazos e indicadores para medir "
                        "el avance."
                    ),
                ),
                Step(
                    title="Seguimiento",
                    description=(
                        "Nos reunimos periódicamente para revisar resultados y ajustar el plan "
                        "cuando hace falta."
                    ),
                ),
            ),
            image=Image(
                src="https://images.unsplash.com/photo-1552664730-d307ca884978",
                alt="Equipo de consultores trabajando en una estrategia durante una reunión",
                width=1200,
                height=800,
            ),
        ),
        BenefitsSection(
            eyebrow="Beneficios",
            title="Por qué trabajar con nosotros",
            benefits=(
                Benefit(
                    icon="compass",
                    title="Visión externa",
                    description=(
                        "Vemos tu negocio sin inercias y detectamos oportunidades que desde "
                        "dentro pasan desapercibidas."
                    ),
                ),
                Benefit(
                    icon="chart-bar",
                    title="Decisiones con datos",
                    description=(
                        "Cada recomendación se apoya en números que puedes comprobar y seguir "
                        "en el tiempo."
                    ),
                ),
                Benefit(
                    icon="list-checks",
                    title="Planes que se cumplen",
                    description=(
                        "Proponemos acciones realistas para tu equipo y tu presupuesto, no "
                        "informes que acaban en un cajón."
                    ),
                ),
                Benefit(
                    icon="users",
                    title="Equipo multidisciplinar",
                    description=(
                        "Estrategia, marketing, tecnología y datos bajo un mismo techo y con un "
                        "único interlocutor."
                    ),
                ),
            ),
        ),
        FeaturesSection(
            eyebrow="Qué recibes",
            title="Incluido en cada proyecto de consultoría",
            features=(
                "Sesión inicial de diagnóstico sin coste",
                "Informe de conclusiones y prioridades",
                "Plan de acción con plazos y responsables",
                "Cuadro de mando con los indicadores clave",
                "Reuniones de seguimiento periódicas",
                "Un consultor de referencia para tu empresa",
                "Confidencialidad por contrato",
                "Formación a tu equipo para la implantación",
            ),
        ),
    ),
    cta=CallToAction(
        title="¿Tienes dudas antes de empezar?",
        text=(
            "Cuéntanos tu caso: te explicamos cómo trabajaríamos juntos y qué resultados "
            "puedes esperar."
        ),
        actions=(actions.ASK_QUESTIONS,),
    ),
)

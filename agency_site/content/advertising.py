"""The digital advertising service page."""

from agency_site.content import service_actions as actions
from agency_site.content.base import Benefit, Hero, Image, PageMeta, ServiceBlock
from agency_site.content.sections import CallToAction
from agency_site.content.service_sections import (
    BenefitsSection,
    BlocksSection,
    ServicePage,
    Step,
    StepsSection,
)

PAGE = ServicePage(
    id="advertising",
    meta=PageMeta(
        description=(
            "Campañas de publicidad digital en Google Ads, Meta Ads, TikTok y LinkedIn "
            "optimizadas cada semana para conseguir el máximo retorno de tu inversión."
        ),
        priority=0.8,
    ),
    hero=Hero(
        eyebrow="Publicidad Digital",
        heading="Publicidad que se mide en ventas",
        intro=(
            "Campañas en Google, Meta, TikTok y LinkedIn diseñadas y optimizadas cada semana "
            "para llegar a tu cliente ideal con el mejor retorno de la inversión."
        ),
    ),
    actions=(actions.TALK_TO_US, actions.SEE_CASE_STUDIES),
    sections=(
        BlocksSection(
            eyebrow="Qué incluye",
            title="Cada euro, en el canal que mejor funciona",
            intro=(
                "Elegimos las plataformas según dónde está tu cliente y en qué momento de la "
                "compra se encuentra."
            ),
            blocks=(
                ServiceBlock(
                    icon="search",
                    title="Google Ads",
                    description=(
                        "Anuncios en el buscador, en Shopping y en YouTube para aparecer justo "
                        "cuando te están buscando."
                    ),
                    features=("Búsqueda y Shopping", "Performance Max", "Campañas en YouTube"),
                ),
                ServiceBlock(
                    icon="thumbs-up",
                    title="Meta Ads",
                    description=(
                        "Campañas en Facebook e Instagram con segmentación por intereses, "
                        "comportamientos y públicos similares."
                    ),
                    features=(
                        "Captación de contactos",
                        "Campañas de venta",
                        "Creatividades por formato",
                    ),
                ),
                ServiceBlock(
                    icon="music",
                    title="TikTok Ads",
                    description=(
                        "Anuncios nativos en vídeo vertical para llegar a un público joven con "
                        "el lenguaje de la plataforma."
                    ),
                    features=("Vídeos nativos", "Spark Ads", "Públicos personalizados"),
                ),
                ServiceBlock(
                    icon="briefcase",
                    title="LinkedIn Ads",
                    description=(
                        "Campañas B2B segmentadas por empresa, sector y cargo para llegar a "
                        "quien toma las decisiones."
                    ),
                    features=(
                        "Segmentación por cargo",
                        "Formularios de contacto",
                        "Mensajes patrocinados",
                    ),
                ),
                ServiceBlock(
                    icon="rotate-ccw",
                    title="Remarketing",
                    description=(
                        "Volvemos a impactar a quien ya visitó tu web o tu tienda para que "
                        "termine la compra."
                    ),
                    features=(
                        "Carritos abandonados",
                        "Anuncios dinámicos",
                        "Listas por comportamiento",
                    ),
                ),
                ServiceBlock(
                    icon="chart-line",
                    title="Optimización continua",
                    description=(
                        "Revisamos pujas, anuncios y públicos cada semana y movemos el "
                        "presupuesto hacia lo que funciona."
                    ),
                    features=(
                        "Medición de conversiones",
                        "Pruebas de creatividades",
                        "Informe mensual",
                    ),
                ),
            ),
        ),
        StepsSection(
            eyebrow="Cómo trabajamos",
            title="Campañas con objetivos, no solo con clics",
            steps=(
                Step(
                    title="Objetivos y medición",
                    description=(
                        "Definimos qué es una conversión para tu negocio y dejamos la medición "
                        "preparada antes de invertir."
                    ),
                ),
                Step(
                    title="Estrategia y creatividades",
                    description=(
                        "Elegimos canales, públicos y presupuestos y preparamos los anuncios "
                        "de cada plataforma."
                    ),
                ),
                Step(
                    title="Lanzamiento",
                    description=(
                        "Activamos las campañas con pruebas controladas para aprender rápido qué "
                        "funciona."
                    ),
                ),
                Step(
                    title="Optimización semanal",
                    description=(
                        "Ajustamos pujas, anuncios y presupuesto cada semana y te lo contamos "
                        "en un informe claro."
                    ),
                ),
            ),
            image=Image(
                src="https://images.unsplash.com/photo-1460925895917-afdab827c52f",
                alt="Portátil con gráficos de rendimiento de campañas",
                width=1200,
                height=800,
            ),
        ),
        BenefitsSection(
            eyebrow="Beneficios",
            title="Publicidad que se paga sola",
            benefits=(
                Benefit(
                    icon="crosshair",
                    title="Llegas a quien te interesa",
                    description=(
                        "Tus anuncios solo se muestran al público con más probabilidades de "
                        "comprarte."
                    ),
                ),
                Benefit(
                    icon="piggy-bank",
                    title="Presupuesto bajo control",
                    description=(
                        "Tú decides cuánto invertir y sabes en todo momento en qué se gasta "
                        "cada euro."
                    ),
                ),
                Benefit(
                    icon="rocket",
                    title="Resultados desde el primer mes",
                    description=(
                        "La publicidad bien planteada trae visitas y contactos desde el mismo "
                        "día en que se activa."
                    ),
                ),
                Benefit(
                    icon="file-chart-column",
                    title="Transparencia total",
                    description=(
                        "Las cuentas publicitarias son tuyas y ves los mismos datos que nosotros."
                    ),
                ),
            ),
        ),
    ),
    cta=CallToAction(
        title="¿Quieres que tu publicidad rinda más?",
        text=(
            "Revisamos tus campañas actuales o te proponemos cómo empezar, con una estimación "
            "de inversión y resultados."
        ),
        actions=(actions.TALK_TO_US, actions.SEE_CASE_STUDIES),
    ),
)

"""The social media management service page."""

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
    id="social-media",
    meta=PageMeta(
        description=(
            "Gestión profesional de redes sociales: estrategia, calendario editorial, "
            "diseño de publicaciones, comunidad e informes mensuales de resultados."
        ),
        priority=0.8,
    ),
    hero=Hero(
        eyebrow="Gestión de Redes Sociales",
        heading="Redes sociales que generan negocio",
        intro=(
            "Estrategia, contenido y gestión de comunidad para que tus perfiles dejen de ser "
            "un escaparate y se conviertan en una fuente constante de clientes."
        ),
    ),
    actions=(actions.TALK_TO_US, actions.SEE_CASE_STUDIES),
    sections=(
        BlocksSection(
            eyebrow="Qué incluye",
            title="Nos ocupamos de tus redes de principio a fin",
            intro=(
                "Elegimos contigo las redes en las que está tu cliente y trabajamos cada una con "
                "su propio lenguaje: Instagram, Facebook, LinkedIn o TikTok."
            ),
            blocks=(
                ServiceBlock(
                    icon="target",
                    title="Estrategia de contenidos",
                    description=(
                        "Definimos objetivos, público, tono de voz y los temas que harán que "
                        "tu marca sea relevante para quien te sigue."
                    ),
                    features=("Análisis de tu competencia", "Pilares de contenido", "KPI por red"),
                ),
                ServiceBlock(
                    icon="calendar-days",
                    title="Calendario editorial",
                    description=(
                        "Planificamos las publicaciones de cada mes y te las presentamos para "
                        "que las apruebes antes de publicar."
                    ),
                    features=(
                        "Planificación mensual",
                        "Fechas clave de tu sector",
                        "Aprobación previa",
                    ),
                ),
                ServiceBlock(
                    icon="image",
                    title="Diseño de publicaciones",
                    description=(
                        "Creamos imágenes, carruseles, stories y vídeos cortos con una estética "
                        "reconocible y alineada con tu marca."
                    ),
                    features=("Carruseles y stories", "Reels y vídeos cortos", "Textos y hashtags"),
                ),
                ServiceBlock(
                    icon="messages-square",
                    title="Gestión de comunidad",
                    description=(
                        "Respondemos comentarios y mensajes con tu tono, moderamos la "
                        "conversación y detectamos oportunidades de venta."
                    ),
                    features=(
                        "Respuesta en horario laboral",
                        "Moderación de comentarios",
                        "Aviso de posibles clientes",
                    ),
                ),
                ServiceBlock(
                    icon="users",
                    title="Campañas con influencers",
                    description=(
                        "Buscamos perfiles afines a tu marca, negociamos las colaboraciones y "
                        "medimos lo que aporta cada una."
                    ),
                    features=(
                        "Selección de perfiles",
                        "Briefing y negociación",
                        "Medición de resultados",
                    ),
                ),
                ServiceBlock(
                    icon="chart-column",
                    title="Informes mensuales",
                    description=(
                        "Cada mes te enviamos un informe claro con lo que ha funcionado, lo que "
                        "no y lo que vamos a cambiar."
                    ),
                    features=(
                        "Alcance e interacción",
                        "Crecimiento de seguidores",
                        "Conversiones y ventas",
                    ),
                ),
            ),
        ),
        StepsSection(
            eyebrow="Cómo trabajamos",
            title="Un método que se mide cada mes",
            steps=(
                Step(
                    title="Auditoría",
                    description=(
                        "Revisamos tus perfiles, tus resultados actuales y lo que hace tu "
                        "competencia."
                    ),
                ),
                Step(
                    title="Estrategia",
                    description="Fijamos objetivos, redes prioritarias, tono y frecuencia de publicación.",
                ),
                Step(
                    title="Producción y publicación",
                    description=(
                        "Creamos el contenido, lo apruebas y lo publicamos en el mejor momento "
                        "para tu audiencia."
                    ),
                ),
                Step(
                    title="Análisis y mejora",
                    description=(
                        "Medimos los resultados y ajustamos el plan del mes siguiente con lo "
                        "aprendido."
                    ),
                ),
            ),
            image=Image(
                src="https://images.unsplash.com/photo-1611162617474-5b21e879e113",
                alt="Teléfono móvil con aplicaciones de redes sociales",
                width=1200,
                height=800,
            ),
        ),
        BenefitsSection(
            eyebrow="Beneficios",
            title="Qué ganas con una gestión profesional",
            benefits=(
                Benefit(
                    icon="clock",
                    title="Recuperas tu tiempo",
                    description=(
                        "Dejas de improvisar publicaciones y te centras en atender a los "
                        "clientes que llegan."
                    ),
                ),
                Benefit(
                    icon="heart-handshake",
                    title="Una comunidad fiel",
                    description=(
                        "La constancia y la buena atención convierten seguidores en clientes "
                        "que te recomiendan."
                    ),
                ),
                Benefit(
                    icon="palette",
                    title="Imagen coherente",
                    description=(
                        "Todos tus perfiles transmiten la misma marca, con la misma calidad, "
                        "cada semana."
                    ),
                ),
                Benefit(
                    icon="chart-line",
                    title="Resultados medibles",
                    description=(
                        "Sabes qué te aportan las redes porque lo medimos y te lo contamos "
                        "con datos."
                    ),
                ),
            ),
        ),
    ),
    cta=CallToAction(
        title="¿Hacemos crecer tus redes sociales?",
        text=(
            "Cuéntanos qué redes usas y qué quieres conseguir; te proponemos un plan adaptado "
            "a tu negocio y a tu presupuesto."
        ),
        actions=(actions.TALK_TO_US, actions.SEE_CASE_STUDIES),
    ),
)

"""The visual content service page."""

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
    id="visual-content",
    meta=PageMeta(
        description=(
            "Fotografía profesional, producción de vídeo, motion graphics y diseño gráfico "
            "para tu web, tus redes sociales y tus campañas de publicidad."
        ),
        priority=0.8,
    ),
    hero=Hero(
        eyebrow="Contenido Visual",
        heading="Imágenes y vídeos que cuentan tu historia",
        intro=(
            "Fotografía, vídeo y diseño gráfico profesional para tu web, tus redes sociales y "
            "tus campañas, con un estilo coherente con tu marca."
        ),
    ),
    actions=(actions.REQUEST_QUOTE, actions.SEE_PORTFOLIO),
    sections=(
        BlocksSection(
            eyebrow="Qué incluye",
            title="Todo el contenido visual de tu marca",
            intro=(
                "Un mismo equipo para la foto, el vídeo y el diseño, para que todo tu contenido "
                "hable el mismo idioma."
            ),
            blocks=(
                ServiceBlock(
                    icon="camera",
                    title="Fotografía profesional",
                    description=(
                        "Producto, equipo, instalaciones y eventos, en estudio o en tu negocio, "
                        "con luz y composición cuidadas."
                    ),
                    features=(
                        "Sesiones en estudio o exteriores",
                        "Retrato corporativo",
                        "Fotografía de producto",
                    ),
                ),
                ServiceBlock(
                    icon="clapperboard",
                    title="Producción de vídeo",
                    description=(
                        "Vídeos corporativos, de producto y testimonios de clientes, desde el "
                        "guion hasta la edición final."
                    ),
                    features=(
                        "Guion y planificación",
                        "Rodaje con equipo profesional",
                        "Locución y música",
                    ),
                ),
                ServiceBlock(
                    icon="smartphone",
                    title="Vídeos para redes sociales",
                    description=(
                        "Reels, TikToks y stories en formato vertical, pensados para captar la "
                        "atención en los primeros segundos."
                    ),
                    features=("Formato vertical", "Subtítulos incluidos", "Series de contenido"),
                ),
                ServiceBlock(
                    icon="sparkles",
                    title="Motion graphics",
                    description=(
                        "Animaciones que explican tu producto o servicio de forma clara y "
                        "atractiva."
                    ),
                    features=(
                        "Vídeos explicativos",
                        "Logotipos animados",
                        "Gráficos para anuncios",
                    ),
                ),
                ServiceBlock(
                    icon="pen-tool",
                    title="Diseño gráfico",
                    description=(
                        "Creatividades para campañas, presentaciones, catálogos e infografías "
                        "con tu identidad visual."
                    ),
                    features=(
                        "Creatividades publicitarias",
                        "Catálogos y presentaciones",
                        "Infografías",
                    ),
                ),
                ServiceBlock(
                    icon="wand-sparkles",
                    title="Edición y postproducción",
                    description=(
                        "Retoque fotográfico, corrección de color y montaje para que cada pieza "
                        "luzca profesional."
                    ),
                    features=("Retoque y color", "Montaje de vídeo", "Adaptación a cada formato"),
                ),
            ),
        ),
        StepsSection(
            eyebrow="Cómo trabajamos",
            title="Producción sin complicaciones",
            steps=(
                Step(
                    title="Briefing",
                    description=(
                        "Entendemos qué quieres comunicar, dónde se va a publicar y a quién va "
                        "dirigido."
                    ),
                ),
                Step(
                    title="Preproducción",
                    description=(
                        "Preparamos guion, localizaciones, estilismo y un plan de rodaje o "
                        "sesión detallado."
                    ),
                ),
                Step(
                    title="Sesión o rodaje",
                    description=(
                        "Nuestro equipo se desplaza a tu negocio o trabaja en estudio con "
                        "material profesional."
                    ),
                ),
                Step(
                    title="Edición y entrega",
                    description=(
                        "Editamos, aplicamos tus comentarios y entregamos cada pieza en los "
                        "formatos que necesitas."
                    ),
                ),
            ),
            image=Image(
                src="https://images.unsplash.com/photo-1492691527719-9d1e07e534b4",
                alt="Cámara de vídeo profesional durante un rodaje",
                width=1200,
                height=800,
            ),
        ),
        BenefitsSection(
            eyebrow="Beneficios",
            title="Contenido que se nota",
            benefits=(
                Benefit(
                    icon="eye",
                    title="Captas la atención",
                    description=(
                        "Las imágenes de calidad detienen el scroll y hacen que tu mensaje se lea."
                    ),
                ),
                Benefit(
                    icon="badge-check",
                    title="Imagen profesional",
                    description=(
                        "Fotos y vídeos propios transmiten más confianza que cualquier imagen "
                        "de archivo."
                    ),
                ),
                Benefit(
                    icon="layout-grid",
                    title="Material para meses",
                    description=(
                        "Planificamos cada sesión para obtener contenido suficiente para tu "
                        "web, tus redes y tus anuncios."
                    ),
                ),
                Benefit(
                    icon="palette",
                    title="Estilo coherente",
                    description=(
                        "Todas las piezas siguen tu identidad visual y se reconocen como tuyas."
                    ),
                ),
            ),
        ),
    ),
    cta=CallToAction(
        title="¿Preparamos tu próxima sesión?",
        text=(
            "Cuéntanos qué necesitas mostrar y te enviaremos una propuesta de producción con "
            "fechas y presupuesto."
        ),
        actions=(actions.REQUEST_QUOTE, actions.SEE_PORTFOLIO),
    ),
)

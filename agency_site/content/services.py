"""The nine services the agency sells, as shown in the menu and the Home grid."""

from pydantic import Field

from agency_site.content.base import Content


class Service(Content):
    """A service line: its page id, name, icon, card gradient, summary and what it includes."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    icon: str
    gradient: str
    description: str
    features: tuple[str, ...] = Field(min_length=6, max_length=6)


SERVICES: tuple[Service, ...] = (
    Service(
        id="branding",
        title="Branding y Diseño",
        icon="palette",
        gradient="from-pink-500 to-rose-500",
        description="Creamos identidades de marca memorables que conectan con tu público y te diferencian de la competencia.",
        features=(
            "Diseño de logotipo",
            "Manual de identidad corporativa",
            "Paleta de colores y tipografías",
            "Papelería corporativa",
            "Diseño de packaging",
            "Rebranding de marcas existentes",
        ),
    ),
    Service(
        id="social-media",
        title="Gestión de Redes Sociales",
        icon="share-2",
        gradient="from-blue-500 to-cyan-500",
        description="Gestionamos tus redes sociales con estrategia, contenido de calidad y una comunidad que crece cada mes.",
        features=(
            "Estrategia de contenidos",
            "Calendario editorial",
            "Diseño de publicaciones",
            "Gestión de comunidad",
            "Campañas con influencers",
            "Informes mensuales de resultados",
        ),
    ),
    Service(
        id="automation",
        title="Automatización de Marketing",
        icon="workflow",
        gradient="from-violet-500 to-purple-600",
        description="Automatizamos tus procesos de captación y venta para que tu negocio trabaje por ti las 24 horas.",
        features=(
            "Embudos de venta automatizados",
            "Email marketing y secuencias",
            "Integración con CRM",
            "Chatbots y respuestas automáticas",
            "Lead scoring",
            "Flujos de nutrición de clientes",
        ),
    ),
    Service(
        id="web-development",
        title="Desarrollo Web y E-commerce",
        icon="code",
        gradient="from-emerald-500 to-teal-600",
        description="Diseñamos y desarrollamos webs y tiendas online rápidas, seguras y pensadas para convertir.",
        features=(
            "Webs corporativas",
            "Tiendas online",
            "Landing pages de conversión",
            "Optimización de velocidad",
            "SEO técnico",
            "Mantenimiento y soporte",
        ),
    ),
    Service(
        id="advertising",
        title="Publicidad Digital",
        icon="megaphone",
        gradient="from-orange-500 to-amber-500",
        description="Campañas de publicidad en Google, Meta y TikTok optimizadas para conseguir el máximo retorno de tu inversión.",
        features=(
            "Google Ads",
            "Meta Ads (Facebook e Instagram)",
            "TikTok Ads",
            "LinkedIn Ads",
            "Remarketing",
            "Optimización continua del ROI",
        ),
    ),
    Service(
        id="visual-content",
        title="Contenido Visual",
        icon="camera",
        gradient="from-fuchsia-500 to-pink-600",
        description="Fotografía, vídeo y diseño gráfico profesional que cuentan la historia de tu marca y captan la atención.",
        features=(
            "Fotografía profesional",
            "Producción de vídeo",
            "Vídeos para redes sociales",
            "Motion graphics",
            "Diseño gráfico",
            "Edición y postproducción",
        ),
    ),
    Service(
        id="consulting",
        title="Consultoría Empresarial",
        icon="briefcase",
        gradient="from-slate-600 to-slate-800",
        description="Te ayudamos a definir la estrategia digital de tu empresa y a tomar decisiones basadas en datos.",
        features=(
            "Diagnóstico digital",
            "Plan estratégico",
            "Análisis de la competencia",
            "Transformación digital",
            "Optimización de procesos",
            "Cuadros de mando e indicadores",
        ),
    ),
    Service(
        id="training",
        title="Formación Profesional",
        icon="graduation-cap",
        gradient="from-indigo-500 to-blue-600",
        description="Programas de formación práctica en marketing digital para profesionales y equipos de empresa.",
        features=(
            "Marketing digital avanzado",
            "Analítica digital",
            "Growth hacking",
            "Personal branding",
            "Formación in company",
            "Mentoring personalizado",
        ),
    ),
    Service(
        id="product-photography",
        title="Fotografía de Producto para Amazon",
        icon="package",
        gradient="from-yellow-500 to-orange-500",
        description="Fotografías de producto que cumplen los requisitos de Amazon y aumentan la conversión de tus listados.",
        features=(
            "Imagen principal sobre fondo blanco",
            "Fotos de detalle",
            "Fotos lifestyle",
            "Vista 360°",
            "Contenido A+",
            "Infografías de producto",
        ),
    ),
)


def service_by_id(service_id: str) -> Service:
    """The service with this id (``KeyError`` if there is none)."""
    for service in SERVICES:
        if service.id == service_id:
            return service
    raise KeyError(service_id)

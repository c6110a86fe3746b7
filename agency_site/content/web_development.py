"""The web development and e-commerce service page."""

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
    id="web-development",
    meta=PageMeta(
        description=(
            "Desarrollo de webs corporativas, tiendas online y landing pages rápidas, "
            "seguras y optimizadas para SEO y conversión. Pide tu presupuesto."
        ),
        priority=0.8,
    ),
    hero=Hero(
        eyebrow="Desarrollo Web y E-commerce",
        heading="Webs y tiendas online que venden",
        intro=(
            "Desarrollamos webs corporativas, tiendas online y landing pages rápidas, seguras "
            "y optimizadas para buscadores y para la conversión."
        ),
    ),
    actions=(actions.REQUEST_QUOTE, actions.SEE_PORTFOLIO),
    sections=(
        BlocksSection(
            eyebrow="Qué incluye",
            title="Tu web, lista para crecer",
            intro=(
                "Diseñamos y programamos cada proyecto a partir de tus objetivos de negocio, "
                "no de una plantilla."
            ),
            blocks=(
                ServiceBlock(
                    icon="building-2",
                    title="Webs corporativas",
                    description=(
                        "Una web que explica bien lo que haces, transmite confianza y convierte "
                        "visitas en contactos."
                    ),
                    features=("Diseño a medida", "Gestor de contenidos sencillo", "Multidioma"),
                ),
                ServiceBlock(
                    icon="shopping-cart",
                    title="Tiendas online",
                    description=(
                        "E-commerce con catálogo, pasarela de pago, envíos e integración con "
                        "tu stock y tu facturación."
                    ),
                    features=(
                        "WooCommerce o Shopify",
                        "Pagos con tarjeta y Bizum",
                        "Gestión de envíos",
                    ),
                ),
                ServiceBlock(
                    icon="mouse-pointer-click",
                    title="Landing pages",
                    description=(
                        "Páginas enfocadas a una sola acción para tus campañas de publicidad y "
                        "lanzamientos."
                    ),
                    features=(
                        "Textos orientados a conversión",
                        "Pruebas A/B",
                        "Medición de resultados",
                    ),
                ),
                ServiceBlock(
                    icon="zap",
                    title="Optimización de velocidad",
                    description=(
                        "Webs que cargan en un instante en el móvil, porque cada segundo de "
                        "espera cuesta clientes."
                    ),
                    features=("Core Web Vitals", "Imágenes optimizadas", "Caché y CDN"),
                ),
                ServiceBlock(
                    icon="search",
                    title="SEO técnico",
                    description=(
                        "Estructura, etiquetas y datos estructurados para que Google entienda y "
                        "posicione tu web."
                    ),
                    features=(
                        "Arquitectura de contenidos",
                        "Datos estructurados",
                        "Sitemap y redirecciones",
                    ),
                ),
                ServiceBlock(
                    icon="wrench",
                    title="Mantenimiento y soporte",
                    description=(
                        "Actualizaciones, copias de seguridad y un equipo que responde cuando "
                        "necesitas un cambio."
                    ),
                    features=(
                        "Copias de seguridad",
                        "Actualizaciones de seguridad",
                        "Soporte técnico",
                    ),
                ),
            ),
        ),
        StepsSection(
            eyebrow="Cómo trabajamos",
            title="Del primer boceto a la publicación",
            steps=(
                Step(
                    title="Análisis y arquitectura",
                    description=(
                        "Definimos objetivos, público, páginas y funcionalidades antes de "
                        "diseñar nada."
                    ),
                ),
                Step(
                    title="Diseño",
                    description=(
                        "Creamos el diseño de las páginas clave en móvil y escritorio para que "
                        "lo valides."
                    ),
                ),
                Step(
                    title="Desarrollo y pruebas",
                    description=(
                        "Programamos la web, cargamos los contenidos y la probamos en "
                        "distintos dispositivos y navegadores."
                    ),
                ),
                Step(
                    title="Lanzamiento y formación",
                    description=(
                        "Publicamos la web, configuramos la analítica y te enseñamos a gestionarla."
                    ),
                ),
            ),
            image=Image(
                src="https://images.unsplash.com/photo-1498050108023-c5249f4df085",
                alt="Portátil con código de desarrollo web en la pantalla",
                width=1200,
                height=800,
            ),
        ),
        BenefitsSection(
            eyebrow="Beneficios",
            title="Una web que trabaja para tu negocio",
            benefits=(
                Benefit(
                    icon="smartphone",
                    title="Perfecta en el móvil",
                    description=(
                        "Diseñamos primero para el móvil, que es desde donde llegan la mayoría "
                        "de tus visitas."
                    ),
                ),
                Benefit(
                    icon="shield-check",
                    title="Segura",
                    description=(
                        "Certificado SSL, actualizaciones y copias de seguridad para que tu web "
                        "esté siempre disponible."
                    ),
                ),
                Benefit(
                    icon="trending-up",
                    title="Pensada para convertir",
                    description=(
                        "Cada página tiene un objetivo claro y una llamada a la acción que lleva "
                        "a conseguirlo."
                    ),
                ),
                Benefit(
                    icon="key-round",
                    title="Es tuya",
                    description=(
                        "El dominio, el código y los contenidos son tuyos, sin permanencias ni "
                        "dependencias."
                    ),
                ),
            ),
        ),
    ),
    cta=CallToAction(
        title="¿Hablamos de tu nueva web?",
        text=(
            "Agenda una llamada con nuestro equipo o pídenos presupuesto: te respondemos con "
            "una propuesta clara y sin compromiso."
        ),
        actions=(actions.SCHEDULE_CALL, actions.REQUEST_QUOTE),
    ),
)

"""The Amazon product photography service page: services, packs, claims and portfolio teaser."""

from agency_site.content import service_actions as actions
from agency_site.content.base import Benefit, Hero, Image, Pack, PageMeta, ServiceBlock, Stat
from agency_site.content.sections import CallToAction
from agency_site.content.service_sections import (
    BenefitsSection,
    BlocksSection,
    GallerySection,
    PacksSection,
    ServicePage,
)

PAGE = ServicePage(
    id="product-photography",
    meta=PageMeta(
        description=(
            "Fotografía de producto para Amazon con fondo blanco puro y contenido A+. "
            "Packs desde {price_from}, entrega en {delivery} y un {conversion} más de "
            "conversión media."
        ),
        priority=0.8,
    ),
    hero=Hero(
        eyebrow="Fotografía de Producto para Amazon",
        heading="Fotos de producto que venden en Amazon",
        intro=(
            "Fotografía profesional que cumple todos los requisitos de Amazon y destaca tu "
            "producto frente a la competencia para aumentar tus conversiones."
        ),
    ),
    actions=(actions.REQUEST_QUOTE, actions.SEE_PORTFOLIO),
    stats=(
        Stat(value="32%", label="aumento medio de conversión", key="conversion"),
        Stat(value="100%", label="de cumplimiento de los requisitos de Amazon"),
        Stat(value="48-72 horas", label="para productos estándar", key="delivery"),
        Stat(value="Blanco puro", label="fondo de la imagen principal (RGB 255,255,255)"),
    ),
    sections=(
        BlocksSection(
            eyebrow="Servicios principales",
            title="Todas las imágenes que necesita tu ficha",
            intro=(
                "Fotografiamos tu producto en nuestro estudio y te entregamos las imágenes "
                "listas para subir a Seller Central."
            ),
            blocks=(
                ServiceBlock(
                    icon="image",
                    title="Imagen principal",
                    description=(
                        "Tu producto sobre fondo blanco puro, ocupando al menos el 85% del "
                        "encuadre, tal como exige Amazon."
                    ),
                    features=(
                        "Fondo blanco puro",
                        "Iluminación de estudio",
                        "Alta resolución con zoom",
                    ),
                ),
                ServiceBlock(
                    icon="zoom-in",
                    title="Fotos de detalle",
                    description=(
                        "Primeros planos de materiales, acabados, etiquetas y funciones que "
                        "resuelven las dudas del comprador."
                    ),
                    features=("Texturas y acabados", "Funciones clave", "Medidas y tamaño"),
                ),
                ServiceBlock(
                    icon="house",
                    title="Fotos lifestyle",
                    description=(
                        "Tu producto en uso y en un entorno real, para que el cliente se imagine "
                        "disfrutándolo."
                    ),
                    features=("Escenarios cuidados", "Modelos bajo petición", "Estilismo incluido"),
                ),
                ServiceBlock(
                    icon="rotate-3d",
                    title="Vista 360°",
                    description=(
                        "Una secuencia de fotos que permite girar el producto y verlo desde "
                        "todos los ángulos."
                    ),
                    features=(
                        "Giro completo",
                        "Fondo blanco uniforme",
                        "Formato listo para la web",
                    ),
                ),
            ),
        ),
        BlocksSection(
            eyebrow="Servicios adicionales",
            title="Completa tu catálogo",
            blocks=(
                ServiceBlock(
                    icon="swatch-book",
                    title="Variantes de producto",
                    description=(
                        "Fotografiamos cada color, talla o modelo con la misma luz y el mismo "
                        "encuadre para un catálogo uniforme."
                    ),
                ),
                ServiceBlock(
                    icon="layout-template",
                    title="Contenido A+",
                    description=(
                        "Diseñamos los módulos de contenido A+ de tu ficha con imágenes, "
                        "comparativas y textos que convencen."
                    ),
                ),
            ),
        ),
        PacksSection(
            eyebrow="Packs",
            title="Elige el pack para tu producto",
            intro="Precios por producto, sin IVA. Para catálogos amplios preparamos un presupuesto a medida.",
            highlight_label="El más elegido",
            packs=(
                Pack(
                    title="Pack Básico",
                    price_from=99,
                    features=("1 foto principal", "3 fotos de detalle", "Entrega en 72h"),
                    cta=actions.REQUEST_INFO,
                ),
                Pack(
                    title="Pack Premium",
                    price_from=199,
                    features=(
                        "1 foto principal",
                        "5 fotos de detalle",
                        "2 fotos lifestyle",
                        "Vista 360°",
                        "Entrega en 48h",
                    ),
                    cta=actions.REQUEST_INFO,
                    highlighted=True,
                ),
                Pack(
                    title="Pack Profesional",
                    price_from=399,
                    features=(
                        "Todo lo del Pack Premium",
                        "Contenido A+ completo",
                        "Vídeo de producto",
                        "Fotos de variantes",
                        "Infografías",
                        "Entrega en 24h",
                        "Soporte prioritario",
                    ),
                    cta=actions.REQUEST_INFO,
                ),
            ),
            help_text="¿Tienes dudas sobre qué pack elegir?",
            help_link=actions.ASK_QUESTIONS,
        ),
        BenefitsSection(
            eyebrow="Beneficios",
            title="Por qué confiar tus fotos a especialistas",
            benefits=(
                Benefit(
                    icon="trending-up",
                    title="Más conversiones",
                    description=(
                        "Unas buenas fotos son la primera razón por la que un comprador hace "
                        "clic y añade al carrito."
                    ),
                ),
                Benefit(
                    icon="shield-check",
                    title="Sin rechazos de Amazon",
                    description=(
                        "Conocemos las normas de imagen de Amazon y entregamos fotos que las "
                        "cumplen a la primera."
                    ),
                ),
                Benefit(
                    icon="package-check",
                    title="Menos devoluciones",
                    description=(
                        "Mostrar el producto tal como es evita sorpresas y reduce las "
                        "devoluciones y las malas reseñas."
                    ),
                ),
                Benefit(
                    icon="truck",
                    title="Entrega rápida",
                    description=(
                        "Recibes las fotos editadas en pocos días para no retrasar tu lanzamiento."
                    ),
                ),
            ),
        ),
        GallerySection(
            eyebrow="Portfolio",
            title="Algunos de nuestros trabajos",
            images=(
                Image(
                    src="https://images.unsplash.com/photo-1523275335684-37898b6baf30",
                    alt="Reloj de pulsera blanco fotografiado como producto",
                    width=1200,
                    height=1200,
                ),
                Image(
                    src="https://images.unsplash.com/photo-1505740420928-5e560c06d30e",
                    alt="Auriculares inalámbricos fotografiados sobre fondo de color",
                    width=1200,
                    height=1200,
                ),
                Image(
                    src="https://images.unsplash.com/photo-1542291026-7eec264c27ff",
                    alt="Zapatilla deportiva roja fotografiada como producto",
                    width=1200,
                    height=1200,
                ),
            ),
            cta=actions.SEE_PORTFOLIO,
        ),
    ),
    cta=CallToAction(
        title="¿Listo para vender más en Amazon?",
        text=(
            "Envíanos los datos de tu producto y te preparamos un presupuesto con plazos de "
            "entrega, sin compromiso."
        ),
        actions=(actions.REQUEST_QUOTE,),
    ),
)

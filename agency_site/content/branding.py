"""The branding and design service page."""

from agency_site.content import service_actions as actions
from agency_site.content.base import Benefit, Hero, Image, Pack, PageMeta, ServiceBlock
from agency_site.content.sections import CallToAction
from agency_site.content.service_sections import (
    BenefitsSection,
    BlocksSection,
    PacksSection,
    ServicePage,
    Step,
    StepsSection,
)

PAGE = ServicePage(
    id="branding",
    meta=PageMeta(
        description=(
            "Branding y diseño de marca: logotipo, identidad corporativa y packaging. "
            "Packs Esencial desde {esencial}, Profesional desde {profesional} y "
            "Empresarial desde {empresarial}."
        ),
        priority=0.8,
    ),
    hero=Hero(
        eyebrow="Branding y Diseño",
        heading="Una marca que se recuerda",
        intro=(
            "Diseñamos identidades visuales coherentes y memorables: logotipo, colores, "
            "tipografías y aplicaciones para que tu marca transmita lo que eres."
        ),
    ),
    actions=(actions.REQUEST_QUOTE, actions.SEE_PORTFOLIO),
    sections=(
        BlocksSection(
            eyebrow="Qué incluye",
            title="Todo lo que necesita tu marca",
            intro=(
                "Trabajamos cada pieza de la identidad para que tu marca se vea igual de bien "
                "en una tarjeta de visita, en un envase o en la pantalla de un móvil."
            ),
            blocks=(
                ServiceBlock(
                    icon="pen-tool",
                    title="Logotipo y símbolo",
                    description=(
                        "Un logotipo propio, legible a cualquier tamaño y con las versiones "
                        "que vas a necesitar en el día a día."
                    ),
                    features=(
                        "Versiones horizontal, vertical y símbolo",
                        "Variantes para fondo claro y oscuro",
                        "Archivos vectoriales y para web",
                    ),
                ),
                ServiceBlock(
                    icon="book-open",
                    title="Manual de identidad corporativa",
                    description=(
                        "Las normas de uso de tu marca en un documento claro, para que se "
                        "aplique siempre igual la diseñe quien la diseñe."
                    ),
                    features=(
                        "Usos correctos e incorrectos",
                        "Áreas de respeto y tamaños mínimos",
                        "Ejemplos de aplicación",
                    ),
                ),
                ServiceBlock(
                    icon="swatch-book",
                    title="Colores y tipografías",
                    description=(
                        "Una paleta y unas fuentes que expresan la personalidad de tu marca y "
                        "funcionan tanto en pantalla como en papel."
                    ),
                    features=(
                        "Códigos RGB, CMYK y hexadecimal",
                        "Tipografía principal y secundaria",
                        "Combinaciones con buen contraste",
                    ),
                ),
                ServiceBlock(
                    icon="file-text",
                    title="Papelería corporativa",
                    description=(
                        "Tarjetas de visita, papel de carta, sobres, facturas y firma de correo "
                        "coherentes con tu nueva imagen."
                    ),
                    features=(
                        "Artes finales listos para imprenta",
                        "Plantillas editables",
                        "Firma de correo electrónico",
                    ),
                ),
                ServiceBlock(
                    icon="package",
                    title="Diseño de packaging",
                    description=(
                        "Envases y etiquetas que destacan en el lineal y en la foto de tu "
                        "tienda online, sin olvidar los requisitos de producción."
                    ),
                    features=(
                        "Etiquetas, cajas y bolsas",
                        "Adaptación a troqueles",
                        "Maquetas para validar el diseño",
                    ),
                ),
                ServiceBlock(
                    icon="refresh-cw",
                    title="Rebranding",
                    description=(
                        "Renovamos marcas que se han quedado anticuadas sin perder lo que tus "
                        "clientes ya reconocen de ti."
                    ),
                    features=(
                        "Auditoría de la marca actual",
                        "Plan de transición por fases",
                        "Actualización de todos los soportes",
                    ),
                ),
            ),
        ),
        StepsSection(
            eyebrow="Cómo trabajamos",
            title="De la idea a una marca lista para usar",
            steps=(
                Step(
                    title="Descubrimiento",
                    description=(
                        "Conocemos tu negocio, tu público, tu competencia y los valores que "
                        "quieres transmitir."
                    ),
                ),
                Step(
                    title="Concepto creativo",
                    description=(
                        "Te presentamos varias líneas creativas razonadas y elegimos contigo la "
                        "que mejor te representa."
                    ),
                ),
                Step(
                    title="Diseño y revisiones",
                    description=(
                        "Desarrollamos la propuesta elegida y la afinamos con tus comentarios en "
                        "las rondas de revisión incluidas."
                    ),
                ),
                Step(
                    title="Entrega",
                    description=(
                        "Recibes todos los archivos ordenados y el manual de uso para aplicar tu "
                        "marca con confianza."
                    ),
                ),
            ),
            image=Image(
                src="https://images.unsplash.com/photo-1561070791-2526d30994b5",
                alt="Mesa de trabajo de un estudio de diseño gráfico",
                width=1200,
                height=800,
            ),
        ),
        PacksSection(
            eyebrow="Packs de branding",
            title="Elige el punto de partida de tu marca",
            intro=(
                "Precios de partida sin IVA. Después de conocer tu proyecto te enviamos un "
                "presupuesto cerrado, sin sorpresas."
            ),
            highlight_label="El más elegido",
            packs=(
                Pack(
                    title="Esencial",
                    key="esencial",
                    price_from=99,
                    features=(
                        "Diseño de logotipo",
                        "2 propuestas iniciales",
                        "2 rondas de revisión",
                        "Paleta de colores y tipografías",
                        "Archivos para web y redes sociales",
                    ),
                    cta=actions.REQUEST_INFO,
                ),
                Pack(
                    title="Profesional",
                    key="profesional",
                    price_from=499,
                    features=(
                        "Logotipo con todas sus versiones",
                        "3 propuestas iniciales",
                        "Manual de identidad corporativa",
                        "Papelería corporativa",
                        "Plantillas para redes sociales",
                        "4 rondas de revisión",
                    ),
                    cta=actions.REQUEST_INFO,
                    highlighted=True,
                ),
                Pack(
                    title="Empresarial",
                    key="empresarial",
                    price_from=999,
                    features=(
                        "Todo lo del pack Profesional",
                        "Estrategia y naming de marca",
                        "Manual de identidad completo",
                        "Diseño de packaging o señalética",
                        "Kit de marca para tu equipo",
                        "Acompañamiento en la implantación",
                    ),
                    cta=actions.REQUEST_INFO,
                ),
            ),
            help_text="¿No sabes qué pack encaja con tu proyecto?",
            help_link=actions.ASK_QUESTIONS,
        ),
        BenefitsSection(
            eyebrow="Beneficios",
            title="Por qué invertir en tu marca",
            benefits=(
                Benefit(
                    icon="sparkles",
                    title="Te diferencias",
                    description=(
                        "Una identidad propia hace que te reconozcan y te recuerden frente a "
                        "alternativas parecidas."
                    ),
                ),
                Benefit(
                    icon="shield-check",
                    title="Transmites confianza",
                    description=(
                        "Una imagen cuidada y coherente comunica profesionalidad antes de que "
                        "digas una sola palabra."
                    ),
                ),
                Benefit(
                    icon="trending-up",
                    title="Vendes por valor",
                    description=(
                        "Las marcas que se perciben sólidas compiten por lo que aportan y no "
                        "solo por precio."
                    ),
                ),
                Benefit(
                    icon="layers",
                    title="Ahorras tiempo",
                    description=(
                        "Con el manual y las plantillas, cada nueva pieza se diseña más rápido "
                        "y sin dudas."
                    ),
                ),
            ),
        ),
    ),
    cta=CallToAction(
        title="¿Empezamos a construir tu marca?",
        text=(
            "Cuéntanos en qué punto está tu proyecto y te enviaremos una propuesta a medida, "
            "sin compromiso."
        ),
        actions=(actions.REQUEST_QUOTE, actions.SEE_PORTFOLIO),
    ),
)

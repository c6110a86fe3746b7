"""The marketing automation service page."""

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
    id="automation",
    meta=PageMeta(
        description=(
            "Automatización de marketing: embudos de venta, email marketing, integración "
            "con CRM, chatbots y lead scoring para vender más con menos esfuerzo."
        ),
        priority=0.8,
    ),
    hero=Hero(
        eyebrow="Automatización de Marketing",
        heading="Tu marketing trabajando las 24 horas",
        intro=(
            "Automatizamos la captación, el seguimiento y la venta con embudos, email "
            "marketing e integraciones con tu CRM, para que no se escape ninguna oportunidad."
        ),
    ),
    actions=(actions.TALK_TO_US, actions.SEE_CASE_STUDIES),
    sections=(
        BlocksSection(
            eyebrow="Qué incluye",
            title="Procesos que se ejecutan solos",
            intro=(
                "Conectamos tu web, tus formularios, tu correo y tu CRM para que cada contacto "
                "reciba el mensaje adecuado en el momento adecuado."
            ),
            blocks=(
                ServiceBlock(
                    icon="filter",
                    title="Embudos de venta",
                    description=(
                        "Diseñamos el recorrido completo desde el primer contacto hasta la "
                        "compra, con páginas, formularios y seguimientos automáticos."
                    ),
                    features=(
                        "Landing pages de captación",
                        "Recursos gratuitos de captación",
                        "Seguimiento automático",
                    ),
                ),
                ServiceBlock(
                    icon="mail",
                    title="Email marketing",
                    description=(
                        "Secuencias de bienvenida, de venta y de recuperación que se envían "
                        "solas según lo que hace cada contacto."
                    ),
                    features=(
                        "Secuencias automáticas",
                        "Segmentación por intereses",
                        "Pruebas A/B",
                    ),
                ),
                ServiceBlock(
                    icon="database",
                    title="Integración con CRM",
                    description=(
                        "Cada contacto llega a tu CRM con su historial, para que tu equipo "
                        "comercial sepa con quién habla."
                    ),
                    features=(
                        "HubSpot, Pipedrive o Zoho",
                        "Sincronización con la web",
                        "Tareas automáticas",
                    ),
                ),
                ServiceBlock(
                    icon="bot",
                    title="Chatbots",
                    description=(
                        "Asistentes en tu web y en WhatsApp que responden las preguntas "
                        "frecuentes y recogen los datos de los interesados."
                    ),
                    features=(
                        "Respuestas al instante",
                        "Derivación a una persona",
                        "Registro en el CRM",
                    ),
                ),
                ServiceBlock(
                    icon="gauge",
                    title="Lead scoring",
                    description=(
                        "Puntuamos a cada contacto según su perfil y su actividad para que "
                        "llames primero a quien está listo para comprar."
                    ),
                    features=(
                        "Criterios a tu medida",
                        "Avisos al equipo comercial",
                        "Revisión periódica",
                    ),
                ),
                ServiceBlock(
                    icon="sprout",
                    title="Nutrición de clientes",
                    description=(
                        "Flujos que acompañan a tus contactos con contenido útil hasta que "
                        "están preparados para decidir."
                    ),
                    features=("Contenido por etapa", "Reactivación de inactivos", "Venta cruzada"),
                ),
            ),
        ),
        StepsSection(
            eyebrow="Cómo trabajamos",
            title="Automatizar sin perder el trato personal",
            steps=(
                Step(
                    title="Mapa de procesos",
                    description=(
                        "Analizamos cómo captas, atiendes y vendes hoy, y detectamos las tareas "
                        "repetitivas."
                    ),
                ),
                Step(
                    title="Diseño de los flujos",
                    description=(
                        "Dibujamos cada automatización con sus mensajes y condiciones y la "
                        "validamos contigo."
                    ),
                ),
                Step(
                    title="Implantación",
                    description=(
                        "Configuramos las herramientas, las conectamos entre sí y probamos cada "
                        "flujo antes de activarlo."
                    ),
                ),
                Step(
                    title="Optimización",
                    description=(
                        "Revisamos aperturas, clics y conversiones y mejoramos los mensajes que "
                        "rinden menos."
                    ),
                ),
            ),
            image=Image(
                src="https://images.unsplash.com/photo-1551288049-bebda4e38f71",
                alt="Panel de control con métricas de campañas de marketing",
                width=1200,
                height=800,
            ),
        ),
        BenefitsSection(
            eyebrow="Beneficios",
            title="Más ventas con el mismo equipo",
            benefits=(
                Benefit(
                    icon="timer",
                    title="Respuesta inmediata",
                    description=(
                        "Cada contacto recibe respuesta al momento, también por la noche y en "
                        "fin de semana."
                    ),
                ),
                Benefit(
                    icon="repeat",
                    title="Menos tareas manuales",
                    description=(
                        "Tu equipo deja de copiar datos y enviar correos uno a uno y se dedica "
                        "a vender."
                    ),
                ),
                Benefit(
                    icon="user-check",
                    title="Ninguna oportunidad perdida",
                    description=(
                        "Los seguimientos no dependen de la memoria de nadie: se hacen siempre "
                        "y a tiempo."
                    ),
                ),
                Benefit(
                    icon="chart-no-axes-combined",
                    title="Datos para decidir",
                    description=(
                        "Ves en qué punto del embudo se pierden los clientes y dónde conviene "
                        "invertir."
                    ),
                ),
            ),
        ),
    ),
    cta=CallToAction(
        title="¿Qué parte de tu marketing podría funcionar sola?",
        text=(
            "Te ayudamos a descubrirlo. Cuéntanos cómo trabajas hoy y te proponemos las "
            "automatizaciones con más retorno."
        ),
        actions=(actions.TALK_TO_US, actions.SEE_CASE_STUDIES),
    ),
)

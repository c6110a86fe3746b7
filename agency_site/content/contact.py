"""Copy of the Contact page and the agency's contact methods (also shown on Home and Schedule)."""

from agency_site import paths
from agency_site.content.base import Content, Hero, PageMeta
from agency_site.content.sections import Action, SectionHeading
from agency_site.content.site import SITE

META = PageMeta(
    name="Contacto",
    nav_label="Contact",
    description=(
        "Contacta con nuestra agencia por e-mail, teléfono o WhatsApp. {response_promise} y "
        "presupuesto personalizado sin compromiso."
    ),
    priority=0.9,
)

HERO = Hero(
    eyebrow="Contacto",
    heading="Hablemos de tu proyecto",
    intro=(
        "Escríbenos, llámanos o envíanos un WhatsApp. Te asesoramos sin compromiso y "
        "preparamos un presupuesto personalizado para tu proyecto."
    ),
)

RESPONSE_PROMISE = "Respuesta garantizada en menos de 24 horas"


class ContactMethod(Content):
    """A way to reach the agency: icon, name, the address or number and its button."""

    icon: str
    title: str
    value: str
    description: str
    action: Action


class Office(Content):
    """The office: where it is and when the team answers."""

    title: str
    address_label: str
    address: str
    hours_label: str
    hours: str


class FaqItem(Content):
    """A frequently asked question and its answer."""

    question: str
    answer: str


CONTACT_METHODS: tuple[ContactMethod, ...] = (
    ContactMethod(
        icon="mail",
        title="E-mail",
        value=SITE.email,
        description="Cuéntanos tu proyecto con detalle y te respondemos con una propuesta.",
        action=Action(label="Enviar un e-mail", href=SITE.mailto, icon="mail"),
    ),
    ContactMethod(
        icon="phone",
        title="Teléfono",
        value=SITE.phone,
        description="Habla directamente con un especialista de nuestro equipo.",
        action=Action(label="Llamar ahora", href=SITE.tel, icon="phone"),
    ),
    ContactMethod(
        icon="message-circle",
        title="WhatsApp",
        value=SITE.whatsapp,
        description="Resolvemos tus dudas al momento dentro de nuestro horario de atención.",
        action=Action(label="Abrir WhatsApp", href=SITE.whatsapp_url, icon="message-circle"),
    ),
)

OFFICE = Office(
    title="Nuestra oficina",
    address_label="Dirección",
    address=SITE.address.one_line,
    hours_label="Horario de atención",
    hours=SITE.opening_hours,
)

METHODS_HEADING = SectionHeading(
    eyebrow="Elige cómo prefieres hablar con nosotros",
    title="Estamos a un mensaje de distancia",
    intro=(
        "Atendemos a empresas, profesionales e influencers de toda España, en persona en "
        "Agramunt o a distancia."
    ),
)

FAQ_HEADING = SectionHeading(
    eyebrow="Preguntas frecuentes",
    title="Antes de escribirnos",
    intro="Lo que más nos preguntan quienes contactan con nosotros por primera vez.",
)

FAQ: tuple[FaqItem, ...] = (
    FaqItem(
        question="¿Cuánto tardáis en responder?",
        answer=(
            f"{RESPONSE_PROMISE}. Cada mensaje lo lee una persona del equipo, que te "
            "contesta con una primera valoración de tu proyecto o con las preguntas que "
            "necesitemos para entenderlo bien."
        ),
    ),
    FaqItem(
        question="¿Puedo escribiros por WhatsApp?",
        answer=(
            f"Sí. En horario de atención ({SITE.opening_hours.lower()}) te respondemos por "
            "WhatsApp de inmediato. Si nos escribes fuera de ese horario, te contestamos "
            "en cuanto volvamos a la oficina."
        ),
    ),
    FaqItem(
        question="¿Tenéis tarifas cerradas o hacéis presupuestos a medida?",
        answer=(
            "Cada proyecto es distinto, así que preparamos presupuestos personalizados y "
            "sin compromiso según tus objetivos y el alcance del trabajo. En algunos "
            "servicios, como el branding o la fotografía de producto, también ofrecemos "
            "packs con precio desde el primer momento."
        ),
    ),
    FaqItem(
        question="¿Qué información conviene preparar antes de contactar?",
        answer=(
            "Te ayudará tener claros tus objetivos (qué quieres conseguir y cómo lo "
            "mediremos), el presupuesto aproximado del que dispones y los plazos o fechas "
            "clave. Si aún no lo tienes definido, no te preocupes: lo trabajamos juntos en "
            "la primera conversación."
        ),
    ),
    FaqItem(
        question="¿Trabajáis solo con empresas de Agramunt?",
        answer=(
            "No. Nuestra oficina está en Agramunt (Lleida), pero trabajamos con clientes de "
            "toda España mediante videollamadas, herramientas compartidas e informes "
            "periódicos, con el mismo trato cercano."
        ),
    ),
)

SCHEDULE_PROMPT = SectionHeading(
    title="¿Prefieres que te llamemos nosotros?",
    intro="Reserva una consulta gratuita en el día y la hora que mejor te vengan y te llamamos.",
)
SCHEDULE_ACTION = Action(label="Agendar consulta gratuita", href=paths.SCHEDULE, icon="calendar")

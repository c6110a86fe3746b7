"""Copy of the consultation booking page."""

from agency_site.content.base import Benefit, Content, Hero, PageMeta
from agency_site.content.sections import SectionHeading

META = PageMeta(
    name="Agendar consulta",
    description=(
        "Agenda una consulta gratuita con nuestro equipo: elige día y hora y te llamamos para "
        "analizar tu proyecto de marketing digital o desarrollo web."
    ),
    priority=0.9,
)

HERO = Hero(
    eyebrow="Consulta gratuita",
    heading="Agenda tu consulta gratuita",
    intro=(
        "Elige el día y la hora que mejor te vengan y un especialista de nuestro equipo te "
        "llamará para analizar tu proyecto y proponerte los siguientes pasos."
    ),
)

ASIDE_LABEL = "Detalles de la consulta"
FORM_HEADING = SectionHeading(
    title="Reserva tu cita",
    intro="Rellena el formulario y te confirmaremos la cita por teléfono o por correo electrónico.",
)


class Fact(Content):
    """A short fact about the consultation: icon, what it is about and its value."""

    icon: str
    label: str
    value: str


FACTS: tuple[Fact, ...] = (
    Fact(icon="clock", label="Duración", value="30 minutos"),
    Fact(icon="video", label="Formato", value="Por teléfono o videollamada, como prefieras"),
    Fact(icon="badge-check", label="Precio", value="Gratuita y sin compromiso"),
)

AGENDA_HEADING = SectionHeading(title="Qué haremos en la consulta")
AGENDA: tuple[Benefit, ...] = (
    Benefit(
        icon="messages-square",
        title="Escuchamos tu proyecto",
        description="Nos cuentas tu negocio, tus objetivos y lo que has probado hasta ahora.",
    ),
    Benefit(
        icon="search",
        title="Revisamos tu presencia digital",
        description="Echamos un vistazo a tu web, tus redes y tus campañas para detectar mejoras.",
    ),
    Benefit(
        icon="list-checks",
        title="Te proponemos los siguientes pasos",
        description=(
            "Te damos recomendaciones concretas y, si lo necesitas, un presupuesto a medida."
        ),
    ),
)

ALTERNATIVES_HEADING = SectionHeading(
    title="¿Prefieres otro canal?",
    intro="También puedes escribirnos o llamarnos directamente.",
)

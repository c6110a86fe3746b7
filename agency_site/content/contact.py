"""Copy of the Contact page."""

from agency_site.content.base import Hero

HERO = Hero(
    eyebrow="Contacto",
    heading="Hablemos de tu proyecto",
    intro=(
        "Escríbenos, llámanos o envíanos un WhatsApp. Respuesta garantizada en menos de 24 "
        "horas y presupuesto personalizado sin compromiso."
    ),
)

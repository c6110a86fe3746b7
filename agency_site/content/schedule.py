"""Copy of the consultation booking page."""

from agency_site.content.base import Hero

HERO = Hero(
    eyebrow="Consulta gratuita",
    heading="Agenda tu consulta gratuita",
    intro=(
        "Elige el día y la hora que mejor te vengan y un especialista de nuestro equipo te "
        "llamará para analizar tu proyecto y proponerte los siguientes pasos."
    ),
)

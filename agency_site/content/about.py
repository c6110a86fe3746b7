"""Copy of the About page."""

from agency_site.content.base import Hero

HERO = Hero(
    eyebrow="Sobre nosotros",
    heading="Un equipo apasionado por hacer crecer negocios",
    intro=(
        "Somos una agencia de marketing digital y desarrollo web nacida en Agramunt. Más de "
        "diez años combinando creatividad, tecnología y datos para que nuestros clientes "
        "consigan resultados medibles."
    ),
)

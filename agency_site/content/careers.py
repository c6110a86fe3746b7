"""Copy of the Careers page."""

from agency_site.content.base import Hero

HERO = Hero(
    eyebrow="Trabaja con nosotros",
    heading="Únete a un equipo que crece contigo",
    intro=(
        "Buscamos personas con talento y ganas de aprender para crear juntos las campañas, "
        "webs y marcas de nuestros clientes. Formación continua, buen ambiente y flexibilidad."
    ),
)

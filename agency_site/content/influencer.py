"""Copy of the influencer / info-product programme landing."""

from agency_site.content.base import Hero

HERO = Hero(
    eyebrow="Programa para influencers",
    heading="Convierte tu comunidad en un infoproducto rentable",
    intro=(
        "Creamos tu curso, ebook o programa online sin coste para ti: nos encargamos de la "
        "estrategia, la producción, la tecnología y la venta, y compartimos los beneficios."
    ),
)

"""Copy of the Home page."""

from agency_site.content.base import Hero

HERO = Hero(
    eyebrow="Agencia de marketing digital y desarrollo web",
    heading="Hacemos crecer tu negocio en el mundo digital",
    intro=(
        "Estrategia, diseño, tecnología y publicidad bajo un mismo techo. Desde Agramunt "
        "ayudamos a empresas, profesionales e influencers de toda España a conseguir más "
        "clientes y vender más en internet."
    ),
)

"""Copy of the case study list and of the three case study detail pages."""

from pydantic import Field

from agency_site.content.base import Content, Hero

HERO = Hero(
    eyebrow="Casos de éxito",
    heading="Resultados reales para clientes reales",
    intro=(
        "Descubre cómo hemos ayudado a tiendas online, influencers y empresas B2B a crecer "
        "con estrategias digitales a medida y resultados que se pueden medir."
    ),
)

DEFAULT_CASE_ID = "ecommerce-growth"


class CaseStudy(Content):
    """A case study: its id in the URL, title and subtitle."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    subtitle: str


CASE_STUDIES: tuple[CaseStudy, ...] = (
    CaseStudy(
        id="ecommerce-growth",
        title="Crecimiento de un e-commerce de moda",
        subtitle="Cómo una tienda online aumentó sus ventas un 45% en seis meses",
    ),
    CaseStudy(
        id="influencer-success",
        title="De influencer a creadora de un infoproducto de éxito",
        subtitle="Un curso online que factura más de 15.000 € al mes",
    ),
    CaseStudy(
        id="b2b-leads",
        title="Generación de leads para una empresa B2B",
        subtitle="Un 65% más de oportunidades comerciales con marketing automatizado",
    ),
)

"""Copy of the not-found page (SPEC §2)."""

from agency_site.content.base import Content


class NotFoundCopy(Content):
    """Heading, text, the link home and the description of the not-found page."""

    heading: str
    intro: str
    home_label: str
    description: str  # Of the page, for browsers; its title is the heading.


NOT_FOUND = NotFoundCopy(
    heading="Página no encontrada",
    intro="Esta página está en construcción.",
    home_label="Volver al inicio",
    description="La página que buscas no existe o está en construcción.",
)

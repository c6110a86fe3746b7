"""Copy of the not-found page (SPEC §2)."""

from agency_site.content.base import Content


class NotFoundCopy(Content):
    """Heading, text and the link home of the not-found page."""

    heading: str
    intro: str
    home_label: str


NOT_FOUND = NotFoundCopy(
    heading="Página no encontrada",
    intro="Esta página está en construcción.",
    home_label="Volver al inicio",
)

"""The not-found page (SPEC §2): ``content/es/pages/not-found.yaml``."""

from agency_site.content.base import Content
from agency_site.content.files import load
from agency_site.locale import Localized


class NotFoundCopy(Content):
    """Heading, text, the link home and the description of the not-found page."""

    heading: str
    intro: str
    home_label: str
    description: str  # Of the page, for browsers; its title is the heading.


NOT_FOUND = Localized(lambda: load("pages/not-found.yaml", NotFoundCopy))

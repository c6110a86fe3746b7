"""How a lead's source reads in the agency's e-mail and ``leads list``:
``content/es/lead-source.yaml``."""

from agency_site.content.base import Content
from agency_site.content.files import load
from agency_site.locale import Localized


class LeadSourceWords(Content):
    """The words before each fact: ``{page}``, ``{landing}``, ``{referrer}`` are the values."""

    page: str
    landing: str
    referrer: str
    separator: str
    unknown: str  # When the browser told nothing (no JavaScript, storage blocked).


WORDS = Localized(lambda: load("lead-source.yaml", LeadSourceWords))

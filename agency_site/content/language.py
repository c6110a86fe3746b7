"""What the language switch of the header and the footer says: ``content/<locale>/language.yaml``.
The languages' own names are facts of ``agency_site.locale`` (``AUTONYMS``)."""

from agency_site.content.base import Content
from agency_site.content.files import load
from agency_site.locale import Localized


class LanguageWords(Content):
    """The switch's name for screen readers."""

    label: str


LANGUAGE = Localized(lambda: load("language.yaml", LanguageWords))

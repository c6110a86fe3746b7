"""The About page: ``content/es/pages/about.yaml``, a page of sections (its description
quotes the stats by key: ``{clients}``)."""

from agency_site.content.files import load
from agency_site.content.sections import SectionsPage
from agency_site.locale import Localized

PAGE = Localized(lambda: load("pages/about.yaml", SectionsPage))

"""The influencer / info-product programme landing (its stats also shown on Home):
``content/es/pages/influencer-program.yaml``, a page of sections."""

from agency_site.content.files import load
from agency_site.content.sections import SectionsPage
from agency_site.locale import Localized

PAGE = Localized(lambda: load("pages/influencer-program.yaml", SectionsPage))

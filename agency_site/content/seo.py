"""Copy that search engines and sharing previews show (breadcrumb root, social image alt):
``content/es/seo.yaml``."""

from agency_site.content.base import Content
from agency_site.content.files import load
from agency_site.locale import Localized


class SeoCopy(Content):
    """Texts of the structured data and Open Graph tags that pages do not show."""

    home_crumb: str
    social_image_alt: str


SEO = Localized(lambda: load("seo.yaml", SeoCopy))

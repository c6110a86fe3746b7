"""Copy that search engines and sharing previews show: breadcrumb root, social image alt."""

from agency_site.content.base import Content
from agency_site.content.site import SITE


class SeoCopy(Content):
    """Texts of the structured data and Open Graph tags that pages do not show."""

    home_crumb: str
    social_image_alt: str


SEO = SeoCopy(
    home_crumb="Inicio",
    social_image_alt=f"{SITE.name}: {SITE.tagline}",
)

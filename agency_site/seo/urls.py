"""Absolute URLs of the site, all built from the one public URL setting (REFLEX_DEPLOY_URL);
the paths themselves (the icons', the manifest's, the sitemap's) are ``paths.py``'s.

Canonical form of a path: no trailing slash (``/about``), except the home page
(``/``). Links, canonical tags, Open Graph URLs and sitemap.xml all use it; the
production server answers ``/about`` directly and redirects ``/about/`` to it.
"""

from agency_site.locale import DEFAULT_LOCALE
from agency_site.paths import social_image
from agency_site.settings import get_settings

# The social image's size (scripts/make_brand_assets.py draws it; its paths: paths.py).
SOCIAL_IMAGE_SIZE = (1200, 630)


def social_image_path(language: str) -> str:
    """The social image of a language's pages (its tagline is written on it):
    ``/social-card.png``, ``/social-card-ca.png``."""
    return social_image("" if language == DEFAULT_LOCALE else f"-{language}")


def canonical_path(path: str) -> str:
    """The canonical form of a site path: leading slash, no trailing slash but for ``/``."""
    return "/" + path.strip("/")


def absolute_url(path: str) -> str:
    """Absolute URL of a site path, e.g. ``https://www.example.es/about``."""
    return get_settings().site_url + canonical_path(path)

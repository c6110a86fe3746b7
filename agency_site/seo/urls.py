"""Absolute URLs of the site, all built from the one public URL setting (REFLEX_DEPLOY_URL).

Canonical form of a path: no trailing slash (``/about``), except the home page
(``/``). Links, canonical tags, Open Graph URLs and sitemap.xml all use it; the
production server answers ``/about`` directly and redirects ``/about/`` to it.
"""

from agency_site.locale import DEFAULT_LOCALE
from agency_site.settings import get_settings

# Shipped in assets/ (made by scripts/make_brand_assets.py).
SOCIAL_IMAGE_PATH = "/social-card.png"  # Spanish; another language's: social_image_path.
SOCIAL_IMAGE_SIZE = (1200, 630)
FAVICON_PATH = "/favicon.ico"
APPLE_TOUCH_ICON_PATH = "/apple-touch-icon.png"
ICON_192_PATH = "/icon-192.png"
ICON_512_PATH = "/icon-512.png"
MANIFEST_PATH = "/manifest.webmanifest"
SITEMAP_PATH = "/sitemap.xml"
ROBOTS_PATH = "/robots.txt"


def social_image_path(language: str) -> str:
    """The social image of a language's pages (its tagline is written on it):
    ``/social-card.png``, ``/social-card-ca.png``."""
    return SOCIAL_IMAGE_PATH if language == DEFAULT_LOCALE else f"/social-card-{language}.png"


def canonical_path(path: str) -> str:
    """The canonical form of a site path: leading slash, no trailing slash but for ``/``."""
    return "/" + path.strip("/")


def absolute_url(path: str) -> str:
    """Absolute URL of a site path, e.g. ``https://www.example.es/about``."""
    return get_settings().site_url + canonical_path(path)

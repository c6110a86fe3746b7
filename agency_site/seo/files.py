"""Texts of the files crawlers and browsers fetch by name: robots.txt and the web manifest.

They carry absolute URLs and the agency's name, so they are generated at build
time from the settings (see ``agency_site/reflex_ext/build_plugin.py``), not kept in assets/.
"""

import json

from agency_site.content.site import SITE
from agency_site.seo.head import BACKGROUND_COLOR, THEME_COLOR
from agency_site.seo.urls import ICON_192_PATH, ICON_512_PATH, SITEMAP_PATH, absolute_url


def robots_txt() -> str:
    """Every page may be crawled; the sitemap's absolute URL."""
    return f"User-agent: *\nAllow: /\n\nSitemap: {absolute_url(SITEMAP_PATH)}\n"


def web_manifest() -> str:
    """The web app manifest in the agency's colours."""
    return json.dumps(
        {
            "name": SITE.fixed_title,
            "short_name": SITE.name,
            "description": SITE.tagline,
            "lang": "es",
            "start_url": "/",
            "scope": "/",
            "display": "standalone",
            "background_color": BACKGROUND_COLOR,
            "theme_color": THEME_COLOR,
            "icons": [
                {"src": ICON_192_PATH, "sizes": "192x192", "type": "image/png"},
                {"src": ICON_512_PATH, "sizes": "512x512", "type": "image/png"},
                {
                    "src": ICON_512_PATH,
                    "sizes": "512x512",
                    "type": "image/png",
                    "purpose": "maskable",
                },
            ],
        },
        ensure_ascii=False,
        indent=2,
    )

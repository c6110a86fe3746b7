"""Texts of the files crawlers and browsers fetch by name: robots.txt, sitemap.xml (every
page with its twin in each language) and the web manifest.

They carry absolute URLs and the agency's name, so they are generated at build
time from the settings (see ``agency_site/reflex_ext/build_plugin.py``), not kept in assets/.
"""

import json
from collections.abc import Iterable, Mapping
from typing import Any
from xml.etree.ElementTree import Element, SubElement, indent, tostring

from agency_site.content.site import SITE
from agency_site.paths import ICON_192_PATH, ICON_512_PATH, SITEMAP_PATH
from agency_site.seo.head import BACKGROUND_COLOR, THEME_COLOR
from agency_site.seo.urls import absolute_url


def robots_txt() -> str:
    """Every page may be crawled; the sitemap's absolute URL."""
    return f"User-agent: *\nAllow: /\n\nSitemap: {absolute_url(SITEMAP_PATH)}\n"


_SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_XHTML_NS = "http://www.w3.org/1999/xhtml"


def sitemap_xml(pages: Iterable[tuple[str, Mapping[str, Any]]]) -> str:
    """``sitemap.xml`` of ``(path, sitemap context)`` pairs: each page's absolute URL, its
    change frequency and priority, and an ``xhtml:link`` per language of its
    ``alternates`` (hreflang → path), so search engines pair each page with its twins."""
    urlset = Element("urlset", {"xmlns": _SITEMAP_NS, "xmlns:xhtml": _XHTML_NS})
    for path, config in pages:
        url = SubElement(urlset, "url")
        SubElement(url, "loc").text = absolute_url(path)
        for hreflang, other in config.get("alternates", {}).items():
            SubElement(
                url,
                "xhtml:link",
                {"rel": "alternate", "hreflang": hreflang, "href": absolute_url(other)},
            )
        if "changefreq" in config:
            SubElement(url, "changefreq").text = str(config["changefreq"])
        if "priority" in config:
            SubElement(url, "priority").text = str(config["priority"])
    indent(urlset, space="  ")
    return tostring(urlset, encoding="unicode", xml_declaration=True) + "\n"


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

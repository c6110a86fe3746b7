"""Head tags of a page: canonical URL, Open Graph, Twitter card and JSON-LD."""

from collections.abc import Sequence
from typing import Any

import reflex as rx

from agency_site import locale
from agency_site.content.seo import SEO
from agency_site.content.site import SITE
from agency_site.paths import APPLE_TOUCH_ICON_PATH, FAVICON_PATH, MANIFEST_PATH
from agency_site.seo import schema
from agency_site.seo.urls import SOCIAL_IMAGE_SIZE, absolute_url, social_image_path

# The agency's colours: Tailwind indigo-700 on white (icons, manifest, browser UI).
THEME_COLOR = "#4338ca"
BACKGROUND_COLOR = "#ffffff"

Meta = dict[str, Any] | rx.Component


def social_image_url() -> str:
    """Absolute URL of the 1200×630 image shown when a page is shared (``og:image``), in the
    language in use."""
    return absolute_url(social_image_path(locale.current()))


def page_meta(
    path: str,
    title: str,
    description: str,
    structured_data: Sequence[schema.JsonLd],
    *,
    language: str = locale.DEFAULT_LOCALE,
    alternates: dict[str, str] | None = None,
) -> list[Meta]:
    """Canonical link, hreflang alternates, Open Graph and Twitter tags and the JSON-LD of
    one page in ``language``; ``alternates``: its path by hreflang (``es``, ``ca``,
    ``x-default``).

    ``og:image`` itself comes from ``add_page(image=social_image_url())``.
    """
    with locale.active(language):
        return _page_meta(path, title, description, structured_data, alternates or {})


def _page_meta(
    path: str,
    title: str,
    description: str,
    structured_data: Sequence[schema.JsonLd],
    alternates: dict[str, str],
) -> list[Meta]:
    url = absolute_url(path)
    width, height = SOCIAL_IMAGE_SIZE
    language = locale.current()
    return [
        rx.el.link(rel="canonical", href=url),
        *[
            rx.el.link(rel="alternate", href_lang=hreflang, href=absolute_url(other))
            for hreflang, other in alternates.items()
        ],
        {"property": "og:type", "content": "website"},
        {"property": "og:site_name", "content": SITE.name},
        {"property": "og:locale", "content": locale.OG_LOCALE[language]},
        *[
            {"property": "og:locale:alternate", "content": locale.OG_LOCALE[other]}
            for other in locale.LOCALES
            if other != language
        ],
        {"property": "og:url", "content": url},
        {"property": "og:title", "content": title},
        {"property": "og:description", "content": description},
        {"property": "og:image:width", "content": str(width)},
        {"property": "og:image:height", "content": str(height)},
        {"property": "og:image:alt", "content": SEO.social_image_alt},
        {"name": "twitter:card", "content": "summary_large_image"},
        {"name": "twitter:title", "content": title},
        {"name": "twitter:description", "content": description},
        {"name": "twitter:image", "content": social_image_url()},
        {"name": "twitter:image:alt", "content": SEO.social_image_alt},
        json_ld_script(page_json_ld([schema.web_page(path, title, description), *structured_data])),
    ]


def page_json_ld(structured_data: Sequence[schema.JsonLd]) -> schema.JsonLd:
    """The JSON-LD document of a page: the agency, then the page's own entries."""
    return schema.graph([schema.organization(), *structured_data])


def not_found_meta() -> list[Meta]:
    """The not-found page is never indexed and has no canonical URL."""
    return [{"name": "robots", "content": "noindex"}]


def json_ld_script(document: schema.JsonLd) -> rx.Component:
    """A prerendered ``<script type="application/ld+json">``."""
    return rx.el.script(schema.to_script_text(document), type="application/ld+json")


def site_head() -> list[rx.Component]:
    """Icons, web manifest and theme colour, linked from every page."""
    return [
        rx.el.link(rel="icon", href=FAVICON_PATH, sizes="48x48"),
        rx.el.link(rel="apple-touch-icon", href=APPLE_TOUCH_ICON_PATH),
        rx.el.link(rel="manifest", href=MANIFEST_PATH),
        rx.el.meta(name="theme-color", content=THEME_COLOR),
    ]

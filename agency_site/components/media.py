"""The site's own pictures as ``<picture>``: AVIF, then WebP, then a JPEG ``<img>``, each at
the widths the build encodes (``agency_site/content/images.py``), sized for the space they fill."""

import reflex as rx

from agency_site.content import images
from agency_site.content.base import Image


def _srcset(variants: list[images.Variant]) -> str:
    return ", ".join(f"{variant.url} {variant.width}w" for variant in variants)


def image(
    content: Image,
    sizes: str = "(min-width: 1024px) 50vw, 100vw",
    *,
    eager: bool = False,
    class_name: str = "",
) -> rx.Component:
    """A responsive ``<picture>`` with alt text, intrinsic size and a neutral background.

    The browser takes the first format it can show and, from its ``srcset``, the narrowest
    file as wide as ``sizes`` times its pixel ratio. Below-the-fold pictures are lazy; pass
    ``eager=True`` for the one above the fold (fetched first).
    """
    picture = images.source(content.src)
    sources = [
        rx.el.source(type=picture_format.mime, src_set=_srcset(variants), sizes=sizes)
        for picture_format in images.FORMATS[:-1]
        if (variants := images.variants(picture, picture_format))
    ]
    fallback = images.variants(picture, images.FORMATS[-1])
    # The <img>'s own src: the file nearest the laid-out width (old browsers, crawlers).
    src = min(fallback, key=lambda variant: abs(variant.width - content.width))
    return rx.el.picture(
        *sources,
        rx.el.img(
            src=src.url,
            src_set=_srcset(fallback),
            sizes=sizes,
            alt=content.alt,
            loading="eager" if eager else "lazy",
            decoding="async",
            # Plain attributes: Reflex would turn width/height props into CSS-in-JS.
            custom_attrs={
                "width": str(content.width),
                "height": str(content.height),
                "fetchPriority": "high" if eager else "auto",
            },
            class_name="bg-slate-200 object-cover " + class_name,
        ),
        class_name="contents",
    )

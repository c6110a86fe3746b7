"""Images from the stock photo service, sized for the space they fill."""

import reflex as rx

from agency_site.content.base import Image

# Widths offered to the browser through srcset (the service resizes on ?w=).
_WIDTHS = (320, 480, 640, 960, 1280)


def _sized(src: str, width: int) -> str:
    """URL of the photo resized to ``width`` pixels."""
    separator = "&" if "?" in src else "?"
    return f"{src}{separator}auto=format&fit=crop&q=70&w={width}"


def image(
    content: Image,
    sizes: str = "(min-width: 1024px) 50vw, 100vw",
    *,
    eager: bool = False,
    class_name: str = "",
) -> rx.Component:
    """A responsive ``<img>`` with alt text, intrinsic size and a neutral background.

    Below-the-fold images are lazy; pass ``eager=True`` for the one above the fold.
    """
    widths = [w for w in _WIDTHS if w <= content.width * 2] or [_WIDTHS[0]]
    return rx.el.img(
        src=_sized(content.src, min(content.width, widths[-1])),
        src_set=", ".join(f"{_sized(content.src, w)} {w}w" for w in widths),
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
    )

"""Draw the site's icons and social image into assets/ (run once; the files are committed).

    .venv/bin/python scripts/make_brand_assets.py

Needs Pillow (requirements.txt). Draws the agency's initials and name from
``content/site.py`` in indigo-700 on white: rerun after changing AGENCY_NAME.
"""

import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agency_site.content.site import SITE  # noqa: E402
from agency_site.locale import LOCALES, active  # noqa: E402
from agency_site.paths import (  # noqa: E402
    APPLE_TOUCH_ICON_PATH,
    FAVICON_PATH,
    ICON_192_PATH,
    ICON_512_PATH,
)
from agency_site.seo.head import BACKGROUND_COLOR, THEME_COLOR  # noqa: E402
from agency_site.seo.urls import SOCIAL_IMAGE_SIZE, social_image_path  # noqa: E402

ASSETS = ROOT / "assets"
BOLD_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
)
REGULAR_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
)
INDIGO_200 = "#c7d2fe"


def font(candidates: tuple[str, ...], size: int) -> ImageFont.FreeTypeFont:
    """The first installed font of ``candidates``, else Pillow's own."""
    for path in candidates:
        if Path(path).exists():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


def initials() -> str:
    """Up to two initials of the agency's name ('Impulso Digital' -> 'ID')."""
    return "".join(word[0] for word in SITE.name.split()[:2]).upper()


def icon(size: int, *, rounded: bool = True) -> Image.Image:
    """White initials on an indigo square (rounded corners unless it is a full-bleed icon)."""
    scale = 4  # Draw large and shrink for smooth edges.
    big = size * scale
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    radius = big // 5 if rounded else 0
    draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=radius, fill=THEME_COLOR)
    text_font = font(BOLD_FONTS, int(big * 0.5))
    draw.text((big / 2, big / 2), initials(), font=text_font, fill=BACKGROUND_COLOR, anchor="mm")
    return image.resize((size, size), Image.Resampling.LANCZOS)


def social_card() -> Image.Image:
    """The 1200x630 image shared pages show: name, tagline and place on indigo."""
    width, height = SOCIAL_IMAGE_SIZE
    image = Image.new("RGB", (width, height), THEME_COLOR)
    draw = ImageDraw.Draw(image)
    image.paste(icon(140).convert("RGB"), (80, 80), icon(140))
    draw.rounded_rectangle((80, 80, 220, 220), radius=28, outline=BACKGROUND_COLOR, width=4)
    draw.text((80, 270), SITE.name, font=font(BOLD_FONTS, 84), fill=BACKGROUND_COLOR)
    y = 390
    for line in _wrap(SITE.tagline, font(REGULAR_FONTS, 44), width - 160, draw):
        draw.text((80, y), line, font=font(REGULAR_FONTS, 44), fill=BACKGROUND_COLOR)
        y += 58
    place = f"{SITE.address.city} ({SITE.address.region}) · {SITE.email}"
    draw.text((80, height - 80), place, font=font(REGULAR_FONTS, 30), fill=INDIGO_200)
    return image


def _wrap(text: str, text_font, max_width: int, draw: ImageDraw.ImageDraw) -> list[str]:
    """``text`` broken into lines no wider than ``max_width`` pixels."""
    lines: list[str] = []
    for word in text.split():
        candidate = f"{lines[-1]} {word}" if lines else word
        if lines and draw.textlength(candidate, font=text_font) <= max_width:
            lines[-1] = candidate
        else:
            lines.append(word)
    return lines


def asset(url_path: str) -> Path:
    """File in assets/ served at ``url_path``."""
    return ASSETS / url_path.lstrip("/")


def main() -> None:
    """Write every icon and the social image."""
    icon(48).save(asset(FAVICON_PATH), sizes=[(16, 16), (32, 32), (48, 48)])
    icon(180, rounded=False).convert("RGB").save(asset(APPLE_TOUCH_ICON_PATH), optimize=True)
    icon(192).save(asset(ICON_192_PATH), optimize=True)
    icon(512, rounded=False).save(asset(ICON_512_PATH), optimize=True)
    for language in LOCALES:  # The tagline written on it is each language's.
        with active(language):
            social_card().save(asset(social_image_path(language)), optimize=True)
    for path in (FAVICON_PATH, APPLE_TOUCH_ICON_PATH, ICON_192_PATH, ICON_512_PATH):
        print(asset(path).relative_to(ROOT), asset(path).stat().st_size, "bytes")
    for language in LOCALES:
        card = asset(social_image_path(language))
        print(card.relative_to(ROOT), card.stat().st_size, "bytes")


if __name__ == "__main__":
    main()

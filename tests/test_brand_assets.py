"""The icons and social image the pages link to are shipped in assets/ at their sizes."""

import struct
from pathlib import Path

import pytest

from agency_site import paths
from agency_site.locale import LOCALES
from agency_site.seo import urls

ASSETS = Path(__file__).resolve().parents[1] / "assets"


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize(
    ("url_path", "size"),
    [
        *[(urls.social_image_path(language), urls.SOCIAL_IMAGE_SIZE) for language in LOCALES],
        (paths.APPLE_TOUCH_ICON_PATH, (180, 180)),
        (paths.ICON_192_PATH, (192, 192)),
        (paths.ICON_512_PATH, (512, 512)),
    ],
)
def test_png_assets_have_their_sizes(url_path: str, size: tuple[int, int]) -> None:
    assert _png_size(ASSETS / url_path.lstrip("/")) == size


def test_favicon_is_an_ico_with_small_sizes() -> None:
    data = (ASSETS / paths.FAVICON_PATH.lstrip("/")).read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1) and count >= 2
    sizes = {data[6 + 16 * i] or 256 for i in range(count)}
    assert {16, 32} <= sizes


def test_robots_and_manifest_are_generated_not_shipped() -> None:
    # They carry the deploy URL/agency name: the build plugin writes them.
    assert not (ASSETS / "robots.txt").exists()
    assert not (ASSETS / "manifest.webmanifest").exists()

"""The site's own pictures: every content image names a source of assets/images/source in
its proportions, the build encodes each into AVIF, WebP and JPEG at the layouts' widths
(deterministic, cached), the pages show them as ``<picture>``, nothing comes from a third
party and the files are cached forever."""

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image as PillowImage
from PIL import ImageDraw
from pydantic import ValidationError
from starlette.staticfiles import StaticFiles

from agency_site import paths, server
from agency_site.components.media import image
from agency_site.content import images
from agency_site.content.base import Image
from agency_site.deploy import topology
from agency_site.web_base.security_headers import page_policy
from scripts import image_weights
from tests.content_walker import content_modules, module_models
from tests.run_async import run

ROOT = Path(__file__).resolve().parents[1]


def _content_images() -> list[Image]:
    return [model for _, model in module_models(content_modules()) if isinstance(model, Image)]


@pytest.fixture
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two small sources in a folder of their own: a 3:2 one wider than 640, a 300 px square."""
    folder = tmp_path / "source"
    folder.mkdir()
    for name, size in (("wide-scene", (700, 467)), ("small-square", (300, 300))):
        picture = PillowImage.new("RGB", size, (67, 56, 202))
        ImageDraw.Draw(picture).ellipse((20, 20, size[0] // 2, size[1] // 2), fill=(232, 121, 249))
        picture.save(folder / f"{name}.png")
    monkeypatch.setattr(images, "SOURCE_DIR", folder)
    images.source.cache_clear()
    yield folder
    images.source.cache_clear()


# The sources and the content.


def test_every_content_image_names_a_source_and_every_source_is_shown() -> None:
    shown = {picture.src for picture in _content_images()}
    assert len(images.source_names()) == 23
    assert shown == set(images.source_names())


def test_every_source_is_wide_enough_for_the_largest_file_its_layout_asks_for() -> None:
    """Twice its laid-out width (a 2x screen), up to the widest file (1280)."""
    for picture in _content_images():
        source = images.source(picture.src)
        assert source.width >= min(2 * picture.width, max(images.WIDTHS)), picture.src


def test_no_content_image_is_a_url() -> None:
    assert [p.src for p in _content_images() if "/" in p.src or p.src.startswith("http")] == []


def test_a_name_without_a_source_is_refused() -> None:
    with pytest.raises(ValidationError, match="no picture 'no-such-picture'"):
        Image(src="no-such-picture", alt="a", width=1200, height=800)
    with pytest.raises(ValidationError):
        Image(src="https://images.unsplash.com/photo-1", alt="a", width=1200, height=800)


@given(width=st.integers(1, 5000), height=st.integers(1, 5000))
def test_the_size_must_be_the_sources_proportions(width: int, height: int) -> None:
    """team-office is 1440x960 (3:2): a size is accepted exactly when it is 3:2 to the pixel."""
    source = images.source("team-office")
    exact = width * source.height / source.width
    if abs(height - exact) < 1:
        Image(src="team-office", alt="a", width=width, height=height)
    else:
        with pytest.raises(ValidationError, match="team-office is 1440x960"):
            Image(src="team-office", alt="a", width=width, height=height)


def test_a_source_that_is_no_png_is_refused(sources: Path) -> None:
    (sources / "not-a-png.png").write_bytes(b"GIF89a" + bytes(40))
    with pytest.raises(ValidationError, match=r"not-a-png\.png is not a PNG file"):
        Image(src="not-a-png", alt="a", width=10, height=10)


def test_the_content_loads_without_pillow() -> None:
    """Every picture of the content checked, as the backend does at start, without Pillow
    (only a build encodes: a backend-only host needs no image library)."""
    script = (
        "import sys\n"
        "from tests.content_walker import content_modules, module_models\n"
        "assert list(module_models(content_modules()))\n"
        "assert 'PIL' not in sys.modules, 'Pillow imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_sources_stay_small() -> None:
    total = sum(path.stat().st_size for path in images.SOURCE_DIR.glob("*.png"))
    assert total < 4_500_000


# The encoder.


def test_each_source_is_encoded_in_each_format_at_each_width(sources: Path, tmp_path) -> None:
    out = tmp_path / "out"
    report = images.write_all(out, tmp_path / "cache")
    names = sorted(path.name for path in out.iterdir())
    # 700 wide: 320, 480, 640 and its own 700; 300 wide: its own 300 only.
    assert images.source("wide-scene").widths == (320, 480, 640, 700)
    assert images.source("small-square").widths == (300,)
    assert report.encoded == len(names) == (4 + 1) * 3
    for path in out.iterdir():
        name, width, _key, extension = re.fullmatch(
            r"([a-z-]+)-(\d+)\.([0-9a-f]{16})\.(avif|webp|jpg)", path.name
        ).groups()
        with PillowImage.open(path) as encoded:
            assert encoded.format == {"avif": "AVIF", "webp": "WEBP", "jpg": "JPEG"}[extension]
            assert encoded.width == int(width)
            source = images.source(name)
            assert encoded.height == round(source.height * int(width) / source.width)


def test_encoding_is_deterministic(sources: Path, tmp_path) -> None:
    """Two builds with no cache in common write the same bytes under the same names."""
    first, second = tmp_path / "first", tmp_path / "second"
    images.write_all(first, tmp_path / "cache-1")
    images.write_all(second, tmp_path / "cache-2")
    files = sorted(path.name for path in first.iterdir())
    assert files == sorted(path.name for path in second.iterdir())
    assert all((first / n).read_bytes() == (second / n).read_bytes() for n in files)


def test_a_second_build_encodes_nothing(sources: Path, tmp_path) -> None:
    out, cache = tmp_path / "out", tmp_path / "cache"
    first = images.write_all(out, cache)
    second = images.write_all(tmp_path / "other-build", cache)
    assert (first.encoded, first.cached) == (15, 0)
    assert (second.encoded, second.cached) == (0, 15)


def test_a_changed_source_gets_new_names_and_the_old_files_go(sources: Path, tmp_path) -> None:
    out, cache = tmp_path / "out", tmp_path / "cache"
    images.write_all(out, cache)
    before = {path.name for path in out.iterdir()}
    PillowImage.new("RGB", (300, 300), (15, 23, 42)).save(sources / "small-square.png")
    images.source.cache_clear()
    report = images.write_all(out, cache)
    after = {path.name for path in out.iterdir()}
    assert report.encoded == 3  # Only the changed picture, in each format.
    assert len(after) == len(before) and len(after - before) == 3


def test_the_encoder_settings_are_in_the_names(sources: Path) -> None:
    """A new quality is a new URL: a file cached for a year is never replaced in place."""
    variant = images.variants(images.source("small-square"), images.WEBP)[0]
    other = images.Format("image/webp", "webp", "WEBP", (("quality", 90),))
    assert images.Variant(variant.source, variant.width, other).url != variant.url


def test_a_build_publishes_the_files_and_not_the_sources(sources: Path, tmp_path) -> None:
    public = tmp_path / "public"
    (public / images.PUBLISHED_SOURCES / "source").mkdir(parents=True)  # Reflex's copy.
    (public / images.PUBLISHED_SOURCES / "source" / "wide-scene.png").write_bytes(b"png")
    images.publish(public, tmp_path / "cache")
    assert not (public / images.PUBLISHED_SOURCES).exists()
    assert len(list((public / images.URL_DIR.strip("/")).iterdir())) == 15


def test_a_build_that_may_not_write_the_cache_keeps_one_in_its_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's site user may write only .web/: the cache goes there (kept across releases)."""
    (tmp_path / "read-only").write_text("a file, not a folder: no cache can be made under it")
    monkeypatch.setattr(images, "CACHE_DIR", tmp_path / "read-only" / "images")
    assert images.writable_cache(tmp_path / "web" / ".cache") == tmp_path / "web" / ".cache"
    monkeypatch.setattr(images, "CACHE_DIR", tmp_path / "site" / ".cache" / "images")
    assert images.writable_cache(tmp_path / "web") == tmp_path / "site" / ".cache" / "images"


def test_the_files_live_where_every_server_caches_for_a_year() -> None:
    """server.py (paths.py), Caddy, nginx and the static hosts (topology) cache it as
    immutable."""
    for prefix in (paths.HASHED_ASSETS, topology.HASHED_PREFIX):
        assert images.URL_DIR.startswith(prefix)


def test_the_python_server_sends_a_picture_with_its_type_cached_forever(
    sources: Path, tmp_path: Path
) -> None:
    build = tmp_path / "build"
    images.publish(build, tmp_path / "cache")
    app = server.SiteMiddleware(StaticFiles(directory=build), pages_dir=build)
    variant = images.variants(images.source("wide-scene"), images.AVIF)[0]

    async def get() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await http.get(variant.url)

    answer = run(get())
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/avif"
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"


# The pages.


def _rendered(component) -> str:
    return str(component)


def test_a_picture_offers_avif_then_webp_then_a_sized_jpeg() -> None:
    content = Image(src="team-office", alt="Dos personas conversando", width=1200, height=800)
    html = _rendered(image(content, "100vw"))
    source = images.source("team-office")
    avif, webp, jpeg = (images.variants(source, f) for f in images.FORMATS)
    assert html.index('type:"image/avif"') < html.index('type:"image/webp"') < html.index('"img"')
    for variants in (avif, webp, jpeg):
        assert ", ".join(f"{v.url} {v.width}w" for v in variants) in html
    assert [v.width for v in jpeg] == [320, 480, 640, 960, 1280]
    assert f'src:"{jpeg[-1].url}"' in html  # The one nearest its laid-out 1200.
    for attribute in ('width:"1200"', 'height:"800"', 'loading:"lazy"', 'decoding:"async"'):
        assert attribute in html
    assert 'alt:"Dos personas conversando"' in html and html.count('sizes:"100vw"') == 3


def test_the_picture_above_the_fold_is_fetched_first() -> None:
    content = Image(src="team-office", alt="Dos personas", width=1200, height=800)
    html = _rendered(image(content, eager=True))
    assert 'loading:"eager"' in html and 'fetchPriority:"high"' in html


def test_no_page_names_a_third_party_picture() -> None:
    """Every page's component tree: only pictures of /assets/img/, never an https:// one."""
    from agency_site.agency_site import app

    pages = [
        json.dumps(
            page.component().render() if callable(page.component) else page.component.render()
        )
        for page in app._unevaluated_pages.values()
    ]
    text = "\n".join(pages)
    assert "unsplash" not in text.lower()
    sources = re.findall(r'(?:src|srcSet):\\"([^\\]+)\\"', text)
    assert sources and all(
        url.startswith(images.URL_DIR) for s in sources for url in s.split(", ") if url
    )
    assert text.count('type:\\"image/avif\\"') >= 20


def test_the_policy_allows_images_from_the_site_only() -> None:
    directives = dict(
        d.strip().split(" ", 1) for d in page_policy("https://api.x", "https://x").split(";")
    )
    assert directives["img-src"] == "'self' data:"


def test_nothing_in_the_site_names_the_old_photo_service() -> None:
    found = [
        path
        for path in (ROOT / "agency_site").rglob("*")
        if path.suffix in {".py", ".yaml", ".md", ".js", ".css"}
        and "unsplash" in path.read_text().lower()
    ]
    assert found == []


# What a page's pictures weigh (python -m scripts.image_weights).


@pytest.mark.parametrize(
    ("sizes", "viewport", "css_px"),
    [
        ("(min-width: 1024px) 50vw, 100vw", 375, 375),
        ("(min-width: 1024px) 50vw, 100vw", 1280, 640),
        ("(min-width: 1024px) 36rem, 100vw", 1280, 576),
        ("64px", 375, 64),
    ],
)
def test_the_slot_a_sizes_attribute_gives(sizes: str, viewport: int, css_px: float) -> None:
    assert images.slot_width(sizes, viewport) == css_px


def test_a_reader_takes_the_narrowest_file_wide_enough_else_the_widest() -> None:
    candidates = {"image/avif": [("/a-320", 320), ("/a-640", 640), ("/a-1280", 1280)]}
    picture = image_weights.Picture("100vw", candidates)
    assert picture.pick("image/avif", 375, 1) == "/a-640"
    assert picture.pick("image/avif", 375, 2) == "/a-1280"  # 750 px needed.
    assert picture.pick("image/avif", 1600, 2) == "/a-1280"

"""The site's own pictures: their sources, and the files a build encodes from them.

Each picture is one lossless PNG in ``assets/images/source/<name>.png`` (committed); the
content names it (``src: service-branding``). A build encodes every source into AVIF,
WebP and JPEG at the widths the layouts ask for (``WIDTHS``, up to the source's own
width) and writes them under ``/assets/img/`` with content-hashed names: the servers and
static hosts already cache everything under ``/assets/`` for a year, and a changed
picture or encoder setting is a new name.

Encodes are kept in ``.cache/images/`` (gitignored), keyed like the file names (the
source's bytes, the width, the format and its settings): a build with nothing new encodes
nothing. Pillow does all of it (AVIF and WebP are built into its wheels, and the project
already draws its brand assets with it): no image service, no Node tool, no third party.
"""

import hashlib
import io
import logging
import os
import re
import shutil
import struct
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agency_site.paths import PICTURES

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIR = ROOT / "assets" / "images" / "source"
CACHE_DIR = ROOT / ".cache" / "images"
# The assets folder's copy of the sources, which Reflex copies into every build: not served.
PUBLISHED_SOURCES = "images"
# Under the content-hashed prefix every server and static host caches for a year.
URL_DIR = PICTURES
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# The widths offered to the browser through srcset (a phone at 2x to a wide desktop column).
WIDTHS = (320, 480, 640, 960, 1280)


@dataclass(frozen=True)
class Format:
    """An encoding: its MIME type, file extension, Pillow's name and save options."""

    mime: str
    extension: str
    pillow: str
    options: tuple[tuple[str, object], ...]

    @property
    def settings(self) -> str:
        """What decides its bytes besides the picture: part of every file's key."""
        return f"{self.extension}:{self.options!r}"


# Best first: a browser takes the first <source> it can show; JPEG is the <img> itself.
# AVIF at libavif's speed 6: speed 8 came out larger than WebP on these pictures (20.5 KB
# against 18.9 KB at 1280 px; speed 6: 16.5 KB), and an encode takes under a second, once.
AVIF = Format(
    "image/avif", "avif", "AVIF", (("quality", 55), ("speed", 6), ("subsampling", "4:2:0"))
)
WEBP = Format("image/webp", "webp", "WEBP", (("quality", 75), ("method", 4)))
JPEG = Format(
    "image/jpeg", "jpg", "JPEG", (("quality", 78), ("optimize", True), ("progressive", True))
)
FORMATS = (AVIF, WEBP, JPEG)


@dataclass(frozen=True)
class Source:
    """A picture's lossless source: its name, size and the digest of its bytes."""

    name: str
    width: int
    height: int
    digest: str

    @property
    def path(self) -> Path:
        return SOURCE_DIR / f"{self.name}.png"

    @property
    def widths(self) -> tuple[int, ...]:
        """The encoded widths: ``WIDTHS``, each capped at its own width (800: ..., 640, 800)."""
        return tuple(sorted({min(width, self.width) for width in WIDTHS}))


@dataclass(frozen=True)
class Variant:
    """One encoded file: a source at a width in a format."""

    source: Source
    width: int
    format: Format

    @property
    def height(self) -> int:
        return round(self.source.height * self.width / self.source.width)

    @property
    def key(self) -> str:
        """The digest of everything that decides its bytes."""
        parts = (self.source.digest, str(self.width), self.format.settings)
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]

    @property
    def file_name(self) -> str:
        return f"{self.source.name}-{self.width}.{self.key}.{self.format.extension}"

    @property
    def url(self) -> str:
        return URL_DIR + self.file_name


def source_names() -> list[str]:
    """Every picture's name, sorted."""
    return sorted(path.stem for path in SOURCE_DIR.glob("*.png"))


@cache
def source(name: str) -> Source:
    """The source called ``name`` (``LookupError`` when there is none).

    Its size comes from the PNG's header: the content is checked wherever it loads (the
    backend too), and only a build needs Pillow."""
    path = SOURCE_DIR / f"{name}.png"
    if not path.is_file():
        msg = f"no picture {name!r}: add assets/images/source/{name}.png (one of {source_names()})"
        raise LookupError(msg)
    data = path.read_bytes()
    if data[:8] != _PNG_SIGNATURE or data[12:16] != b"IHDR":
        msg = f"assets/images/source/{name}.png is not a PNG file"
        raise LookupError(msg)
    width, height = struct.unpack(">II", data[16:24])
    return Source(name, width, height, hashlib.sha256(data).hexdigest())


def variants(picture: Source, picture_format: Format) -> list[Variant]:
    """The files of ``picture`` in ``picture_format``, narrowest first."""
    return [Variant(picture, width, picture_format) for width in picture.widths]


def all_variants() -> Iterator[Variant]:
    """Every file a build serves."""
    for name in source_names():
        for picture_format in FORMATS:
            yield from variants(source(name), picture_format)


def encode(variant: Variant) -> bytes:
    """The bytes of ``variant``: its source resized (Lanczos) and saved in its format."""
    from PIL import Image  # Only a build encodes: the backend runs without Pillow.

    with Image.open(variant.source.path) as picture:
        picture = picture.convert("RGB")
        if variant.width != picture.width:
            size = (variant.width, variant.height)
            picture = picture.resize(size, Image.Resampling.LANCZOS)
        out = io.BytesIO()
        picture.save(
            out,
            format=variant.format.extension.replace("jpg", "jpeg"),
            **dict(variant.format.options),
        )
    return out.getvalue()


def _write_atomically(path: Path, data: bytes) -> None:
    """``data`` into ``path``, never a half-written file (parallel builds share the cache)."""
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, prefix=".part-") as part:
        part.write(data)
    os.replace(part.name, path)


@dataclass
class Report:
    """What one ``write_all`` did: files encoded now, files taken from the cache."""

    encoded: int = 0
    cached: int = 0


def write_all(out_dir: Path, cache_dir: Path | None = None) -> Report:
    """Every variant into ``out_dir`` (its other files removed), encoding only what
    ``cache_dir`` (``CACHE_DIR``) does not hold yet."""
    cache_dir = cache_dir or CACHE_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    cache_dir.mkdir(parents=True, exist_ok=True)
    report = Report()
    every = list(all_variants())
    missing = [v for v in every if not (cache_dir / v.file_name).is_file()]
    report.encoded, report.cached = len(missing), len(every) - len(missing)
    # One encode per core at once: Pillow resizes and encodes with the GIL released, and a
    # first build (a fresh clone, CI) encodes every picture.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for variant, data in zip(missing, pool.map(encode, missing), strict=True):
            _write_atomically(cache_dir / variant.file_name, data)
    wanted = set()
    for variant in every:
        cached = cache_dir / variant.file_name
        target = out_dir / variant.file_name
        wanted.add(target.name)
        if not target.is_file():
            shutil.copyfile(cached, target)
    for stale in out_dir.iterdir():  # Last build's files of a changed picture.
        if stale.name not in wanted:
            stale.unlink()
    return report


def writable_cache(fallback: Path) -> Path:
    """``CACHE_DIR`` when this user may write there, else ``fallback``: on a server the
    site's user writes only its build folder (scripts/prepare_host.py), where the cache
    then lives, kept from one release to the next."""
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=CACHE_DIR):
            return CACHE_DIR
    except OSError:
        return fallback


def publish(public_dir: Path, cache_dir: Path | None = None) -> None:
    """A build's save task (``reflex_ext/build_plugin.py``): every file into the build's
    ``public`` folder, and the copy of the sources Reflex made from ``assets/`` left out."""
    shutil.rmtree(public_dir / PUBLISHED_SOURCES, ignore_errors=True)
    cache_dir = cache_dir or writable_cache(public_dir.parent / ".cache" / "images")
    report = write_all(public_dir / URL_DIR.strip("/"), cache_dir)
    logger.info("Site pictures: %d encoded, %d from %s", report.encoded, report.cached, cache_dir)


# How a browser reads a picture's ``sizes`` and picks from its ``srcset`` (the weights
# command and the load test's reader model follow it).
REM_PX = 16
_CONDITION = re.compile(r"\(min-width:\s*(\d+)px\)\s*(.+)")
_LENGTH = re.compile(r"([\d.]+)(vw|px|rem)")


def slot_width(sizes: str, viewport: int) -> float:
    """The CSS px width ``sizes`` gives at ``viewport``: its first matching entry."""
    for entry in (part.strip() for part in sizes.split(",")):
        if match := _CONDITION.fullmatch(entry):
            if viewport < int(match[1]):
                continue
            entry = match[2]
        number, unit = _LENGTH.fullmatch(entry.strip()).groups()
        return float(number) * {"vw": viewport / 100, "px": 1, "rem": REM_PX}[unit]
    msg = f"no entry of sizes {sizes!r} applies at {viewport}px"
    raise ValueError(msg)


def pick(candidates: list[tuple[str, int]], sizes: str, viewport: int, ratio: int) -> str:
    """The URL a browser of ``viewport`` CSS px and pixel ``ratio`` takes from ``candidates``
    (url, width): the narrowest at least as wide as the slot needs, else the widest."""
    needed = slot_width(sizes, viewport) * ratio
    ordered = sorted(candidates, key=lambda candidate: candidate[1])
    return next((url for url, width in ordered if width >= needed), ordered[-1][0])

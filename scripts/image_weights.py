"""What each page's pictures weigh, for a phone and a desktop reader.

    .venv/bin/python -m scripts.image_weights

For every page: its pictures, and the bytes a phone (375 CSS px wide, pixel ratio 2) and a
desktop (1280 px, ratio 1) download when the reader scrolls through the whole page, as
AVIF (every current browser) and as the JPEG fallback: the file a browser picks from each
``<picture>``'s ``srcset`` for its ``sizes`` (the narrowest at least as wide as needed).
Then each source's bytes. The files are the build's (``agency_site/images.py``, encoded
into ``.cache/images/`` first if a build has not done it yet).

The stock photos the site hot-linked before had no bytes of ours to measure (their service
resized and re-encoded on request), so there is no "before" column.
"""

import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agency_site.content import images

# (name, viewport width in CSS px, device pixel ratio)
READERS = (("phone", 375, 2), ("desktop", 1280, 1))
_PROP = re.compile(r'^(\w+):(".*")$')


@dataclass(frozen=True)
class Picture:
    """A ``<picture>`` of a page: its sizes and each format's candidates (url, width)."""

    sizes: str
    candidates: dict[str, list[tuple[str, int]]]

    def pick(self, mime: str, viewport: int, ratio: int) -> str:
        """The file a browser of ``viewport`` CSS px and pixel ``ratio`` takes."""
        return images.pick(self.candidates[mime], self.sizes, viewport, ratio)


def _props(node: dict) -> dict[str, str]:
    found = {}
    for prop in node.get("props", []):
        if match := _PROP.match(prop):
            found[match[1]] = json.loads(match[2])
    return found


def _srcset(value: str) -> list[tuple[str, int]]:
    return [(url, int(width[:-1])) for url, width in (c.split() for c in value.split(", "))]


def pictures_in(node: dict) -> list[Picture]:
    """Every ``<picture>`` in a rendered component tree, in order."""
    if node.get("name") == '"picture"':
        candidates, sizes = {}, ""
        for child in node.get("children", []):
            props = _props(child)
            mime = props.get("type", images.JPEG.mime)
            candidates[mime] = _srcset(props["srcSet"])
            sizes = props["sizes"]
        return [Picture(sizes, candidates)]
    return [picture for child in node.get("children", []) for picture in pictures_in(child)]


def page_pictures() -> dict[str, list[Picture]]:
    """Each page's route and its pictures."""
    from agency_site.agency_site import app

    pages = {}
    for route, page in sorted(app._unevaluated_pages.items()):
        component = page.component() if callable(page.component) else page.component
        pages["/" + route.removeprefix("index").strip("/")] = pictures_in(component.render())
    return pages


def main() -> int:
    """Print the table of pages, then the sources."""
    with tempfile.TemporaryDirectory(prefix="image-weights-") as folder:
        out = Path(folder)
        report = images.write_all(out, images.CACHE_DIR)
        size = {images.URL_DIR + path.name: path.stat().st_size for path in out.iterdir()}
    if report.encoded:
        print(f"(encoded {report.encoded} files into {images.CACHE_DIR} first)", file=sys.stderr)
    formats = (("AVIF", images.AVIF.mime), ("JPEG", images.JPEG.mime))
    columns = [f"{reader} {label}" for label, _ in formats for reader, _, _ in READERS]
    print(f"{'page':<40} {'pictures':>8} " + " ".join(f"{c:>13}" for c in columns))
    for path, pictures in page_pictures().items():
        cells = [
            sum(size[p.pick(mime, viewport, ratio)] for p in pictures)
            for _, mime in formats
            for _, viewport, ratio in READERS
        ]
        print(f"{path:<40} {len(pictures):>8} " + " ".join(f"{c:>13,}" for c in cells))
    print("\nBytes a page's pictures weigh when the reader scrolls through it all (lazy ones too).")
    print("Before (hot-linked stock photos): not measurable here; see the module's docstring.\n")
    total = 0
    print(f"{'source':<40} {'size':>11} {'bytes':>11}")
    for name in images.source_names():
        source = images.source(name)
        total += source.path.stat().st_size
        print(f"{name:<40} {source.width:>5}x{source.height:<5} {source.path.stat().st_size:>11,}")
    print(f"{'every source':<40} {'':>11} {total:>11,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

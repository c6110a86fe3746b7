"""What a reader's browser fetches: a page's HTML and what it names, then route modules.

A reader opens no websocket (the socket opens only when a visitor uses a form), so a
reader is plain HTTP through the web server:

1. **A full page load** of a route: its prerendered HTML, then every same-origin file
   the HTML names: ``<script src>``, ``<link href>`` of a stylesheet, preload,
   modulepreload or icon, and the ``/assets/`` strings of the deferred bootstrap
   inline script (``reflex_ext/hydration.py``: its ``__preloads`` list and its
   ``import("/assets/…")`` calls), and each ``<picture>``'s AVIF file as a desktop
   browser (1280 px wide, pixel ratio 1) picks it from its ``srcset`` and ``sizes``
   (``agency_site/images.py``: every picture of the page, as a reader who scrolls it).
2. **Client-side navigations** (a click on a menu link): React Router loads the route's
   module, its ``imports`` and its ``css`` from the manifest
   (``/assets/manifest-<version>.js``: ``window.__reactRouterManifest={…};``; with
   ``routeDiscovery: initial`` it lists every route), only those the tab has not
   fetched yet, and the pictures of the route's page it had not fetched. No HTML and no
   data request: the routes have no loaders.

``reader_urls(base_url, routes)`` is the list one reader fetches; the browser test
``tests/e2e/test_reader_model.py`` checks that a real Chromium fetches no more.
"""

import json
import re
import urllib.request
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from agency_site.content import images

MANIFEST_PREFIX = "window.__reactRouterManifest="
# What a browser fetches from a <link>: its rel values that load a file now.
FETCHED_RELS = {"stylesheet", "preload", "modulepreload", "icon"}
ASSET_STRING = re.compile(r"""["'](/assets/[^"'\s]+)["']""")
ACCEPT_ENCODING = "gzip, deflate, br"  # like Chromium: Caddy answers the precompressed file
# The reader's browser: a desktop window (the browser tests' viewport), the format it takes.
VIEWPORT, PIXEL_RATIO, PICTURE_TYPE = 1280, 1, images.AVIF.mime


class _Named(HTMLParser):
    """Same-origin paths named by a page, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paths: list[str] = []
        self.pictures: list[str] = []  # After the page's own files: a browser loads them last.
        self._inline: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "script":
            if attr.get("src"):
                self.paths.append(attr["src"] or "")
            elif attr.get("type") in (None, "module"):
                self._inline = []
        elif tag == "link" and FETCHED_RELS & set((attr.get("rel") or "").split()):
            self.paths.append(attr.get("href") or "")
        elif tag == "source" and attr.get("type") == PICTURE_TYPE and attr.get("srcset"):
            candidates = [
                (url, int(width.rstrip("w")))
                for url, width in (c.split() for c in (attr["srcset"] or "").split(","))
            ]
            sizes = attr.get("sizes") or "100vw"
            self.pictures.append(images.pick(candidates, sizes, VIEWPORT, PIXEL_RATIO))

    def handle_data(self, data: str) -> None:
        if self._inline is not None:
            self._inline.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._inline is not None:
            self.paths += ASSET_STRING.findall("".join(self._inline))
            self._inline = None


def _local(paths: list[str]) -> list[str]:
    local = [p for p in paths if p.startswith("/") and not p.startswith("//")]
    return list(dict.fromkeys(urlsplit(p).path for p in local))


def _parsed(html: str) -> _Named:
    parser = _Named()
    parser.feed(html)
    return parser


def page_files(html: str) -> list[str]:
    """Same-origin paths a browser fetches for a page's HTML, each once, in order: the
    files it names, then its pictures."""
    parser = _parsed(html)
    return _local(parser.paths + parser.pictures)


def parse_manifest(script: str) -> dict[str, list[str]]:
    """Route path (``/``, ``/about``…) → the files a navigation to it loads, from the manifest."""
    text = script.strip()
    if not text.startswith(MANIFEST_PREFIX):
        raise ValueError("not a React Router manifest (window.__reactRouterManifest=…)")
    manifest = json.loads(text[len(MANIFEST_PREFIX) :].rstrip(";"))
    files = {}
    for route in manifest["routes"].values():
        if route["id"] == "root":
            continue
        path = "/" + (route.get("path") or "").strip("/")
        files[path] = [route["module"], *route.get("imports", []), *route.get("css", [])]
    return files


def fetch_text(url: str, timeout: float = 10.0) -> str:
    """GET ``url`` (plain, no compression) as text."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


@dataclass
class ReaderModel:
    """The files of each route of a running site, read once from the site itself."""

    base_url: str
    pages: dict[str, list[str]] = field(default_factory=dict)  # path → its HTML's files
    pictures: dict[str, list[str]] = field(default_factory=dict)  # path → its pictures
    routes: dict[str, list[str]] = field(default_factory=dict)  # path → navigation files

    def page(self, path: str) -> list[str]:
        """The files a full load of ``path`` fetches (its HTML first), read once."""
        if path not in self.pages:
            parsed = _parsed(fetch_text(urljoin(self.base_url, path)))
            self.pages[path] = [path, *_local(parsed.paths + parsed.pictures)]
            self.pictures[path] = _local(parsed.pictures)  # What a navigation to it fetches.
            if not self.routes:
                manifest = next((f for f in self.pages[path] if "/manifest-" in f), None)
                if manifest is None:
                    raise ValueError(f"{path} names no /assets/manifest-*.js")
                self.routes = parse_manifest(fetch_text(urljoin(self.base_url, manifest)))
        return self.pages[path]

    def visit(self, route_paths: list[str]) -> list[list[str]]:
        """One reader: a full load of the first path, then client-side navigations.

        One list per step; each navigation holds only the files not fetched before
        (empty when the route's modules are all in the tab already).
        """
        steps = [list(self.page(route_paths[0]))]
        seen = set(steps[0])
        for path in route_paths[1:]:
            if path not in self.routes:
                raise ValueError(f"{path} is not a route of the manifest")
            self.page(path)  # Its pictures (its HTML is read once, not fetched by the tab).
            files = [*self.routes[path], *self.pictures[path]]
            new = [f for f in dict.fromkeys(files) if f not in seen]
            seen.update(new)
            steps.append(new)
        return steps


def reader_urls(base_url: str, routes: list[str]) -> list[str]:
    """Every URL one reader fetches: a full load of ``routes[0]``, then client-side
    navigations to the rest, each fetching only what it had not fetched yet."""
    model = ReaderModel(base_url.rstrip("/") + "/")
    return [urljoin(model.base_url, f) for step in model.visit(routes) for f in step]

"""Reflex build plugin: what the fence changes in every build, then the site's own steps.

- Each page's path and sitemap context (``context["sitemap"]["alternates"]`` of its
  ``add_page``: its twins in the other languages, which Reflex's own sitemap plugin cannot
  list) go to the steps that write files (``sitemap_pages``): the sitemap's.
- React Router does not prerender the catch-all 404 route, and Reflex copies the
  empty SPA shell to ``404.html``: visitors without JavaScript and crawlers would
  get a blank page. The plugin prerenders the 404 route at a probe path and makes
  that HTML the SPA fallback, which Reflex then copies to ``404.html``; the Catalan
  one (probe ``/ca/__not-found``) becomes ``ca/404.html``, for unknown ``/ca/`` paths. The
  production server answers unknown paths with it and status 404, and so does
  nginx/Caddy with ``error_page 404 /404.html``. This is only right while every
  route is prerendered (no dynamic ``[param]`` routes), which the plugin checks.
- Vite bundles the lucide icons into one chunk and the env into its importer's (``chunk_groups``).
- ``utils/state.js`` opens the websocket only for a visitor who uses a form
  (``lazy_socket.py``), written from Reflex's pristine template on every build.
- The prerendered pages start their JavaScript after the first paint
  (``hydration.py``).
- React Router's client entry hydrates one task after its modules are evaluated
  (``entry_client.py``): a tap meanwhile is the browser's, not a replay by React.
- React Router's server entry prerenders every Suspense boundary of a page inline
  (``entry_server.py``): a static asset, made once the frontend packages are installed.
- Then the site's own steps (``BuildStep``), which ``rxconfig.py`` hands to the plugin
  (``agency_site/build_steps.py`` lists them, in order): the plugin imports none of the site's
  features. Each step may give files served from the build (robots.txt, the sitemap, the
  ALTCHA widget's files), start work in the background that the build waits for before
  Vite copies ``public/`` (the pictures: a first build encodes them, about half a minute of
  both cores, while Reflex installs the frontend packages, and ``get_static_assets``, which
  Reflex calls after the install and before Vite copies ``public/``, waits for them),
  rewrite every final page (each page's Content-Security-Policy, after every other
  rewrite), and write files beside the pages once they are final (``_headers`` and
  ``_redirects`` for a static host).
"""

import json
import shutil
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from agency_site.locale import DEFAULT_LOCALE, LOCALES, localized_path, not_found_file
from agency_site.reflex_ext.entry_client import entry_client
from agency_site.reflex_ext.entry_server import entry_server_asset
from agency_site.reflex_ext.hydration import defer_hydration
from agency_site.reflex_ext.internals import Dirs, Plugin, get_config, get_web_dir
from agency_site.reflex_ext.js import node_check_code
from agency_site.reflex_ext.lazy_socket import lazy_state_js

# Any path no page is declared at: React Router renders the catch-all 404 route there.
NOT_FOUND_PROBE = "__not-found"
_ROUTER_CONFIG = "react-router.config.js"
_VITE_CONFIG = "vite.config.js"
# Reflex's one code-splitting group (env.json alone, 306 bytes); ours (the icons') replace it.
_SPLIT_GROUPS = """          groups: [
            {
              test: /env.json/,
              name: "reflex-env",
            },
"""
_OUR_GROUPS = """          groups: [
            {
              test: /[\\\\/]node_modules[\\\\/]lucide-react[\\\\/]/,
              name: "icons",
            },
"""
_PRERENDER_ALL = '"prerender": true'
_SPA_FALLBACK = "__spa-fallback.html"
_ROUTES_MANIFEST = "routes.json"
# Each page's path and its sitemap context (``sitemap_pages``).
SitemapPages = list[tuple[str, dict]]


@dataclass(frozen=True)
class BuildStep:
    """One of the site's own steps in every frontend build, each part optional, each run at
    its moment of Reflex's build:

    - ``files(pages)``: files served from the build, by URL path, queued before the compile
      (``pages``: each page's path and sitemap context);
    - ``publish(public_dir)``: started in the background from the save tasks on, and waited
      for before Vite copies ``public/`` (its error fails the build);
    - ``page(html, api_url, site_url)``: every final page rewritten, after the plugin's own
      rewrites (the not-found page, deferred hydration) and the steps listed before;
    - ``finish(static_dir)``: once every page is final.
    """

    name: str
    files: Callable[[SitemapPages], Mapping[str, str]] | None = None
    publish: Callable[[Path], None] | None = None
    page: Callable[[str, str, str], str] | None = None
    finish: Callable[[Path], None] | None = None


# The steps' background work in a build's public/ (``SiteBuildPlugin``).
_BACKGROUND = ThreadPoolExecutor(max_workers=1, thread_name_prefix="site-build-steps")
_published: list[Future] = []


def _start_publishing(publish: Callable[[Path], None], public_dir: Path) -> None:
    """A save task: ``publish`` starts writing into ``public_dir`` in the background."""
    _published.append(_BACKGROUND.submit(publish, public_dir))


def _public_file(url_path: str, text: str) -> tuple[str, str]:
    """A save task result: a file served at ``url_path`` from the build."""
    return f"public{url_path}", text


def not_found_probes() -> list[str]:
    """The probe path of each language: ``/__not-found``, ``/ca/__not-found``."""
    return [localized_path(f"/{NOT_FOUND_PROBE}", language) for language in LOCALES]


def prerender_not_found(router_config: str) -> str:
    """React Router config that prerenders every static path plus each language's 404 probe
    (a development config, which prerenders nothing, is left alone)."""
    probes = ", ".join(json.dumps(probe) for probe in not_found_probes())
    return router_config.replace(
        _PRERENDER_ALL,
        f'"prerender": async ({{ getStaticPaths }}) => [...getStaticPaths(), {probes}]',
    )


def chunk_groups(vite_config: str) -> str:
    """Vite config that puts every lucide icon in one chunk instead of one chunk each, and
    Reflex's env.json in the chunk that imports it instead of a chunk of its own.

    A page used to load up to 18 icon modules of 150-500 bytes each, one request apiece;
    then every page still loaded env.json's 306 bytes as a request of its own. Without its
    group it rides in the shared chunk that imports it: a page loads 8 scripts, not 9, and
    a few bytes less (Home, gzip -9: 166,605 bytes against 166,703). The cost: a new API
    URL changes that chunk's name too, once per such deploy.
    """
    if vite_config.count(_SPLIT_GROUPS) != 1:
        msg = (
            f"{_VITE_CONFIG}: Reflex's code-splitting groups are not where "
            "agency_site/reflex_ext/build_plugin.py expects them; update chunk_groups()."
        )
        raise RuntimeError(msg)
    grouped = vite_config.replace(_SPLIT_GROUPS, _OUR_GROUPS)
    if problem := node_check_code(grouped, _VITE_CONFIG):
        msg = f"{_VITE_CONFIG} after chunk_groups() does not parse; node --check says:\n{problem}"
        raise RuntimeError(msg)
    return grouped


def sitemap_pages(context: dict) -> list[tuple[str, dict]]:
    """(path, sitemap context) of every page ``add_page`` gave one (not the 404 page)."""
    pages = []
    for page in context.get("unevaluated_pages", []):
        config = page.context.get("sitemap", {})
        if config is not None and page.route != "404":
            pages.append(("/" + page.route.removeprefix("index").strip("/"), config))
    return pages


def install_not_found_page(static_dir: Path, routes: list[str]) -> None:
    """Make the prerendered 404 page the SPA fallback; remove the probe's own files."""
    dynamic = [route for route in routes if "[" in route]
    if dynamic:
        msg = (
            f"Dynamic routes {dynamic} need the SPA fallback: serve them before "
            "replacing it with the not-found page (agency_site/reflex_ext/build_plugin.py)."
        )
        raise RuntimeError(msg)
    for language, probe in zip(LOCALES, not_found_probes(), strict=True):
        probe_dir = static_dir / probe.strip("/")
        page = probe_dir / "index.html"
        if not page.exists():
            msg = f"The not-found page was not prerendered at {page}."
            raise RuntimeError(msg)
        # The default language's is the SPA fallback (Reflex copies it to 404.html); another
        # language's is its folder's 404.html (ca/404.html), served for its unknown paths.
        target = static_dir / (
            _SPA_FALLBACK if language == DEFAULT_LOCALE else not_found_file(language).lstrip("/")
        )
        shutil.copyfile(page, target)
        shutil.rmtree(probe_dir)
        probe_dir.with_suffix(".html").unlink(missing_ok=True)


def rewrite_pages(static_dir: Path, rewrite: Callable[[str, str, str], str]) -> int:
    """Rewrite every page of the build with ``rewrite(html, api_url, site_url)`` (Reflex's
    ``REFLEX_API_URL`` and ``REFLEX_DEPLOY_URL``); the number of pages."""
    config = get_config()
    pages = sorted(static_dir.rglob("*.html"))
    for page in pages:
        html = page.read_text()
        page.write_text(rewrite(html, config.api_url, config.deploy_url or ""))
    return len(pages)


@dataclass(kw_only=True, frozen=True)
class SiteBuildPlugin(Plugin):
    """The lazy socket, a prerendered 404 page, the icons' chunk, deferred hydration; then
    the site's own ``steps``, in their order (``agency_site/build_steps.py``)."""

    steps: tuple[BuildStep, ...] = ()

    def pre_compile(self, **context) -> None:
        """Queue the steps' files, the lazy socket, their background work and the config
        changes."""
        pages = sitemap_pages(context)
        for step in self.steps:
            for url_path, text in (step.files(pages) if step.files else {}).items():
                context["add_save_task"](_public_file, url_path, text)
        context["add_save_task"](lazy_state_js)
        context["add_save_task"](entry_client)
        for step in self.steps:
            if step.publish:
                context["add_save_task"](
                    _start_publishing, step.publish, get_web_dir() / Dirs.PUBLIC
                )
        context["add_modify_task"](_ROUTER_CONFIG, prerender_not_found)
        context["add_modify_task"](_VITE_CONFIG, chunk_groups)

    def provides_entry_client(self) -> bool:
        """``app/entry.client.js`` is the plugin's (``entry_client.py``): Reflex must not
        write its own over it."""
        return True

    def get_static_assets(self, **context) -> list[tuple[str, str]]:
        """The server entry, from React Router's default as installed (``entry_server.py``);
        and, before it, the steps' background work done in ``public/``: Reflex asks once the
        frontend packages are installed, before Vite copies ``public/``."""
        while _published:
            _published.pop().result()  # Its error fails the build.
        return [entry_server_asset(get_web_dir())]

    def post_build(self, **context) -> None:
        """Swap the SPA fallback for the prerendered not-found page; defer hydration; then
        the steps' rewrites of the final pages and their last files."""
        static_dir: Path = context["static_dir"]
        routes = json.loads((static_dir.parents[1] / _ROUTES_MANIFEST).read_text())
        install_not_found_page(static_dir, routes)
        defer_hydration(static_dir)
        for step in self.steps:
            if step.page:
                rewrite_pages(static_dir, step.page)
        for step in self.steps:
            if step.finish:
                step.finish(static_dir)

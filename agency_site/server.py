"""ASGI middleware of the production server: clean page URLs and security headers.

Wired with ``rx.App(api_transformer=[..., SiteMiddleware])``, so it wraps the
backend (our ``/_site/`` endpoints too) and, with ``reflex run --env prod
--single-port``, the prerendered frontend.

- Clean URLs: Starlette would redirect ``/about`` to ``/about/``; the canonical
  form is ``/about`` (see ``seo/urls.py``), so ``/about`` is answered from the
  prerendered ``about.html`` and ``/about/`` redirects (308) to ``/about``. The
  redirect target is built from the page the build has, never from the request.
- Unknown paths under another language's prefix (``/ca/nothing``) get that language's
  not-found page (``ca/404.html``), with status 404, like Spanish ones get ``404.html``.
- Long-lived caching of the content-hashed bundles under ``/assets/``.
- The two header sets of ``security_headers.py`` (also followed by the proxy configurations
  and the static-host files): every response gets ``asset_headers`` (nosniff, HSTS on
  https); HTML documents also get ``document_headers``: a prerendered page the short CSP
  header (it carries its own policy in a ``<meta>``), the backend's own pages (``/_site/…``)
  the whole policy. ``is_document`` decides by Content-Type.
"""

import re
from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.responses import FileResponse, RedirectResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agency_site.locale import DEFAULT_LOCALE, LOCALES, locale_of, not_found_file, prefix
from agency_site.paths import HASHED_ASSETS, SITE_API_PREFIX
from agency_site.reflex_ext.internals import get_config, static_dir
from agency_site.settings import get_settings
from agency_site.web_base.security_headers import (
    asset_headers,
    content_security_policy,
    document_headers,
    is_document,
)

# Build files that are not pages of their own: /404 must stay a 404.
_NOT_PAGES = frozenset(
    {"404", "__spa-fallback"} | {not_found_file(language).strip("/")[:-5] for language in LOCALES}
)
# A page name as the build writes it: lowercase words and dashes, "/" between segments.
_CANONICAL_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*(?:/[a-z0-9][a-z0-9_-]*)*")


class SiteMiddleware:
    """Clean page URLs and the two header sets around the Reflex ASGI app."""

    def __init__(self, app: ASGIApp, pages_dir: Path | None = None) -> None:
        """Wrap ``app``; pages are looked up in ``pages_dir`` (the frontend build)."""
        self.app = app
        self.pages_dir = pages_dir or static_dir()
        site_url = get_settings().site_url
        self.asset_headers = asset_headers(site_url)
        self.page_headers = document_headers()
        self.backend_page_headers = document_headers(
            content_security_policy(get_config().api_url, site_url)
        )

    def _page_name(self, path: str) -> str | None:
        """The canonical name (``about``, ``services/branding``) of a page path, if a page.

        Only a path already in canonical form counts: one leading slash, segments
        without ``.``/``..``, backslashes or empty parts (``/%2Fevil.com%2F..%2Fabout/``
        decodes to ``//evil.com/../about/``, which is no page). A redirect built from
        the returned name therefore always stays on this site.
        """
        name = path.removeprefix("/").removesuffix("/")
        if not name or name in _NOT_PAGES or not _CANONICAL_NAME.fullmatch(name):
            return None
        candidate = (self.pages_dir / f"{name}.html").resolve()
        if not candidate.is_relative_to(self.pages_dir) or not candidate.is_file():
            return None
        canonical = candidate.relative_to(self.pages_dir).with_suffix("").as_posix()
        return canonical if canonical == name else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Rewrite or redirect page paths, then add the headers to the response."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        # Vite's content-hashed bundles: cached for a year, a new build has new names.
        immutable = scope["path"].startswith(HASHED_ASSETS)
        # The backend's own pages carry no <meta> policy: the whole one goes as a header.
        documents = (
            self.backend_page_headers
            if scope["path"].startswith(SITE_API_PREFIX)
            else self.page_headers
        )

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                added = self.asset_headers
                if is_document(headers.get("content-type", "")):
                    added = added | documents
                for name, value in added.items():
                    headers.setdefault(name, value)
                if immutable and message["status"] == 200:
                    headers["Cache-Control"] = "public, max-age=31536000, immutable"
            await send(message)

        path = scope["path"]
        if scope["method"] in ("GET", "HEAD") and (name := self._page_name(path)) is not None:
            if path.endswith("/"):
                query = scope.get("query_string", b"").decode("latin-1")
                target = f"/{name}" + (f"?{query}" if query else "")
                await RedirectResponse(target, status_code=308)(scope, receive, send_with_headers)
                return
            html = f"/{name}.html"
            scope = {**scope, "path": html, "raw_path": html.encode()}
        elif scope["method"] in ("GET", "HEAD") and (page := self._not_found_page(path)):
            # Reflex answers an unknown path with the default language's 404.html: under
            # /ca/ it is the Catalan one, with the same status.
            response = FileResponse(page, status_code=404, media_type="text/html")
            await response(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _not_found_page(self, path: str) -> Path | None:
        """The not-found page of another language than the default for an unknown path of
        that language (``/ca/nothing``), or None (a file of the build, or Spanish)."""
        language = locale_of(path)
        if language == DEFAULT_LOCALE or not path.startswith(prefix(language) + "/"):
            return None
        wanted = (self.pages_dir / path.lstrip("/")).resolve()
        if wanted.is_relative_to(self.pages_dir) and wanted.is_file():
            return None
        page = self.pages_dir / not_found_file(language).lstrip("/")
        return page if page.is_file() else None

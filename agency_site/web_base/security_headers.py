"""The security headers, declared once: the asset set every response gets, the document set
of every HTML page, and the Content-Security-Policy: each page's own (in its ``<meta>``), the
short header every server sends, and the whole policy of the backend's own pages.

A prerendered page carries its policy itself: the build writes it into a
``<meta http-equiv="Content-Security-Policy">`` at the top of the page's ``<head>``
(``with_page_policy``, run by ``reflex_ext/build_plugin.py`` after every other rewrite), with
the SHA-256 of **that page's** inline scripts only. So the export keeps its protection on any
static host or CDN (Cloudflare Pages, Netlify, S3 + CloudFront, a bare nginx), whose header
files cannot hold 100+ hashes, and no server needs to know a build's hashes.

``<meta>`` cannot carry ``frame-ancestors`` (nor reporting): that goes in ``HEADER_POLICY``, one
short header every server and static-host file sends with every page (``server.py``,
``deploy/``). Browsers enforce both policies. The backend's own pages (``/_site/…``: form
answers, booking pages) have no inline script and no ``<meta>``: they get the whole policy as
a header (``content_security_policy``).

The policy: scripts only from the site itself plus the page's inline scripts by their
SHA-256: no ``'unsafe-inline'``, no ``'unsafe-eval'`` for scripts (the forms reset and focus
fields with Reflex's native ``rx.set_value``/``rx.set_focus``; nothing calls
``rx.call_script``). Styles keep ``'unsafe-inline'``: emotion (Reflex's CSS-in-JS) inserts
``<style>`` elements with run-time content and React writes ``style=`` attributes, neither of
which can be hashed at build time. The forms may post to the site and to the backend's origin
(their no-JavaScript fallback).
"""

import base64
import hashlib
import re
from collections.abc import Iterable
from html import escape, unescape

from agency_site.settings import origin

# What a ``<meta>`` policy cannot carry, and what every document gets from whichever server
# serves it: the short header (the pages carry the rest themselves).
HEADER_POLICY = "frame-ancestors 'self'; base-uri 'self'; object-src 'none'"

_INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.DOTALL | re.I)
_META = re.compile(
    r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"\s*/?>', re.IGNORECASE
)
# Where a page's policy goes: right after <head> (before any script or link it governs).
_HEAD = re.compile(r"<head\b[^>]*>", re.IGNORECASE)


def script_hashes(html: str) -> set[str]:
    """CSP sources (``sha256-<base64>``) of the inline scripts of one page."""
    return {
        "sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        for body in _INLINE_SCRIPT.findall(html)
    }


def page_policy(api_url: str, site_url: str, hashes: Iterable[str] = ()) -> str:
    """A page's own CSP (its ``<meta>``): own scripts plus its hashed inline ones, own
    styles, its own images (no third party: ``agency_site/content/images.py``), the websocket:
    everything a ``<meta>`` policy can carry."""
    api = origin(api_url)
    websocket = api.replace("http", "ws", 1)
    scripts = " ".join(f"'{digest}'" for digest in sorted(set(hashes)))
    forms = " ".join(dict.fromkeys(("'self'", origin(site_url), api)))
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src 'self' {scripts}".rstrip(),
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            f"connect-src 'self' {api} {websocket}",
            "base-uri 'self'",
            f"form-action {forms}",
            "object-src 'none'",
        )
    )


def content_security_policy(api_url: str, site_url: str, hashes: Iterable[str] = ()) -> str:
    """The whole policy as one header: the backend's own pages (no ``<meta>`` of theirs)."""
    return f"{page_policy(api_url, site_url, hashes)}; frame-ancestors 'self'"


def with_page_policy(html: str, api_url: str, site_url: str) -> str:
    """``html`` with its own policy in a ``<meta>`` first in its ``<head>`` (any earlier one
    replaced): the hashes of its inline scripts as they are now."""
    html = _META.sub("", html)
    policy = page_policy(api_url, site_url, script_hashes(html))
    # Its quotes are ' only: kept as they are inside the attribute's "…".
    content = escape(policy, quote=False).replace('"', "&quot;")
    tag = f'<meta http-equiv="Content-Security-Policy" content="{content}"/>'
    page, found = _HEAD.subn(lambda head: head[0] + tag, html, count=1)
    if not found:
        msg = "a page without <head>: its policy has nowhere to go"
        raise ValueError(msg)
    return page


def policy_of_page(html: str) -> str | None:
    """The policy a page carries in its ``<meta>``, or None."""
    found = _META.search(html)
    return unescape(found[1]) if found else None


def allowed_scripts(policy: str) -> set[str]:
    """The ``sha256-…`` sources of a policy's ``script-src``."""
    for directive in policy.split(";"):
        name, _, sources = directive.strip().partition(" ")
        if name == "script-src":
            return {source.strip("'") for source in sources.split() if "sha256-" in source}
    return set()


def asset_headers(site_url: str) -> dict[str, str]:
    """Headers of every response: no type sniffing, and HSTS when the site is on https."""
    headers = {"X-Content-Type-Options": "nosniff"}
    if site_url.startswith("https://"):
        headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
    return headers


def document_headers(policy: str = HEADER_POLICY) -> dict[str, str]:
    """Headers that only mean something on a document (a page the browser renders): a
    prerendered page's (the short CSP header), or another document's with its ``policy``."""
    return {
        "Content-Security-Policy": policy,
        "Referrer-Policy": "strict-origin-when-cross-origin",
        "X-Frame-Options": "SAMEORIGIN",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    }


def security_headers(site_url: str, policy: str = HEADER_POLICY) -> dict[str, str]:
    """Every header an HTML document carries: the asset set plus the document set."""
    return asset_headers(site_url) | document_headers(policy)


def is_document(content_type: str) -> bool:
    """Whether a response of this Content-Type is a document (gets ``document_headers``)."""
    return content_type.split(";", 1)[0].strip().lower() == "text/html"

"""What a hit is: a page view of a route in a language, a bot's request, a 404; and what
a page view says: the device class, the external referrer's domain, its ``utm_*``.

Only page views count as visits: GET, status 200, an HTML page of the route table (not
``/assets``, not ``/_site``, not ``/_event``, not a file). Known crawlers and monitors
(``BOTS``) are counted apart, never as visits.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from agency_site import locale
from agency_site.deploy.topology import BACKEND_EXACT_PATHS, BACKEND_PREFIXES, HASHED_PREFIX
from agency_site.report.log_lines import Hit
from agency_site.report.tables import NAME_MAX, PATH_MAX

# A bot's name and what its user agent says; the first that matches names it.
BOTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("Google", r"googlebot|google-inspectiontool|googleother|adsbot-google|mediapartners"),
        ("Bing", r"bingbot|bingpreview|msnbot"),
        ("Yandex", r"yandex"),
        ("Baidu", r"baiduspider"),
        ("DuckDuckGo", r"duckduckbot|duckassistbot"),
        ("Apple", r"applebot"),
        ("Meta", r"facebookexternalhit|facebookcatalog|meta-externalagent"),
        (
            "IA",
            r"gptbot|chatgpt-user|oai-searchbot|claudebot|claude-web|anthropic|"
            r"perplexity|ccbot|bytespider|amazonbot",
        ),
        ("SEO", r"ahrefsbot|semrushbot|mj12bot|dotbot|petalbot|seznambot|dataforseo"),
        ("Monitor", r"uptime|pingdom|statuscake|site24x7|monitor|healthcheck|betteruptime"),
        (
            "Herramienta",
            r"curl/|wget/|python-requests|python-httpx|python-urllib|aiohttp|go-http-client|"
            r"okhttp|java/|libwww|headlesschrome|lighthouse|pagespeed",
        ),
        ("Otro bot", r"bot\b|bot/|crawler|spider|slurp|scraper|preview|fetch"),
    )
)
NO_AGENT = "Sin agente"
# Where the backends and the build's files live: never a page.
NOT_PAGES = (HASHED_PREFIX, *BACKEND_PREFIXES, *BACKEND_EXACT_PATHS)


def bot_name(user_agent: str) -> str | None:
    """The bot a user agent names (an empty one is a bot's too), else None."""
    if not user_agent.strip():
        return NO_AGENT
    for name, pattern in BOTS:
        if pattern.search(user_agent):
            return name
    return None


def device(user_agent: str) -> str:
    """``tablet``, ``mobile`` or ``desktop``, from the user agent's usual words."""
    if re.search(r"ipad|tablet|kindle|silk|playbook|(android(?!.*mobile))", user_agent, re.I):
        return "tablet"
    if re.search(r"mobi|iphone|ipod|android|blackberry|opera mini|iemobile", user_agent, re.I):
        return "mobile"
    return "desktop"


def utm(query: str) -> tuple[str, str, str] | None:
    """``(utm_source, utm_medium, utm_campaign)`` of a URL's query ("" when one is
    missing), None when it has none of them."""
    values = parse_qs(query)
    found = tuple(
        (values.get(key) or [""])[0].strip()[:NAME_MAX]
        for key in ("utm_source", "utm_medium", "utm_campaign")
    )
    return found if any(found) else None


def _host(url: str) -> str:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host.removeprefix("www.")[:NAME_MAX]


@dataclass(frozen=True)
class KnownPages:
    """What the classifier must know of the site: its pages and its own host names."""

    pages: frozenset[str]  # Every route's path, in every language (/about, /ca/about...)
    own_hosts: frozenset[str]  # Host names of the site itself, without "www."

    def page(self, hit: Hit) -> tuple[str, str] | None:
        """``(Spanish path, language)`` of a page view; None for any other hit."""
        if hit.method != "GET" or hit.status != 200 or hit.path.startswith(NOT_PAGES):
            return None
        if hit.content_type and not hit.content_type.startswith("text/html"):
            return None
        path = hit.path.rstrip("/") or "/"
        if path not in self.pages:
            return None
        return locale.unlocalized_path(path), locale.locale_of(path)

    def external_referrer(self, hit: Hit) -> str | None:
        """The referring site's domain, when it is another site's."""
        host = _host(hit.referrer)
        return host if host and host not in self.own_hosts else None

    def not_found_referrer(self, hit: Hit) -> str:
        """Who links to a missing path: another site's domain, or our own page's path."""
        if not hit.referrer:
            return ""
        if (host := self.external_referrer(hit)) is not None:
            return host
        if _host(hit.referrer) in self.own_hosts:
            return (urlsplit(hit.referrer).path or "/")[:PATH_MAX]
        return ""


def known_pages(site_url: str, extra_hosts: Iterable[str] = ()) -> KnownPages:
    """The site as the route table and the settings describe it (imports the routes)."""
    from agency_site.routes import ROUTES

    hosts = {_host(site_url), "localhost", "127.0.0.1", *extra_hosts}
    return KnownPages(frozenset(route.path for route in ROUTES), frozenset(h for h in hosts if h))

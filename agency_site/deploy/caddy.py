"""The Caddyfile: the static export with precompressed files, the backends balanced.

Caddy is what Reflex's own production example uses; it serves the build's
``.br``/``.zst``/``.gz`` siblings (in that order of preference) and, for a public ``https://`` site, gets and renews the
TLS certificate by itself. Validate with ``caddy validate --config Caddyfile``. The file's
text is ``templates/Caddyfile.tmpl`` (Jinja2); this module works out what fills it.

The booking links (``/_site/bookings/…?t=<token>``) answer with
``Referrer-Policy: no-referrer``, so a browser sends their URL (the token) nowhere; the
access log (``_access_log``: JSON, agency_site/deploy/access_log.py) keeps a URI's path
and ``utm_*`` keys only, and of the headers a Referer's origin (or own path) and the
User-Agent.
"""

from agency_site import locale
from agency_site.deploy import access_log
from agency_site.deploy.topology import (
    BACKEND_EXACT_PATHS,
    BACKEND_PREFIXES,
    Topology,
    render,
)
from agency_site.locale import DEFAULT_LOCALE, LOCALES, not_found_file
from agency_site.paths import LEADS_HEALTH, booking_link


def _language_match(language: str) -> str:
    """The CEL condition that a path is of ``language`` (none for the default one)."""
    return "" if language == DEFAULT_LOCALE else f" && path('{locale.prefix(language)}/*')"


def _backend_matcher() -> str:
    paths = [*BACKEND_EXACT_PATHS]
    for prefix in BACKEND_PREFIXES:
        paths += [prefix.rstrip("/"), prefix.rstrip("/") + "/*"]
    return " ".join(paths)


def _kept_headers(topology: Topology) -> tuple[tuple[str, str], ...]:
    """The mappings of the ``map`` into the placeholder Caddy's access log writes as
    ``user_id``, from the Referer and the User-Agent joined by a tab (a header value of Go's
    server holds no other control character): the kept Referer (the site's own path or
    another site's origin), a space, the User-Agent's first ``AGENT_MAX`` characters. Each
    mapping's output is made of its regular expression's groups only, so nothing else of
    either header can pass (access_log.py). The expressions are backquoted: raw for Caddy."""
    own, other = access_log.referer_patterns(topology)
    agent = rf"\t([^\t]{{0,{access_log.AGENT_MAX}}})[^\t]*$"
    return (
        (f"(?i){own}{agent}", "$1 $2"),
        (f"(?i){other}{agent}", "$1 $2"),
        (f"^[^\\t]*{agent}", " $1"),  # Any other Referer: the User-Agent alone.
    )


def _address(topology: Topology) -> str:
    """The site's address: plain HTTP on a local port, else the public URL's."""
    if topology.local:
        return f"http://:{topology.port}"
    address = f"{topology.scheme}://{topology.host}"
    return address + (f":{topology.listen_port}" if topology.listen_port else "")


def caddyfile(topology: Topology) -> str:
    """The whole Caddyfile of the site (``templates/Caddyfile.tmpl`` says what each part does)."""
    uri_pattern, uri_replacement = access_log.uri_filter()
    # Other languages first: the default language's page answers every other path.
    languages = sorted(LOCALES, key=lambda language: language == DEFAULT_LOCALE)
    return render(
        "Caddyfile.tmpl",
        local=topology.local,
        caddy_admin=topology.caddy_admin,
        asset_headers=topology.asset_headers,
        document_headers=topology.document_headers,
        address=_address(topology),
        static_root=topology.static_root,
        tab="\t",
        kept_headers=_kept_headers(topology),
        access_log=topology.access_log,
        keep_hours=access_log.KEEP_DAYS * 24,
        ipv4_bits=access_log.IPV4_BITS,
        ipv6_bits=access_log.IPV6_BITS,
        uri_pattern=uri_pattern,
        uri_replacement=uri_replacement,
        log_field=access_log.FIELD,
        backend_paths=_backend_matcher(),
        booking_link=booking_link(""),
        backends=" ".join(topology.backends),
        leads_health=LEADS_HEALTH,
        pages=topology.pages,
        not_found=[
            (language, _language_match(language), not_found_file(language))
            for language in languages
        ],
    )

"""The Caddyfile: the static export with precompressed files, the backends balanced.

Caddy is what Reflex's own production example uses; it serves the build's
``.br``/``.zst``/``.gz`` siblings (in that order of preference) and, for a public ``https://`` site, gets and renews the
TLS certificate by itself. Validate with ``caddy validate --config Caddyfile``.

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
    CLIENT_MAX_BODY,
    CLIENT_READ_TIMEOUT_S,
    FAIL_WINDOW_S,
    GENERATED,
    HASHED_CACHE,
    HASHED_PREFIX,
    MANIFEST_TYPE,
    MAX_FAILS,
    SHORT_CACHE,
    Topology,
    quoted,
)
from agency_site.locale import DEFAULT_LOCALE, LOCALES, not_found_file
from agency_site.paths import LEADS_HEALTH, MANIFEST_PATH, booking_link


def _language_match(language: str) -> str:
    """The CEL condition that a path is of ``language`` (none for the default one)."""
    return "" if language == DEFAULT_LOCALE else f" && path('{locale.prefix(language)}/*')"


def _backend_matcher() -> str:
    paths = [*BACKEND_EXACT_PATHS]
    for prefix in BACKEND_PREFIXES:
        paths += [prefix.rstrip("/"), prefix.rstrip("/") + "/*"]
    return " ".join(paths)


def _header(headers: tuple[tuple[str, str], ...], indent: str, matcher: str = "") -> str:
    """A deferred ``header`` block: applied when the response is written, so it replaces
    the backend's own copies."""
    lines = [f"header {matcher}{{".replace("  ", " "), "\tdefer"]
    lines += [f"\t{name} {quoted(value)}" for name, value in headers]
    return "\n".join(indent + line for line in [*lines, "}"])


def _kept_headers(topology: Topology) -> str:
    """A ``map`` into the placeholder Caddy's access log writes as ``user_id``, from the
    Referer and the User-Agent joined by a tab (a header value of Go's server holds no
    other control character): the kept Referer (the site's own path or another site's
    origin), a space, the User-Agent's first ``AGENT_MAX`` characters. Each mapping's
    output is made of its regular expression's groups only, so nothing else of either
    header can pass (access_log.py). The expressions are backquoted: raw for Caddy."""
    own, other = access_log.referer_patterns(topology)
    agent = rf"\t([^\t]{{0,{access_log.AGENT_MAX}}})[^\t]*$"
    mappings = (
        (f"(?i){own}{agent}", "$1 $2"),
        (f"(?i){other}{agent}", "$1 $2"),
        (f"^[^\\t]*{agent}", " $1"),  # Any other Referer: the User-Agent alone.
    )
    lines = [f"\t\t`~{pattern}` {quoted(output)}" for pattern, output in mappings]
    source = "{http.request.header.Referer}\t{http.request.header.User-Agent}"
    return "\n".join(
        [
            "\t# The log's Referer and User-Agent (agency_site/deploy/access_log.py).",
            f"\tmap {quoted(source)} {{http.auth.user.id}} {{",
            *lines,
            '\t\tdefault ""',
            "\t}",
        ]
    )


def _access_log(topology: Topology) -> str:
    """The site's JSON access log (agency_site/deploy/access_log.py): the address shortened
    (``ip_mask``) in both fields that hold one, no port, no header but the Referer and
    User-Agent of ``_kept_headers``, the URI's path and ``utm_*`` keys. logrotate rotates
    it daily; Caddy's own roll (by size, 100 MB) deletes what it rolls after the same
    30 days."""
    pattern, replacement = access_log.uri_filter()
    masks = "".join(
        f"""\t\t\t\trequest>{field} ip_mask {{
\t\t\t\t\tipv4 {access_log.IPV4_BITS}
\t\t\t\t\tipv6 {access_log.IPV6_BITS}
\t\t\t\t}}
"""
        # client_ip: Caddy 2.7 and later (the address after trusted proxies).
        for field in ("remote_ip", "client_ip")
    )
    return f"""{_kept_headers(topology)}
\tlog {{
\t\toutput file {topology.access_log} {{
\t\t\troll_keep_for {access_log.KEEP_DAYS * 24}h
\t\t}}
\t\tformat filter {{
\t\t\twrap json
\t\t\tfields {{
{masks}\t\t\t\trequest>remote_port delete
\t\t\t\trequest>uri regexp `{pattern}` {quoted(replacement)}
\t\t\t\trequest>headers delete
\t\t\t\trequest>host delete
\t\t\t\tresp_headers delete
\t\t\t\tuser_id rename {access_log.FIELD}
\t\t\t}}
\t\t}}
\t}}"""


def _page_redirects(topology: Topology, indent: str) -> str:
    """One URL per page: ``/about/`` answers 308 to ``/about`` (only for real pages), in a
    route only a path ending in ``/`` enters: the other requests (every file) skip the
    pages' matchers (one each) instead of trying them all."""
    redirects = "\n".join(f"{indent}\tredir {path}/ {path} 308" for path in topology.pages)
    return f"{indent}@slash path */\n{indent}route @slash {{\n{redirects}\n{indent}}}"


def caddyfile(topology: Topology) -> str:
    """The whole Caddyfile of the site.

    Its requests take one of three ways, each with its headers set once (docs/loadtest.md,
    "Where Caddy's time goes", measured what each piece cost): the backends' paths; the
    hashed bundles under ``HASHED_PREFIX`` (no page lookup, no redirect matcher, not in the
    access log: a page view's files are not visits, and the log's own cost per line is a
    fifth of Caddy's CPU); and the pages and other files (``try_files``, the redirects,
    the document headers). Unknown paths answer the not-found page of their language; an
    unknown bundle is logged as any 404."""
    # Slow clients: headers and bodies must arrive in time (a websocket, once upgraded, is
    # not cut: Go clears the deadlines of a hijacked connection).
    options = [
        "\tservers {",
        "\t\ttimeouts {",
        f"\t\t\tread_header {CLIENT_READ_TIMEOUT_S}s",
        f"\t\t\tread_body {CLIENT_READ_TIMEOUT_S}s",
        "\t\t}",
        "\t}",
    ]
    if topology.local:
        # Plain HTTP on a local port: no certificates, no admin endpoint to collide with.
        options = ["\tauto_https off", f"\tadmin {topology.caddy_admin}", *options]
        address = f"http://:{topology.port}"
    else:
        address = f"{topology.scheme}://{topology.host}"
        if topology.listen_port:
            address += f":{topology.listen_port}"
    # Caddy 2.6 (Debian's) has no response matchers in `header`: documents are picked by
    # request path: the pages (after try_files, *.html), "/" and the not-found pages.
    document = topology.document_headers
    asset_lines = "\n".join(f"\t\t{name} {quoted(value)}" for name, value in topology.asset_headers)
    backends = " ".join(topology.backends)
    global_options = "{\n" + "\n".join(options) + "\n}\n\n"
    not_found = "\n".join(
        f"""\t\t@notfound_{language} expression {{err.status_code}} == 404{_language_match(language)}
\t\thandle @notfound_{language} {{
\t\t\trewrite * {not_found_file(language)}
\t\t\theader Cache-Control {quoted(SHORT_CACHE)}
{_header(document, chr(9) * 3)}
\t\t\tfile_server {{
\t\t\t\tprecompressed br zstd gzip
\t\t\t}}
\t\t}}"""
        # Other languages first: the default language's page answers every other path.
        for language in sorted(LOCALES, key=lambda language: language == DEFAULT_LOCALE)
    )
    return f"""{GENERATED}{global_options}# The two header sets of the Python server (agency_site/server.py).
(asset_headers) {{
\theader {{
\t\tdefer
{asset_lines}
\t\t-Server
\t}}
}}

{address} {{
\troot * {topology.static_root}
\timport asset_headers
{_access_log(topology)}

\t# Websocket events, liveness/health and the site's own endpoints: to the backends.
\t@backend path {_backend_matcher()}
\thandle @backend {{
\t\t# The backends' own pages (form answers, booking pages) carry their own document
\t\t# headers: the whole CSP (they have no <meta> policy).
\t\t# A booking link's URL is its permission: no Referer may carry it.
\t\t@booking_link path {booking_link("")}*
{_header((("Referrer-Policy", "no-referrer"),), chr(9) * 2, "@booking_link ")}
\t\trequest_body {{
\t\t\tmax_size {CLIENT_MAX_BODY.upper()}B
\t\t}}
\t\treverse_proxy {backends} {{
\t\t\tlb_policy round_robin
\t\t\t# A dead backend: the request (or websocket reconnect) goes to another.
\t\t\tlb_try_duration 5s
\t\t\t# Passive health: only connection failures count (no unhealthy_status, so an
\t\t\t# answer such as a 503 from {LEADS_HEALTH} never takes a backend out).
\t\t\tfail_duration {FAIL_WINDOW_S}s
\t\t\tmax_fails {MAX_FAILS}
\t\t\t# No active health check: Debian's Caddy (2.6, before health_fails) takes a backend
\t\t\t# out on ONE /ping slower than its timeout, so a busy box refused healthy backends'
\t\t\t# forms with 503s (docs/deploy.md). A dead one refuses connections: passive health.
\t\t\t# The visitor's address replaces any X-Forwarded-For it sent (trusted hops: 1).
\t\t\theader_up X-Forwarded-For {{remote_host}}
\t\t}}
\t}}

\t# The hashed bundles: immutable, served as they are named, not logged.
\thandle {HASHED_PREFIX}* {{
\t\tskip_log
\t\theader Cache-Control {quoted(HASHED_CACHE)}
\t\tfile_server {{
\t\t\tprecompressed br zstd gzip
\t\t}}
\t}}

\t# The pages (about.html for /about) and the other files.
\thandle {{
\t\theader Cache-Control {quoted(SHORT_CACHE)}
\t\theader {MANIFEST_PATH} Content-Type {quoted(MANIFEST_TYPE)}
\t\troute {{
{_page_redirects(topology, chr(9) * 3)}
\t\t\ttry_files {{path}}.html {{path}}
\t\t\t@document path / *.html
{_header(document, chr(9) * 3, "@document ")}
\t\t\tfile_server {{
\t\t\t\tprecompressed br zstd gzip
\t\t\t}}
\t\t}}
\t}}

\t# Unknown paths: the exported not-found page of the path's language, with status 404.
\thandle_errors {{
\t\timport asset_headers
\t\t# Logged, whatever its way (a missing bundle too).
\t\tvars skip_log false
{not_found}
\t\thandle {{
\t\t\trespond "{{err.status_code}} {{err.status_text}}"
\t\t}}
\t}}
}}
"""

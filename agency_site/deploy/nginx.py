"""The same site as an nginx server block (Debian: /etc/nginx/sites-available/agency_site).

Needs the ``gzip_static`` module (in every Debian nginx) and ``brotli_static``
(``apt install libnginx-mod-http-brotli-static``); Debian packages no zstd module, so nginx
serves the ``.br`` and ``.gz`` siblings and leaves the ``.zst`` ones to Caddy. For an
``https://`` site the certificate comes from elsewhere (e.g. certbot); Caddy gets one by
itself.
Check with ``nginx -t``. The block's text is ``templates/nginx-site.conf.tmpl`` (Jinja2); this
module works out what fills it.

The booking links (``/_site/bookings/…?t=<token>``) are the permission to see and change a
booking, so their token is never written down: the access log uses the ``agency_site``
format (JSON lines of the shape Caddy writes too, agency_site/deploy/access_log.py, the
address shortened by the ``$agency_masked_address`` map), whose URI keeps a path and its ``utm_*`` keys
only, and their answers carry ``Referrer-Policy: no-referrer``, so a browser sends the
URL nowhere. nginx's error log
still names the whole request line when the backend cannot be reached (it has no format).
"""

import functools

from agency_site import locale
from agency_site.deploy import access_log
from agency_site.deploy.nginx_limits import LISTEN_BACKLOG, WORKER_CONNECTIONS, WORKER_OPEN_FILES
from agency_site.deploy.topology import (
    BACKEND_EXACT_PATHS,
    BACKEND_PREFIXES,
    BACKEND_REQUEST_BURST,
    BACKEND_REQUESTS_PER_S,
    CONNECTIONS_PER_ADDRESS,
    GENERATED,
    PUBLIC_GET_BURST,
    PUBLIC_GETS_PER_MINUTE,
    WEBSOCKET_READ_TIMEOUT_S,
    Topology,
    quoted,
    render,
)
from agency_site.locale import DEFAULT_LOCALE, LOCALES, not_found_file
from agency_site.paths import EVENT, FORM_TOKEN, LEADS_HEALTH, booking_link

UPSTREAM = "agency_site_backend"
CONNECTION_ZONE = "agency_site_conn"
REQUEST_ZONE = "agency_site_req"
PUBLIC_GET_ZONE = "agency_site_get"
# GETs anyone may send that reach the backend's store and folders: their own zone.
PUBLIC_GETS = (FORM_TOKEN, LEADS_HEALTH)
LOG_FORMAT = "agency_site"
# The booking links' pages, calendar file and free slots: "/_site/bookings/".
BOOKING_PREFIX = booking_link("")


def _document_variable(name: str) -> str:
    """The variable holding a document header's value on HTML answers, else empty."""
    return "$agency_" + name.lower().replace("-", "_")


# nginx reads a configuration token of at most 4 KB; a longer header value (the CSP: one
# hash per inline script of every page, in every language) is split over several maps
# and joined again in ``add_header``.
_MAP_VALUE_MAX = 3000


def _chunks(value: str) -> list[str]:
    """``value`` in pieces of at most ``_MAP_VALUE_MAX`` characters, cut before a space."""
    pieces: list[str] = []
    while len(value) > _MAP_VALUE_MAX:
        cut = value.rindex(" ", 0, _MAP_VALUE_MAX)
        pieces.append(value[:cut])
        value = value[cut:]
    return [*pieces, value]


def _document_maps(topology: Topology) -> list[tuple[str, str]]:
    """Each document header's maps (one per piece of a long one): variable and value."""
    return [
        (f"{_document_variable(name)}_{index}", piece)
        for name, value in topology.document_headers
        for index, piece in enumerate(_chunks(value))
    ]


def _document_value(name: str, value: str) -> str:
    """The ``add_header`` value of a document header: its maps' pieces, joined."""
    variable = _document_variable(name)
    return quoted("".join(f"{variable}_{index}" for index in range(len(_chunks(value)))))


def _headers(
    topology: Topology,
    indent: str,
    cache: str | None = None,
    *,
    private: bool = False,
    proxied: bool = False,
) -> str:
    """``add_header`` lines; nginx drops inherited ones in any block that adds its own.
    ``proxied``: a backend's answer, which carries its own document headers (the whole CSP
    of its pages: they have no ``<meta>``); ``private``: a booking link's answer, whose URL
    no Referer may carry."""
    lines = [f"add_header {name} {quoted(value)} always;" for name, value in topology.asset_headers]
    if not proxied:
        lines += [
            f"add_header {name} {_document_value(name, value)} always;"
            for name, value in topology.document_headers
        ]
    if private:
        lines.append('add_header Referrer-Policy "no-referrer" always;')
    if cache:
        lines.append(f"add_header Cache-Control {quoted(cache)} always;")
    return "\n".join(indent + line for line in lines)


def _proxy(
    topology: Topology, *, websocket: bool = False, private: bool = False, public_get: bool = False
) -> str:
    # The backend sends the asset set too: keep one copy, ours. Its document headers (its
    # own pages' whole CSP) pass, but a booking link's Referrer-Policy is ours.
    names = [name for name, _ in topology.asset_headers]
    names += ["Referrer-Policy"] if private else []
    lines = [f"proxy_hide_header {name};" for name in names]
    lines += [
        f"proxy_pass http://{UPSTREAM};",
        "proxy_http_version 1.1;",
        "proxy_set_header Host $host;",
        # The visitor's address replaces any X-Forwarded-For it sent (trusted hops: 1).
        "proxy_set_header X-Forwarded-For $remote_addr;",
        "proxy_set_header X-Forwarded-Proto $scheme;",
        # Another backend only when this one cannot be reached or does not answer in
        # time: an answer (a 503 from a health endpoint, a store failure) is passed on
        # and never marks the backend down (max_fails counts these same events).
        "proxy_next_upstream error timeout;",
        f"limit_req zone={REQUEST_ZONE} burst={BACKEND_REQUEST_BURST} nodelay;",
        *([f"limit_req zone={PUBLIC_GET_ZONE} burst={PUBLIC_GET_BURST} nodelay;"] * public_get),
        # Room for the backend's headers (its pages' CSP, cookies of the socket's polling).
        "proxy_buffer_size 16k;",
        "proxy_buffers 8 16k;",
    ]
    if websocket:
        lines += [
            "proxy_set_header Upgrade $http_upgrade;",
            "proxy_set_header Connection $connection_upgrade;",
            f"proxy_read_timeout {WEBSOCKET_READ_TIMEOUT_S}s;",
            f"proxy_send_timeout {WEBSOCKET_READ_TIMEOUT_S}s;",
        ]
    else:
        lines.append('proxy_set_header Connection "";')
    return "\n".join("        " + line for line in lines)


# Let's Encrypt's HTTP-01 challenges on the plain port: certbot's nginx plugin answers
# them there by itself (it adds its own location while it renews: docs/deploy.md); this
# folder (``Topology.acme_webroot``) serves them to ``certbot --webroot`` too.
ACME_CHALLENGE = "/.well-known/acme-challenge/"
# TLS as Mozilla's "intermediate" profile (ssl-config.mozilla.org, nginx 1.22, OpenSSL 3):
# TLS 1.2 and 1.3, forward-secret AEAD ciphers only, the client's order (all are strong).
TLS_PROTOCOLS = "TLSv1.2 TLSv1.3"
TLS_CIPHERS = (
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
    "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305"
)
TLS_SESSION_CACHE = "shared:agency_site_tls:10m"


def _public_https(topology: Topology) -> bool:
    return topology.scheme == "https" and not topology.local


def _log_values(topology: Topology) -> dict[str, object]:
    """What the access log's format and maps are made of (agency_site/deploy/access_log.py):
    the address shortened, the URI's path and ``utm_*`` keys, the Referer's own path or
    origin and the User-Agent; nothing else of the request."""
    own, other = access_log.referer_patterns(topology)
    return {
        "log_format": LOG_FORMAT,
        "access_log": topology.access_log,
        "utm_keys": access_log.UTM_KEYS,
        "own_referer": own,
        "other_referer": other,
        "agent_max": access_log.AGENT_MAX,
        "log_field": access_log.FIELD,
    }


def _tls_values(topology: Topology) -> dict[str, object]:
    """An https site's certificate, TLS profile and plain port (ACME, the redirect)."""
    port = f":{topology.port}" if topology.port != 443 else ""
    return {
        "public_https": _public_https(topology),
        "tls_certificate": topology.tls_certificate,
        "tls_certificate_key": topology.tls_certificate_key,
        "tls_protocols": TLS_PROTOCOLS,
        "tls_ciphers": TLS_CIPHERS,
        "tls_session_cache": TLS_SESSION_CACHE,
        "http_port": topology.http_port,
        "acme_challenge": ACME_CHALLENGE,
        "acme_webroot": topology.acme_webroot,
        "https_url": f"https://{topology.host}{port}",
    }


def server_block(topology: Topology) -> str:
    """The upstream, websocket map and server blocks of the site
    (``templates/nginx-site.conf.tmpl``)."""
    return render(
        "nginx-site.conf.tmpl",
        **_log_values(topology),
        **_tls_values(topology),
        headers=functools.partial(_headers, topology),
        proxy=functools.partial(_proxy, topology),
        upstream=UPSTREAM,
        backends=topology.backends,
        connection_zone=CONNECTION_ZONE,
        request_zone=REQUEST_ZONE,
        public_get_zone=PUBLIC_GET_ZONE,
        requests_per_s=BACKEND_REQUESTS_PER_S,
        public_gets_per_minute=PUBLIC_GETS_PER_MINUTE,
        document_maps=_document_maps(topology),
        local=topology.local,
        host=topology.host,
        port=topology.port,
        server_name="_" if topology.local else topology.host,
        static_root=topology.static_root,
        connections_per_address=CONNECTIONS_PER_ADDRESS,
        listen_backlog=LISTEN_BACKLOG,
        default_not_found=not_found_file(DEFAULT_LOCALE),
        backend_locations=[f"location = {path}" for path in BACKEND_EXACT_PATHS]
        + [f"location {prefix}" for prefix in BACKEND_PREFIXES if prefix != EVENT],
        event=EVENT,
        public_gets=PUBLIC_GETS,
        booking_prefix=BOOKING_PREFIX,
        pages=topology.pages,
        other_languages=[
            (locale.prefix(language), not_found_file(language))
            for language in LOCALES
            if language != DEFAULT_LOCALE
        ],
    )


def standalone_config(prefix: str) -> str:
    """A whole ``nginx.conf`` around the server block, to run it in ``prefix`` (``make stack``,
    the release's ``nginx -t``): one worker per core, as Debian's ``nginx.conf``, each with
    room for a burst's connections (``WORKER_CONNECTIONS``)."""
    return f"""{GENERATED}
load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;
worker_processes auto;
worker_rlimit_nofile {WORKER_OPEN_FILES};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{
    worker_connections {WORKER_CONNECTIONS};
}}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    sendfile on;
    include {prefix}/agency_site.conf;
    # After the include, which defines the format (a public site's block has its own).
    access_log {prefix}/access.log {LOG_FORMAT};
}}
"""

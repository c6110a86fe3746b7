"""The same site as an nginx server block (Debian: /etc/nginx/sites-available/agency_site).

Needs the ``gzip_static`` module (in every Debian nginx) and ``brotli_static``
(``apt install libnginx-mod-http-brotli-static``); Debian packages no zstd module, so nginx
serves the ``.br`` and ``.gz`` siblings and leaves the ``.zst`` ones to Caddy. For an
``https://`` site the certificate comes from elsewhere (e.g. certbot); Caddy gets one by
itself.
Check with ``nginx -t``.

The booking links (``/_site/bookings/…?t=<token>``) are the permission to see and change a
booking, so their token is never written down: the access log uses the ``agency_site``
format (JSON lines of the shape Caddy writes too, agency_site/deploy/access_log.py, the
address shortened by ``_MASKED_ADDRESS``), whose URI keeps a path and its ``utm_*`` keys
only, and their answers carry ``Referrer-Policy: no-referrer``, so a browser sends the
URL nowhere. nginx's error log
still names the whole request line when the backend cannot be reached (it has no format).
"""

from agency_site import locale
from agency_site.deploy import access_log
from agency_site.deploy.topology import (
    BACKEND_EXACT_PATHS,
    BACKEND_PREFIXES,
    BACKEND_REQUEST_BURST,
    BACKEND_REQUESTS_PER_S,
    CLIENT_MAX_BODY,
    CLIENT_READ_TIMEOUT_S,
    CONNECTIONS_PER_ADDRESS,
    FAIL_WINDOW_S,
    GENERATED,
    HASHED_CACHE,
    HASHED_PREFIX,
    MANIFEST_TYPE,
    MAX_FAILS,
    PUBLIC_GET_BURST,
    PUBLIC_GETS_PER_MINUTE,
    SHORT_CACHE,
    WEBSOCKET_READ_TIMEOUT_S,
    Topology,
    quoted,
)
from agency_site.locale import DEFAULT_LOCALE, LOCALES, not_found_file
from agency_site.paths import FORM_TOKEN, LEADS_HEALTH, MANIFEST_PATH, booking_link

UPSTREAM = "agency_site_backend"
CONNECTION_ZONE = "agency_site_conn"
REQUEST_ZONE = "agency_site_req"
PUBLIC_GET_ZONE = "agency_site_get"
# GETs anyone may send that reach the backend's store and folders: their own zone.
PUBLIC_GETS = (FORM_TOKEN, LEADS_HEALTH)
LOG_FORMAT = "agency_site"
# The booking links' pages, calendar file and free slots: "/_site/bookings/".
BOOKING_PREFIX = booking_link("")
# The visitor's address shortened: an IPv4 address's first 24 bits, an IPv6 one's first
# 48 (written out: its first three groups; any other spelling keeps nothing).
_MASKED_ADDRESS = r"""map $remote_addr $agency_masked_address {
    "~^(?<agency_ipv4>\d+\.\d+\.\d+)\.\d+$" "$agency_ipv4.0";
    "~*^(?<agency_ipv6>[0-9a-f]{1,4}:[0-9a-f]{1,4}:[0-9a-f]{1,4}):" "$agency_ipv6::";
    default "::";
}"""


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


def _document_maps(topology: Topology) -> str:
    """One ``map`` per document header (per piece of a long one): its value when the answer
    is HTML, else empty (nginx sends no header with an empty value), as the Python server's
    ``is_document``."""
    return "\n\n".join(
        f"map $sent_http_content_type {_document_variable(name)}_{index} {{\n"
        f'    "~*^text/html" {quoted(piece)};\n    default "";\n}}'
        for name, value in topology.document_headers
        for index, piece in enumerate(_chunks(value))
    )


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


def _listen(topology: Topology) -> str:
    if _public_https(topology):
        return (
            f"    listen {topology.port} ssl http2;\n"
            f"    listen [::]:{topology.port} ssl http2;\n"
            f"    ssl_certificate {topology.tls_certificate};\n"
            f"    ssl_certificate_key {topology.tls_certificate_key};\n"
            f"    ssl_protocols {TLS_PROTOCOLS};\n"
            f"    ssl_ciphers {TLS_CIPHERS};\n"
            "    ssl_prefer_server_ciphers off;\n"
            f"    ssl_session_cache {TLS_SESSION_CACHE};\n"
            "    ssl_session_timeout 1d;\n"
            "    ssl_session_tickets off;\n"
        )
    return f"    listen {topology.port};\n"


def _http_to_https(topology: Topology) -> str:
    """An https site's plain port: the ACME challenges, and a redirect to https for the
    rest (in a location, so a challenge is never redirected). Its log is the site's."""
    if not _public_https(topology):
        return ""
    https = f"https://{topology.host}" + (f":{topology.port}" if topology.port != 443 else "")
    return f"""server {{
    listen {topology.http_port};
    listen [::]:{topology.http_port};
    server_name {topology.host};
    server_tokens off;
{_access_log(topology)}    location ^~ {ACME_CHALLENGE} {{
        root {topology.acme_webroot};
        default_type text/plain;
    }}
    location / {{
        return 301 {https}$request_uri;
    }}
}}

"""


def _access_log(topology: Topology) -> str:
    """A public site's access log line (a local one's comes from ``standalone_config``)."""
    return "" if topology.local else f"    access_log {topology.access_log} {LOG_FORMAT};\n"


def _log_format(topology: Topology) -> str:
    """The access log's format (agency_site/deploy/access_log.py) and the maps it reads:
    the address shortened, the URI's path and ``utm_*`` keys, the Referer's own path or
    origin and the User-Agent; nothing else of the request."""
    own, other = access_log.referer_patterns(topology)
    utm_maps = "\n".join(
        f'map $arg_{key} $agency_{key} {{\n    "" "";\n    default "&{key}=$arg_{key}";\n}}'
        for key in access_log.UTM_KEYS
    )
    utm = "".join(f"$agency_{key}" for key in access_log.UTM_KEYS)
    return f"""# The access log (agency_site/deploy/access_log.py): JSON; the address shortened; the
# URI's path and its utm_* keys, no other query key (a booking or report link's token, ad
# click ids...); the Referer cut to the site's own path or another site's origin, and the
# User-Agent; no other header.
{_MASKED_ADDRESS}
map $request_uri $agency_path {{
    "~^(?<agency_request_path>[^?]*)" $agency_request_path;
}}
{utm_maps}
map "{utm}" $agency_utm_query {{
    "~^&(?<agency_utm>.+)$" "?$agency_utm";
    default "";
}}
map $http_referer $agency_referer {{
    "~*{own}$" $1;
    "~*{other}$" $1;
    default "";
}}
map $http_user_agent $agency_user_agent {{
    "~^(?<agency_agent>.{{0,{access_log.AGENT_MAX}}})" $agency_agent;
}}
log_format {LOG_FORMAT} escape=json '{{"ts":$msec,"status":$status,"request":{{'
    '"remote_ip":"$agency_masked_address","method":"$request_method",'
    '"uri":"$agency_path$agency_utm_query"}},'
    '"{access_log.FIELD}":"$agency_referer $agency_user_agent"}}';"""


def server_block(topology: Topology) -> str:
    """The upstream, websocket map and server blocks of the site."""
    backends = "\n".join(
        f"    server {address} max_fails={MAX_FAILS} fail_timeout={FAIL_WINDOW_S}s;"
        for address in topology.backends
    )
    backend_locations = [f"location = {path}" for path in BACKEND_EXACT_PATHS] + [
        f"location {prefix}" for prefix in BACKEND_PREFIXES if prefix != "/_event"
    ]
    backend_headers = _headers(topology, "        ", proxied=True)
    proxied = "\n".join(
        f"    {location} {{\n{backend_headers}\n{_proxy(topology)}\n    }}"
        for location in backend_locations
    )
    # The token and health GETs: their own tighter limit too.
    proxied += "".join(
        f"\n    location = {path} {{\n{backend_headers}\n{_proxy(topology, public_get=True)}\n    }}"
        for path in PUBLIC_GETS
    )
    # The booking links: their own Referrer-Policy.
    proxied += (
        f"\n    location {BOOKING_PREFIX} {{\n"
        f"{_headers(topology, '        ', private=True, proxied=True)}\n"
        f"{_proxy(topology, private=True)}\n    }}"
    )
    redirects = "\n".join(
        f"    location = {path}/ {{\n        return 308 {path};\n    }}" for path in topology.pages
    )
    # Each other language's pages (/ca/...): the same files, its own not-found page.
    language_locations = "".join(
        f"""    location {locale.prefix(language)}/ {{
        error_page 404 {not_found_file(language)};
{_headers(topology, "        ", SHORT_CACHE)}
        try_files $uri.html $uri =404;
    }}
"""
        for language in LOCALES
        if language != DEFAULT_LOCALE
    )
    server_name = "_" if topology.local else topology.host
    return f"""{GENERATED}
upstream {UPSTREAM} {{
{backends}
    keepalive 16;
}}

# Per visitor address: open connections, and requests per second to the backends.
limit_conn_zone $binary_remote_addr zone={CONNECTION_ZONE}:10m;
limit_req_zone $binary_remote_addr zone={REQUEST_ZONE}:10m rate={BACKEND_REQUESTS_PER_S}r/s;
limit_req_zone $binary_remote_addr zone={PUBLIC_GET_ZONE}:10m rate={PUBLIC_GETS_PER_MINUTE}r/m;

map $http_upgrade $connection_upgrade {{
    default upgrade;
    "" close;
}}

{_log_format(topology)}

# The document headers of the Python server (agency_site/server.py), on HTML answers only.
{_document_maps(topology)}

{_http_to_https(topology)}server {{
{_listen(topology)}    server_name {server_name};
    root {topology.static_root};
    server_tokens off;
    absolute_redirect off;
{_access_log(topology)}
    gzip_static on;
    brotli_static on;
    charset utf-8;
    # Slow or abusive clients: a refused request is told 429; headers and each read of a
    # body must arrive in time; bodies are small (forms, the socket's polling transport).
    limit_conn {CONNECTION_ZONE} {CONNECTIONS_PER_ADDRESS};
    limit_conn_status 429;
    limit_req_status 429;
    client_header_timeout {CLIENT_READ_TIMEOUT_S}s;
    client_body_timeout {CLIENT_READ_TIMEOUT_S}s;
    client_max_body_size {CLIENT_MAX_BODY};
    # Unknown paths: the exported not-found page, with status 404 (another language's
    # paths: its own, in its location below).
    error_page 404 {not_found_file(DEFAULT_LOCALE)};

{_headers(topology, "    ")}

    # Websocket events: upgrade, and a read timeout longer than any quiet visit.
    location /_event {{
{backend_headers}
{_proxy(topology, websocket=True)}
    }}
    # Liveness/health and the site's own endpoints.
{proxied}

    # One URL per page: /about/ answers 308 to /about (only for real pages).
{redirects}

    # The hashed bundles: not in the access log (a page view's files are no visit; a
    # missing one is logged by the not-found page's location), as in the Caddyfile.
    location {HASHED_PREFIX} {{
{_headers(topology, "        ", HASHED_CACHE)}
        access_log off;
        try_files $uri =404;
    }}
    location = {MANIFEST_PATH} {{
{_headers(topology, "        ", SHORT_CACHE)}
        types {{ }}
        default_type {MANIFEST_TYPE};
    }}
    location = / {{
{_headers(topology, "        ", SHORT_CACHE)}
        try_files /index.html =404;
    }}
    location / {{
{_headers(topology, "        ", SHORT_CACHE)}
        try_files $uri.html $uri =404;
    }}
{language_locations}}}
"""


def standalone_config(prefix: str) -> str:
    """A whole ``nginx.conf`` around the server block, to run it in ``prefix`` (``make stack``,
    the release's ``nginx -t``): one worker per core, as Debian's ``nginx.conf``."""
    return f"""{GENERATED}
load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;
worker_processes auto;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{
    worker_connections 4096;
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

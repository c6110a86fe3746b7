"""The site's access log, shared by Caddy and nginx: JSON lines that keep only what the
privacy policy names.

Both servers write one shape, so one reader (agency_site/report) reads either::

    {"ts": <unix seconds>, "status": 200,
     "request": {"remote_ip": "192.0.2.0", "method": "GET", "uri": "/ca/about?utm_source=x"},
     "referer_user_agent": "https://www.google.com Mozilla/5.0 (...)"}

(Caddy adds its own harmless fields: level, logger, msg, proto, tls, duration, size.)
What a line keeps, and nothing else:

- **the address shortened** to its first 24 bits (IPv4) or 48 bits (IPv6), in every field
  that holds one (Caddy >= 2.7 writes ``client_ip`` beside ``remote_ip``); no port;
- **the URI as its path plus the ``utm_*`` keys** (``UTM_KEYS``): every other query key
  is dropped, whatever its name (``t`` of a booking or report link, ``gclid``,
  ``fbclid``, ``mc_eid``, ``_hsenc``, the socket's ``token``...);
- **of the request's headers, only the Referer and the User-Agent**, in one field
  (``FIELD``): the Referer cut to the site's own path (a link inside the site) or to the
  other site's origin (``https://www.google.com``): a Referer's path and query carry
  identifiers too (a webmail's message, a tracking redirect); then a space (a kept Referer
  has none), then the User-Agent's first ``AGENT_MAX`` characters. No other header, of
  the request or the answer: a header named by the visitor (``CF-Connecting-IP``,
  ``True-Client-IP``, ``X-Forwarded-For``...) can never reach the log.

Caddy's log filter can delete a header it is told the name of, never keep two and drop
the rest; so Caddy deletes ``request>headers`` whole and builds ``FIELD`` with a ``map``
into the one field its access log fills from a placeholder (``user_id``), renamed. Caddy
2.6 (Debian 12's) and Caddy's own builds (2.7 and later) read the same file.

logrotate (Debian's daily timer) rotates the file every day and deletes the rotated
files after ``KEEP_DAYS`` days (``copytruncate``: neither server needs a signal; the
reader finds the rotated day in ``<log>.1``, kept uncompressed a day by ``delaycompress``).
"""

from agency_site.deploy.topology import GENERATED, Topology

# Days a line of the access log is kept (the privacy and cookie policies print it).
KEEP_DAYS = 30
# The shortened address: this many leading bits kept.
IPV4_BITS = 24
IPV6_BITS = 48
LOGROTATE_FILE = "logrotate-agency_site"
# The query keys a logged URI keeps: the campaign tags (Google's utm_* keys).
UTM_KEYS = (
    "utm_source",
    "utm_medium",
    "utm_campaign",
    "utm_term",
    "utm_content",
    "utm_id",
    "utm_source_platform",
    "utm_creative_format",
    "utm_marketing_tactic",
)
# The field holding the kept Referer and User-Agent, and the User-Agent's kept length.
FIELD = "referer_user_agent"
AGENT_MAX = 512
# The longest own path a kept Referer keeps (a longer one keeps the site's origin).
REFERER_PATH_MAX = 512

# A query parameter's key runs to its "=", its parameter to the next "&".
_KEY_CHAR = "[^&=]"


def _escape(text: str) -> str:
    """``text`` as a literal of a regular expression read alike by Go (RE2), PCRE (nginx)
    and Python: only ``.`` of host names and keys needs it here."""
    return "".join("\\" + char if char in ".^$*+?()[]{}|\\" else char for char in text)


def _key_not_in(keys: set[str]) -> str:
    """A regular expression matching every query key (no ``&`` nor ``=``) that is none of
    ``keys``: a trie of them with every way off it. No lookahead: Go's RE2 has none."""
    ways = [] if "" in keys else [""]  # The key may end here.
    firsts = sorted({key[0] for key in keys if key})
    ways.append(f"[^&={''.join(_escape(first) for first in firsts)}]{_KEY_CHAR}*")
    for first in firsts:
        rest = {key[1:] for key in keys if key and key[0] == first}
        ways.append(_escape(first) + _key_not_in(rest))
    return "(?:" + "|".join(ways) + ")"


def uri_filter() -> tuple[str, str]:
    """``(pattern, replacement)`` that, replaced everywhere in a request's URI, leaves its
    path and only the parameters of ``UTM_KEYS`` (Caddy's ``regexp`` log filter; Go's
    ``$1``, Python's ``\\1``). Each match is a run of other parameters: the whole query
    when none is kept; a run at its end with the ``&`` before it; else a run with the
    ``&`` after each, whose first separator stays."""
    other = _key_not_in(set(UTM_KEYS)) + "(?:=[^&]*)?"
    pattern = rf"\?(?:{other}(?:&|$))+$|(?:&{other})+$|([?&])(?:{other}&)+"
    return pattern, "$1"


def own_hosts(topology: Topology) -> tuple[str, ...]:
    """The host names a Referer of the site's own pages has (the report's own hosts)."""
    bare = topology.host.removeprefix("www.")
    local = ("localhost", "127.0.0.1") if topology.local else ()
    return tuple(dict.fromkeys((bare, f"www.{bare}", *local)))


def referer_patterns(topology: Topology) -> tuple[str, str]:
    """``(own, other)``: regular expressions (case-insensitive) of a whole Referer; group 1
    of ``own`` is a page of the site without its query, of ``other`` another site's
    origin. A Referer that neither matches is not kept."""
    hosts = "|".join(_escape(host) for host in own_hosts(topology))
    own = (
        rf"^(https?://(?:{hosts})(?::[0-9]+)?(?:/[^?#\s]{{0,{REFERER_PATH_MAX}}})?)"
        r"(?:[?#]\S*)?"
    )
    other = r"^(https?://[^/?#\s@]{1,255})(?:[/?#]\S*)?"
    return own, other


def logrotate(topology: Topology) -> str:
    """``/etc/logrotate.d/agency_site``: daily, deleted after ``KEEP_DAYS`` days."""
    return f"""{GENERATED}{topology.access_log} {{
    daily
    rotate {KEEP_DAYS}
    maxage {KEEP_DAYS}
    missingok
    notifempty
    compress
    delaycompress
    copytruncate
}}
"""

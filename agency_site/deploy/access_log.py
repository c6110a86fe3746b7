"""The site's access log, shared by Caddy and nginx: JSON lines, addresses shortened.

Both servers write the same shape (Caddy's own), so one reader (agency_site/report)
reads either: ``{"ts": <unix seconds>, "status": 200, "request": {"remote_ip": "192.0.2.0",
"method": "GET", "uri": "/ca/about?utm_source=x", "headers": {"Referer": [...],
"User-Agent": [...]}}, "resp_headers": {"Content-Type": [...]}}``. An address keeps its
first 24 bits (IPv4) or 48 bits (IPv6): never one person's. A booking link's token
(its query) and every Referer's query are replaced by ``[hidden]``.

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
# What replaces a hidden query.
HIDDEN = "[hidden]"
LOGROTATE_FILE = "logrotate-agency_site"


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

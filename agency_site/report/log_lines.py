"""One line of the access log (agency_site/deploy/access_log.py: one JSON shape, Caddy's
and nginx's) as a ``Hit``: what the report counts, nothing else kept.

The Referer and the User-Agent come in one field (``access_log.FIELD``: the kept Referer,
a space, the User-Agent); a line written before that field existed has them in
``request.headers``, and is read too."""

import datetime as dt
import json
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

from agency_site.deploy.access_log import FIELD
from agency_site.rules import AGENCY_TIME_ZONE

ZONE = ZoneInfo(AGENCY_TIME_ZONE)


@dataclass(frozen=True)
class Hit:
    """A request as the report sees it: the agency's day, what was asked, the answer."""

    day: dt.date
    method: str
    path: str
    query: str
    status: int
    referrer: str  # The Referer: another site's origin or a page of ours (no query), or "".
    user_agent: str  # Read to classify, never stored.
    content_type: str


def _first(headers: object, name: str) -> str:
    values = headers.get(name) if isinstance(headers, dict) else None
    if isinstance(values, list) and values and isinstance(values[0], str):
        return values[0]
    return ""


def _referrer_and_agent(data: dict, request: dict) -> tuple[str, str]:
    kept = data.get(FIELD)
    if isinstance(kept, str):
        referrer, _, agent = kept.partition(" ")
        return referrer, agent
    headers = request.get("headers") or {}
    return _first(headers, "Referer"), _first(headers, "User-Agent")


def parse(line: str) -> Hit | None:
    """The hit of a log line; None for anything that is not one (a torn or foreign line)."""
    try:
        data = json.loads(line)
        request = data["request"]
        moment = dt.datetime.fromtimestamp(float(data["ts"]), dt.UTC)
        status = int(data["status"])
        uri = str(request["uri"])
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(request, dict):
        return None
    parts = urlsplit(uri)
    referrer, user_agent = _referrer_and_agent(data, request)
    return Hit(
        day=moment.astimezone(ZONE).date(),
        method=str(request.get("method", "")),
        path=unquote(parts.path) or "/",
        query=parts.query,
        status=status,
        referrer=referrer,
        user_agent=user_agent,
        content_type=_first(data.get("resp_headers") or {}, "Content-Type"),
    )

"""Where a lead came from, without cookies: the page the form was sent from, the entry page
of the visit, its ``utm_*`` parameters and the referring site's host.

The page keeps the visit's entry facts in its memory only (nothing stored in the browser,
``components/js/lead_source.js``) and puts them, with the current page, in the forms'
hidden ``lead_source`` field (``forms.declarations.SOURCE_FIELD``) as JSON when a form is sent. Nothing here trusts it: it is read
only when short, only known keys are kept, each value is a bounded, printable string (paths
start with ``/``, the referrer is a bare host name), and anything else is dropped, never an
error: a lead is never refused for its source.
"""

import json
import re
from collections.abc import Mapping
from typing import Any

from agency_site.content.lead_source import WORDS
from agency_site.content.loader import fill
from agency_site.forms.declarations import UTM_KEYS

_RAW_MAX = 2048
_VALUE_MAX = 200
KEYS = ("page", "landing", "referrer", *UTM_KEYS)
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?")


def _clean(key: str, value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()[:_VALUE_MAX]
    if not value or not value.isprintable():
        return None
    if key in ("page", "landing"):
        return value.split("?")[0].split("#")[0] if value.startswith("/") else None
    if key == "referrer":
        value = value.lower()
        return value if _HOST.fullmatch(value) else None
    return value


def parse(raw: Any) -> dict[str, str]:
    """The known, well-formed facts of a ``lead_source`` field; {} for anything else."""
    if not isinstance(raw, str) or not raw or len(raw) > _RAW_MAX:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    if not isinstance(data, Mapping):
        return {}
    cleaned = {key: _clean(key, data.get(key)) for key in KEYS}
    return {key: value for key, value in cleaned.items() if value}


def describe(source: Mapping[str, str] | None) -> str:
    """One line for the agency's e-mail and ``leads list``, e.g. ``enviado desde /schedule ·
    entrada en /services/branding · llegó desde google.com · utm_source=newsletter``."""
    if not source:
        return WORDS.unknown
    parts = [
        fill(getattr(WORDS, key), {key: source[key]})
        for key in ("page", "landing", "referrer")
        if source.get(key)
    ]
    parts += [f"{key}={source[key]}" for key in UTM_KEYS if source.get(key)]
    return WORDS.separator.join(parts) or WORDS.unknown

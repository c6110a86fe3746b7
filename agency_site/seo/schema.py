"""schema.org structured data (JSON-LD) of the agency and of the pages.

Every page carries the agency (``ProfessionalService``, an ``Organization``
subtype); inner pages add their ``BreadcrumbList``; a page can add its own
entries (``JobPosting``, ``FAQPage``, ``Service``...) through the
``structured_data`` hook of its ``Route``.
"""

import json
from collections.abc import Iterable, Sequence
from typing import Any

from agency_site.content.site import SITE
from agency_site.seo.urls import ICON_512_PATH, SOCIAL_IMAGE_PATH, absolute_url

JsonLd = dict[str, Any]


def organization_id() -> str:
    """The ``@id`` other entries use to point at the agency (e.g. ``hiringOrganization``)."""
    return absolute_url("/") + "#organization"


def organization() -> JsonLd:
    """The agency as a ``ProfessionalService`` with its Agramunt address, e-mail and phone."""
    address = SITE.address
    return {
        "@type": "ProfessionalService",
        "@id": organization_id(),
        "name": SITE.name,
        "description": SITE.blurb,
        "url": absolute_url("/"),
        "logo": absolute_url(ICON_512_PATH),
        "image": absolute_url(SOCIAL_IMAGE_PATH),
        "email": SITE.email,
        "telephone": SITE.tel.removeprefix("tel:"),
        "address": {
            "@type": "PostalAddress",
            "streetAddress": address.street,
            "postalCode": address.postal_code,
            "addressLocality": address.city,
            "addressRegion": address.region,
            "addressCountry": address.country_code,
        },
        "areaServed": {"@type": "Country", "name": address.country},
    }


def breadcrumbs(trail: Sequence[tuple[str, str]]) -> JsonLd:
    """``BreadcrumbList`` of (name, path) pairs, from the home page down to the current page."""
    return {
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": position, "name": name, "item": absolute_url(path)}
            for position, (name, path) in enumerate(trail, start=1)
        ],
    }


def graph(entries: Iterable[JsonLd]) -> JsonLd:
    """One JSON-LD document holding several entries."""
    return {"@context": "https://schema.org", "@graph": list(entries)}


def to_script_text(document: JsonLd) -> str:
    """JSON text safe inside ``<script>``: every ``<`` escaped so ``</script>`` cannot occur."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")

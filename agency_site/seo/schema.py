"""schema.org structured data (JSON-LD) of the agency and of the pages.

Every page carries the agency (``ProfessionalService``, an ``Organization``
subtype); inner pages add their ``BreadcrumbList``; a page can add its own
entries (``JobPosting``, ``FAQPage``, ``Service``...) through the
``structured_data`` hook of its ``Route``.
"""

import json
from collections.abc import Iterable, Sequence
from typing import Any

from agency_site import paths
from agency_site.content.careers import CAREERS, JobPosting
from agency_site.content.contact import PAGE as CONTACT_PAGE
from agency_site.content.sections import PacksSection
from agency_site.content.service_pages import SERVICE_PAGES, service_by_id
from agency_site.content.site import SITE
from agency_site.locale import HTML_LANG, current, localized_path
from agency_site.paths import ICON_512_PATH, SOCIAL_IMAGE_PATH
from agency_site.seo.urls import absolute_url

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


def web_page(path: str, title: str, description: str) -> JsonLd:
    """The page itself, in the language in use (``inLanguage``)."""
    return {
        "@type": "WebPage",
        "url": absolute_url(path),
        "name": title,
        "description": description,
        "inLanguage": HTML_LANG[current()],
        "isPartOf": {"@type": "WebSite", "url": absolute_url("/"), "name": SITE.name},
    }


def graph(entries: Iterable[JsonLd]) -> JsonLd:
    """One JSON-LD document holding several entries."""
    return {"@context": "https://schema.org", "@graph": list(entries)}


def to_script_text(document: JsonLd) -> str:
    """JSON text safe inside ``<script>``: every ``<`` escaped so ``</script>`` cannot occur."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def job_posting(job: JobPosting) -> JsonLd:
    """A position of /careers as a ``JobPosting`` (remote or in its city, salary in EUR/year)."""
    entry: JsonLd = {
        "@type": "JobPosting",
        "title": job.title,
        "description": job.description,
        "datePosted": job.date_posted.isoformat(),
        "employmentType": job.type,
        "hiringOrganization": {"@id": organization_id()},
        "baseSalary": {
            "@type": "MonetaryAmount",
            "currency": "EUR",
            "value": {
                "@type": "QuantitativeValue",
                "minValue": job.salary_min,
                "maxValue": job.salary_max,
                "unitText": "YEAR",
            },
        },
        "url": absolute_url(localized_path(paths.CAREERS)) + "#" + job.id,
    }
    if job.city:
        entry["jobLocation"] = {
            "@type": "Place",
            "address": {
                "@type": "PostalAddress",
                "addressLocality": job.city,
                "addressCountry": SITE.address.country_code,
            },
        }
    else:
        entry["jobLocationType"] = "TELECOMMUTE"
        entry["applicantLocationRequirements"] = {
            "@type": "Country",
            "name": SITE.address.country,
        }
    return entry


def job_postings() -> list[JsonLd]:
    """Every open position."""
    return [job_posting(job) for job in CAREERS.positions]


def faq_page() -> list[JsonLd]:
    """The questions and answers of /contact as a ``FAQPage``."""
    return [
        {
            "@type": "FAQPage",
            "mainEntity": [
                {
                    "@type": "Question",
                    "name": item.question,
                    "acceptedAnswer": {"@type": "Answer", "text": item.answer},
                }
                for item in CONTACT_PAGE.faq
            ],
        }
    ]


def service(service_id: str) -> list[JsonLd]:
    """A service page as a ``Service`` of the agency, with an ``Offer`` per priced pack."""
    summary = service_by_id(service_id)
    page = SERVICE_PAGES[service_id]
    offers = [
        {
            "@type": "Offer",
            "name": pack.title,
            "description": ", ".join(pack.features),
            "priceCurrency": "EUR",
            "price": pack.price_from,
            "priceSpecification": {
                "@type": "PriceSpecification",
                "minPrice": pack.price_from,
                "priceCurrency": "EUR",
            },
        }
        for section in page.sections
        if isinstance(section, PacksSection)
        for pack in section.packs
    ]
    entry: JsonLd = {
        "@type": "Service",
        "name": summary.title,
        "serviceType": summary.title,
        "description": page.hero.intro,
        "url": absolute_url(localized_path(paths.service(service_id))),
        "provider": {"@id": organization_id()},
        "areaServed": {"@type": "Country", "name": SITE.address.country},
    }
    if offers:
        entry["offers"] = offers
    return [entry]

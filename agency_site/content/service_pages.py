"""The nine service pages, keyed by service id (the ids of ``content/services.py``)."""

from agency_site.content import (
    advertising,
    automation,
    branding,
    consulting,
    photography,
    social_media,
    training,
    visual_content,
    web_development,
)
from agency_site.content.service_sections import ServicePage
from agency_site.content.services import SERVICES

SERVICE_PAGES: dict[str, ServicePage] = {
    page.id: page
    for page in (
        branding.PAGE,
        social_media.PAGE,
        automation.PAGE,
        web_development.PAGE,
        advertising.PAGE,
        visual_content.PAGE,
        consulting.PAGE,
        training.PAGE,
        photography.PAGE,
    )
}

if set(SERVICE_PAGES) != {service.id for service in SERVICES}:
    raise ValueError("Every service needs exactly one service page.")

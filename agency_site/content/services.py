"""The nine services the agency sells, as shown in the menu and the Home grid: each service
page's ``listing`` (``content/es/services/<id>.yaml``), in the services' order."""

from agency_site.content.service_actions import Id
from agency_site.content.service_pages import SERVICE_PAGES
from agency_site.content.service_sections import ServiceListing


class Service(ServiceListing):
    """A service line: its page id, name, icon, card gradient, summary and what it includes."""

    id: Id


SERVICES: tuple[Service, ...] = tuple(
    Service(id=page.id, **page.listing.model_dump()) for page in SERVICE_PAGES.values()
)


def service_by_id(service_id: str) -> Service:
    """The service with this id (``KeyError`` if there is none)."""
    for service in SERVICES:
        if service.id == service_id:
            return service
    raise KeyError(service_id)

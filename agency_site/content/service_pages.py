"""The nine service pages, keyed by service id: ``content/es/services/<id>.yaml``, in the
order of ``common/services.yaml``; and the services as the menus and the Home grid list
them (each page's ``listing``)."""

from agency_site.content.files import load_folder
from agency_site.content.service_sections import ServiceListing, ServicePage
from agency_site.content.services import COMMON, Id

SERVICE_PAGES: dict[str, ServicePage] = {
    page.id: page for page in load_folder("services", ServicePage, COMMON.order)
}


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

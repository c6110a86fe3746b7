"""The nine service pages, keyed by service id: ``content/es/services/<id>.yaml``, in the
order of ``common/services.yaml``."""

from agency_site.content.files import load_folder
from agency_site.content.service_actions import COMMON
from agency_site.content.service_sections import ServicePage

SERVICE_PAGES: dict[str, ServicePage] = {
    page.id: page for page in load_folder("services", ServicePage, COMMON.order)
}

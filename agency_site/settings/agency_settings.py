"""The agency's identity and contact details (``AGENCY_*``)."""

from pydantic import model_validator
from pydantic_settings import BaseSettings

from agency_site.settings.env_file import section


class AgencySettings(BaseSettings):
    """The agency's identity and contact details (``AGENCY_*``), shown on every page."""

    model_config = section("AGENCY_")

    name: str = "Impulso Digital"
    title: str = "Impulso Digital · Agencia de Marketing Digital y Desarrollo Web"
    # The same title on the Catalan pages (/ca/...).
    title_ca: str = "Impulso Digital · Agència de Màrqueting Digital i Desenvolupament Web"
    email: str = "hola@impulsodigital.es"
    phone: str = "+34 973 39 00 00"
    whatsapp: str = ""  # Defaults to the phone.
    street: str = "Plaça del Mercadal, 1"
    postal_code: str = "25310"
    # LSSI-CE art. 10 identification; empty until the owner fills them in, and the legal
    # pages then show the marked placeholders of content/es/site.yaml.
    legal_name: str = ""
    nif: str = ""
    registry: str = ""

    @model_validator(mode="after")
    def _whatsapp_defaults_to_phone(self) -> "AgencySettings":
        if not self.whatsapp:
            object.__setattr__(self, "whatsapp", self.phone)
        return self

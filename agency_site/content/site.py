"""The agency itself: name, fixed title, contact details, address and legal identity.

Every value a deployer may need to change comes from the ``AGENCY_*`` settings
(``agency_site/settings/agency_settings.py``, documented in ``.env.example``); the defaults let the
site run with no setup. They are read when the app is built, so a change needs a
rebuild/restart. Its words (tagline, blurb, opening hours) are in ``content/es/site.yaml``.
"""

import re

from pydantic import computed_field

from agency_site.content import loader
from agency_site.content.base import Content
from agency_site.locale import DEFAULT_LOCALE, Localized, current
from agency_site.settings import get_settings


class Address(Content):
    """Postal address of the office."""

    street: str
    postal_code: str
    city: str
    region: str
    country: str
    country_code: str

    @computed_field
    @property
    def one_line(self) -> str:
        """The address on one line, as shown in the footer and contact sections."""
        return f"{self.street}, {self.postal_code} {self.city} ({self.region}), {self.country}"


class LegalIdentity(Content):
    """LSSI-CE art. 10 identification data; placeholders until the owner fills them in."""

    company_name: str
    nif: str
    registry: str


class Site(Content):
    """Identity and contact data of the agency."""

    name: str
    fixed_title: str
    tagline: str
    blurb: str
    email: str
    phone: str
    whatsapp: str
    address: Address
    legal: LegalIdentity
    opening_hours: str

    @computed_field
    @property
    def mailto(self) -> str:
        """``mailto:`` link to the agency's inbox."""
        return f"mailto:{self.email}"

    @computed_field
    @property
    def tel(self) -> str:
        """``tel:`` link with the phone number in international form, no spaces."""
        return "tel:" + re.sub(r"[^\d+]", "", self.phone)

    @computed_field
    @property
    def whatsapp_url(self) -> str:
        """WhatsApp chat link (``https://wa.me/<digits>``)."""
        return "https://wa.me/" + re.sub(r"\D", "", self.whatsapp)

    def page_title(self, page_name: str | None = None) -> str:
        """Document title: the fixed title, prefixed by the page's own name when given."""
        return f"{page_name} | {self.fixed_title}" if page_name else self.fixed_title


class SiteWords(Content):
    """How the agency describes itself and when it answers: ``content/es/site.yaml``."""

    tagline: str
    blurb: str
    opening_hours: str
    # The office's town, province and country as written in the address.
    city: str
    region: str
    country: str
    # Shown in the legal pages' identification until AGENCY_LEGAL_NAME, AGENCY_NIF and
    # AGENCY_REGISTRY are set.
    pending_legal_name: str
    pending_nif: str
    pending_registry: str


def _site() -> Site:
    """The agency as the language in use describes it."""
    _agency = get_settings().agency
    # Read without the site-wide {names}: they are made of this file.
    _words = loader.read_yaml("site.yaml", SiteWords, values={}, locale=current())
    return Site(
        name=_agency.name,
        fixed_title=_agency.title if current() == DEFAULT_LOCALE else _agency.title_ca,
        tagline=_words.tagline,
        blurb=_words.blurb,
        email=_agency.email,
        phone=_agency.phone,
        whatsapp=_agency.whatsapp,
        address=Address(
            street=_agency.street,
            postal_code=_agency.postal_code,
            city=_words.city,
            region=_words.region,
            country=_words.country,
            country_code="ES",
        ),
        legal=LegalIdentity(
            company_name=_agency.legal_name or _words.pending_legal_name,
            nif=_agency.nif or _words.pending_nif,
            registry=_agency.registry or _words.pending_registry,
        ),
        opening_hours=_words.opening_hours,
    )


SITE = Localized(_site)

"""The shape of the legal pages and what they share: the owner's identification block.

The three documents live in ``legal_privacy.py``, ``legal_terms.py`` and
``legal_cookies.py``; the identity itself comes from ``content/site.py``.
"""

from pydantic import Field

from agency_site.content.base import Content, Hero, Link
from agency_site.content.site import SITE, Site


class Fact(Content):
    """A labelled datum, e.g. label 'NIF' and its value."""

    label: str
    value: str


class Facts(Content):
    """A block of labelled data, such as the owner's identification."""

    items: tuple[Fact, ...] = Field(min_length=1)


class Bullets(Content):
    """A bulleted list."""

    items: tuple[str, ...] = Field(min_length=1)


class StorageItem(Content):
    """Something the site stores in the visitor's browser, as the cookie policy lists it."""

    name: str
    storage: str
    purpose: str
    duration: str
    party: str


class StorageTable(Content):
    """The table of everything the site stores in the browser."""

    items: tuple[StorageItem, ...] = Field(min_length=1)


# A paragraph is a plain string; a Link is a paragraph that is a link.
Block = str | Bullets | Facts | StorageTable | Link


class LegalSection(Content):
    """A titled section of a legal document."""

    heading: str
    body: tuple[Block, ...] = Field(min_length=1)


class LegalDocument(Content):
    """A legal page: hero, date of the last update and its sections."""

    hero: Hero
    updated: str
    sections: tuple[LegalSection, ...] = Field(min_length=1)


UPDATED = "21 de noviembre de 2026"


def identity(site: Site) -> Facts:
    """The LSSI-CE art. 10 identification of the site's owner (placeholders until configured)."""
    return Facts(
        items=(
            Fact(label="Titular", value=site.legal.company_name),
            Fact(label="Nombre comercial", value=site.name),
            Fact(label="NIF", value=site.legal.nif),
            Fact(label="Domicilio", value=site.address.one_line),
            Fact(label="Datos registrales", value=site.legal.registry),
            Fact(label="Correo electrónico", value=site.email),
            Fact(label="Teléfono", value=site.phone),
        )
    )


IDENTITY = identity(SITE)

AEPD = Link(
    label="Agencia Española de Protección de Datos: www.aepd.es", href="https://www.aepd.es"
)

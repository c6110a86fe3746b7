"""The nine service pages, keyed by service id: ``content/es/services/<id>.yaml``, in the
order of ``common/services.yaml``, each a hero with claims, sections of the one section
vocabulary (``sections.py``) and a closing band; and the services as the menus and the Home
grid list them (each page's ``listing``)."""

from typing import Annotated, Any

from pydantic import Field, model_validator

from agency_site.content.base import Content, Hero, Link, PageMeta, Stat, figures, models_in
from agency_site.content.files import load_folder
from agency_site.content.loader import fill
from agency_site.content.sections import BandSection, PageSection
from agency_site.content.services import COMMON, Button, Id, with_quote_links
from agency_site.locale import Localized


class ServiceListing(Content):
    """How a service is listed (menus, the Home grid): name, icon, card gradient, summary and
    what it includes."""

    title: str
    icon: str
    gradient: str
    description: str
    features: tuple[str, ...] = Field(min_length=6, max_length=6)


class ServicePage(Content):
    """A complete service page: its id (the file's name), how it is listed, its description,
    hero with its buttons and claims, sections and closing band."""

    id: Id
    listing: ServiceListing
    meta: PageMeta
    hero: Hero
    actions: tuple[Button, ...] = Field(min_length=1)
    stats: tuple[Stat, ...] = ()
    # Figures the page's text quotes by name besides its stats and packs ({group_max}),
    # each written once.
    facts: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")], str] = Field(
        default_factory=dict
    )
    highlight: str = ""  # As written, with its {figures}: shown as ``highlighted_fact``.
    sections: tuple[PageSection, ...] = Field(min_length=2)
    cta: BandSection

    @model_validator(mode="before")
    @classmethod
    def _hero_eyebrow_is_the_name(cls, data: Any) -> Any:
        """The hero's eyebrow, unless written, is the service's name (``listing.title``)."""
        if isinstance(data, dict) and isinstance(data.get("hero"), dict):
            listing = data.get("listing")
            title = (
                listing.get("title") if isinstance(listing, dict) else getattr(listing, "title", "")
            )
            if title and "eyebrow" not in data["hero"]:
                data = data | {"hero": data["hero"] | {"eyebrow": title}}
        return data

    @model_validator(mode="before")
    @classmethod
    def _contact_buttons_choose_the_service(cls, data: Any) -> Any:
        """Its buttons to /contact open the quote form with this service (and pack) chosen."""
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            return with_quote_links(data, data["id"])
        return data

    @model_validator(mode="after")
    def _description_quotes_known_figures(self) -> "ServicePage":
        self.description()
        _ = self.highlighted_fact
        return self

    def figures(self) -> dict[str, str]:
        """Every figure the page's text may quote: its stats, packs and facts."""
        return figures(self) | self.facts

    @property
    def highlighted_fact(self) -> str:
        """The highlighted fact under the hero's buttons, its figures filled in."""
        return fill(self.highlight, self.figures(), "highlight")

    def description(self) -> str:
        """The page's description, its figures filled in from its own stats, packs and facts."""
        return self.meta.describe(self.figures())

    def links(self) -> tuple[Link, ...]:
        """Every button and link of the page, in reading order."""
        return tuple(model for model in models_in(self) if isinstance(model, Link))

    def targets(self) -> set[str]:
        """The set of paths the page's buttons lead to (without their query)."""
        return {link.href.split("?", 1)[0] for link in self.links()}


SERVICE_PAGES: Localized[dict[str, ServicePage]] = Localized(
    lambda: {page.id: page for page in load_folder("services", ServicePage, COMMON.order)}
)


class Service(ServiceListing):
    """A service line: its page id, name, icon, card gradient, summary and what it includes."""

    id: Id


SERVICES: Localized[tuple[Service, ...]] = Localized(
    lambda: tuple(
        Service(id=page.id, **page.listing.model_dump()) for page in SERVICE_PAGES.values()
    )
)


def service_by_id(service_id: str) -> Service:
    """The service with this id (``KeyError`` if there is none)."""
    for service in SERVICES:
        if service.id == service_id:
            return service
    raise KeyError(service_id)

"""The shape of a service page: hero, claims, the sections it is built from and its closing band.

The nine service pages differ only in data: each one is a ``ServicePage`` made of
these sections (a file of ``content/es/services/``), rendered by
``components/service_sections.py``. A section's kind is told by its list: ``blocks``,
``steps``, ``benefits``, ``features``, ``packs``, ``programmes`` or ``images``.
"""

from typing import Annotated, Any

from pydantic import Discriminator, Field, Tag, model_validator

from agency_site.content.base import (
    Benefit,
    Content,
    Hero,
    Image,
    Link,
    Pack,
    PageMeta,
    ServiceBlock,
    Stat,
    figures,
    models_in,
)
from agency_site.content.sections import CallToAction, SectionHeading
from agency_site.content.service_actions import Button, Id, with_quote_links


class ServiceListing(Content):
    """How a service is listed (menus, the Home grid): name, icon, card gradient, summary and
    what it includes."""

    title: str
    icon: str
    gradient: str
    description: str
    features: tuple[str, ...] = Field(min_length=6, max_length=6)


class ServicePack(Pack):
    """A priced pack whose button may be a shared one, by name."""

    cta: Button


class ServiceCallToAction(CallToAction):
    """The closing band, whose buttons may be shared ones, by name."""

    actions: tuple[Button, ...] = Field(min_length=1)


class Step(Content):
    """One step of how the agency works."""

    title: str
    description: str


class Programme(Content):
    """A training programme: icon, title, duration, description, topics and its button."""

    icon: str
    title: str
    duration: str = Field(min_length=1)
    description: str
    topics: tuple[str, ...] = Field(min_length=1)
    cta: Button


class BlocksSection(SectionHeading):
    """A grid of service blocks (what the service includes, courses, offerings...)."""

    blocks: tuple[ServiceBlock, ...] = Field(min_length=1)


class StepsSection(SectionHeading):
    """How the agency works: numbered steps next to a photo."""

    steps: tuple[Step, ...] = Field(min_length=2)
    image: Image


class BenefitsSection(SectionHeading):
    """Benefits with an icon, a title and a description."""

    benefits: tuple[Benefit, ...] = Field(min_length=1)


class FeaturesSection(SectionHeading):
    """A checklist of features, optionally next to a photo."""

    features: tuple[str, ...] = Field(min_length=1)
    image: Image | None = None


class PacksSection(SectionHeading):
    """Priced packs, with the label of the highlighted one and an optional help line."""

    packs: tuple[ServicePack, ...] = Field(min_length=1)
    highlight_label: str = ""
    help_text: str = ""
    help_link: Button | None = None


class ProgrammesSection(SectionHeading):
    """Training programme cards."""

    programmes: tuple[Programme, ...] = Field(min_length=1)


class GallerySection(SectionHeading):
    """A few photos of finished work and a link to see more."""

    images: tuple[Image, ...] = Field(min_length=1)
    cta: Button | None = None


# Each kind of section by the list that only it has.
_SECTION_LISTS: dict[str, type[SectionHeading]] = {
    "blocks": BlocksSection,
    "steps": StepsSection,
    "benefits": BenefitsSection,
    "features": FeaturesSection,
    "packs": PacksSection,
    "programmes": ProgrammesSection,
    "images": GallerySection,
}


def _section_kind(value: Any) -> str | None:
    """The section model's name for a section (data or model): told by its list."""
    if isinstance(value, dict):
        kinds = [model.__name__ for key, model in _SECTION_LISTS.items() if key in value]
        return kinds[0] if len(kinds) == 1 else None
    return type(value).__name__


PageSection = Annotated[
    Annotated[BlocksSection, Tag("BlocksSection")]
    | Annotated[StepsSection, Tag("StepsSection")]
    | Annotated[BenefitsSection, Tag("BenefitsSection")]
    | Annotated[FeaturesSection, Tag("FeaturesSection")]
    | Annotated[PacksSection, Tag("PacksSection")]
    | Annotated[ProgrammesSection, Tag("ProgrammesSection")]
    | Annotated[GallerySection, Tag("GallerySection")],
    Discriminator(
        _section_kind,
        custom_error_type="section_kind",
        custom_error_message=f"a section has exactly one of the lists {', '.join(_SECTION_LISTS)}",
    ),
]


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
    cta: ServiceCallToAction

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
        try:
            return self.highlight.format_map(self.figures())
        except KeyError as error:
            raise ValueError(f"highlight: unknown figure {error}") from error

    def description(self) -> str:
        """The page's description, its figures filled in from its own stats, packs and facts."""
        return self.meta.describe(self.figures())

    def links(self) -> tuple[Link, ...]:
        """Every button and link of the page, in reading order."""
        return tuple(model for model in models_in(self) if isinstance(model, Link))

    def targets(self) -> set[str]:
        """The set of paths the page's buttons lead to (without their query)."""
        return {link.href.split("?", 1)[0] for link in self.links()}

"""The shape of a service page: hero, claims, the sections it is built from and its closing band.

The nine service pages differ only in data: each one is a ``ServicePage`` made of
these sections, rendered by ``components/service_sections.py``.
"""

from pydantic import Field, model_validator

from agency_site.content.base import (
    Action,
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
    cta: Action


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

    packs: tuple[Pack, ...] = Field(min_length=1)
    highlight_label: str = ""
    help_text: str = ""
    help_link: Action | None = None


class ProgrammesSection(SectionHeading):
    """Training programme cards."""

    programmes: tuple[Programme, ...] = Field(min_length=1)


class GallerySection(SectionHeading):
    """A few photos of finished work and a link to see more."""

    images: tuple[Image, ...] = Field(min_length=1)
    cta: Action | None = None


PageSection = (
    BlocksSection
    | StepsSection
    | BenefitsSection
    | FeaturesSection
    | PacksSection
    | ProgrammesSection
    | GallerySection
)


class ServicePage(Content):
    """A complete service page: its name and description, hero with its buttons and claims,
    sections and closing band."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    meta: PageMeta
    hero: Hero
    actions: tuple[Action, ...] = Field(min_length=1)
    stats: tuple[Stat, ...] = ()
    highlight: str = ""
    sections: tuple[PageSection, ...] = Field(min_length=2)
    cta: CallToAction

    @model_validator(mode="after")
    def _description_quotes_known_figures(self) -> "ServicePage":
        self.description()
        return self

    def description(self) -> str:
        """The page's description, its figures filled in from its own stats and packs."""
        return self.meta.describe(figures(self))

    def links(self) -> tuple[Link, ...]:
        """Every button and link of the page, in reading order."""
        return tuple(model for model in models_in(self) if isinstance(model, Link))

    def targets(self) -> set[str]:
        """The set of paths the page's buttons lead to."""
        return {link.href for link in self.links()}

"""The shape of a service page: hero, claims, the sections it is built from and its closing band.

The nine service pages differ only in data: each one is a ``ServicePage`` made of
these sections, rendered by ``components/service_sections.py``.
"""

from collections.abc import Iterator

from pydantic import BaseModel, Field

from agency_site.content.base import Benefit, Content, Hero, Image, Link, Pack, ServiceBlock, Stat


class Section(Content):
    """Heading of a page section, with an optional eyebrow and introduction."""

    eyebrow: str = ""
    heading: str
    intro: str = ""


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
    cta: Link


class BlocksSection(Section):
    """A grid of service blocks (what the service includes, courses, offerings...)."""

    blocks: tuple[ServiceBlock, ...] = Field(min_length=1)


class StepsSection(Section):
    """How the agency works: numbered steps next to a photo."""

    steps: tuple[Step, ...] = Field(min_length=2)
    image: Image


class BenefitsSection(Section):
    """Benefits with an icon, a title and a description."""

    benefits: tuple[Benefit, ...] = Field(min_length=1)


class FeaturesSection(Section):
    """A checklist of features, optionally next to a photo."""

    features: tuple[str, ...] = Field(min_length=1)
    image: Image | None = None


class PacksSection(Section):
    """Priced packs, with the label of the highlighted one and an optional help line."""

    packs: tuple[Pack, ...] = Field(min_length=1)
    highlight_label: str = ""
    help_text: str = ""
    help_link: Link | None = None


class ProgrammesSection(Section):
    """Training programme cards."""

    programmes: tuple[Programme, ...] = Field(min_length=1)


class GallerySection(Section):
    """A few photos of finished work and a link to see more."""

    images: tuple[Image, ...] = Field(min_length=1)
    cta: Link | None = None


PageSection = (
    BlocksSection
    | StepsSection
    | BenefitsSection
    | FeaturesSection
    | PacksSection
    | ProgrammesSection
    | GallerySection
)


class CtaBand(Content):
    """The closing call to action of a page."""

    heading: str
    text: str
    actions: tuple[Link, ...] = Field(min_length=1)


class ServicePage(Content):
    """A complete service page: hero with its buttons and claims, sections, closing band."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    hero: Hero
    actions: tuple[Link, ...] = Field(min_length=1)
    stats: tuple[Stat, ...] = ()
    highlight: str = ""
    sections: tuple[PageSection, ...] = Field(min_length=2)
    cta: CtaBand

    def links(self) -> tuple[Link, ...]:
        """Every button and link of the page, in reading order."""
        return tuple(_links(self))

    def targets(self) -> set[str]:
        """The set of paths the page's buttons lead to."""
        return {link.href for link in self.links()}


def _links(value: object) -> Iterator[Link]:
    """Links found anywhere inside a content value."""
    if isinstance(value, Link):
        yield value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _links(getattr(value, name))
    elif isinstance(value, tuple):
        for item in value:
            yield from _links(item)

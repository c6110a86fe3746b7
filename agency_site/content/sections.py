"""The one section vocabulary every page is made of: headings, buttons, closing bands and
the kinds of section a page file lists under ``sections:``, in the order they show.

A section's kind is told by the list only it has (``blocks``, ``steps``, ``benefits``,
``features``, ``packs``, ``programmes``, ``images``, ``stats``, ``numbered``,
``checklists``, ``actions``) or, where that is not enough, by ``kind:`` (``stats_band``,
and the page-specific kinds such as the booking form's). Optional for every kind: ``id``
(its anchor; by default ``seccion-<n>``) and ``tone`` (its background; by default they
alternate). The components drawing each kind are ``components/page_sections.py``.
"""

from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import Discriminator, Field, Tag, model_validator

from agency_site.content.base import (
    Action,
    Benefit,
    Content,
    Hero,
    Image,
    PageMeta,
    ServiceBlock,
    Stat,
)
from agency_site.content.services import Button, Pack

Tone = Literal["white", "muted"]


class SectionHeading(Content):
    """Heading of a page section: a short label, its title and an optional introduction."""

    eyebrow: str = ""
    title: str
    intro: str = ""


class CallToAction(Content):
    """A closing band: title, a sentence and one or more buttons."""

    title: str
    text: str
    actions: tuple[Action, ...] = Field(min_length=1)


class Step(Content):
    """A numbered step: what happens and how."""

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


class Checklist(Content):
    """A titled card of points (who contributes what...)."""

    title: str
    points: tuple[str, ...] = Field(min_length=1)


class Section(Content):
    """What every kind of section has: its kind (told by its list, or written), its anchor
    and its background."""

    KIND: ClassVar[str]  # Its name in ``kind:``.
    LIST: ClassVar[str] = ""  # The field only this kind has, which tells it without ``kind:``.

    kind: str = ""
    id: str = Field(default="", pattern=r"^([a-z][a-z0-9-]*)?$")
    tone: Tone | None = None

    @model_validator(mode="after")
    def _kind_is_its_own(self) -> "Section":
        if self.kind not in ("", self.KIND):
            raise ValueError(f"kind {self.kind!r} is not {self.KIND!r}")
        return self


class BlocksSection(Section, SectionHeading):
    """A grid of service blocks (what the service includes, courses, offerings...)."""

    KIND, LIST = "blocks", "blocks"
    blocks: tuple[ServiceBlock, ...] = Field(min_length=1)


class StepsSection(Section, SectionHeading):
    """How the agency works: numbered steps next to a photo."""

    KIND, LIST = "steps", "steps"
    steps: tuple[Step, ...] = Field(min_length=2)
    image: Image


class BenefitsSection(Section, SectionHeading):
    """Benefits with an icon, a title and a description."""

    KIND, LIST = "benefits", "benefits"
    benefits: tuple[Benefit, ...] = Field(min_length=1)


class FeaturesSection(Section, SectionHeading):
    """A checklist of features, optionally next to a photo."""

    KIND, LIST = "features", "features"
    features: tuple[str, ...] = Field(min_length=1)
    image: Image | None = None


class PacksSection(Section, SectionHeading):
    """Priced packs, with the label of the highlighted one and an optional help line."""

    KIND, LIST = "packs", "packs"
    packs: tuple[Pack, ...] = Field(min_length=1)
    highlight_label: str = ""
    help_text: str = ""
    help_link: Button | None = None


class ProgrammesSection(Section, SectionHeading):
    """Training programme cards."""

    KIND, LIST = "programmes", "programmes"
    programmes: tuple[Programme, ...] = Field(min_length=1)


class GallerySection(Section, SectionHeading):
    """A few photos of finished work and a link to see more."""

    KIND, LIST = "gallery", "images"
    images: tuple[Image, ...] = Field(min_length=1)
    cta: Button | None = None


class StatsSection(Section, SectionHeading):
    """Headline figures under a centred heading."""

    KIND, LIST = "stats", "stats"
    stats: tuple[Stat, ...] = Field(min_length=3, max_length=4)


class StatsBandSection(Section):
    """Headline figures on a dark band under the hero, with a note saying what they are."""

    KIND = "stats_band"
    stats: tuple[Stat, ...] = Field(min_length=3, max_length=4)
    note: str


class NumberedSection(Section, SectionHeading):
    """Numbered cards in order (phases, steps), each with an optional icon and points."""

    KIND, LIST = "numbered", "numbered"
    numbered: tuple[ServiceBlock, ...] = Field(min_length=2)


class ChecklistsSection(Section, SectionHeading):
    """Titled cards of points side by side."""

    KIND, LIST = "checklists", "checklists"
    checklists: tuple[Checklist, ...] = Field(min_length=1)


class BandSection(Section, CallToAction):
    """A call to action on an indigo band (a page's closing one, usually). In a page of
    sections, a band that lists no ``actions`` shows the hero's buttons."""

    KIND, LIST = "band", "text"
    actions: tuple[Button, ...] = Field(min_length=1)


# The kinds every page may list.
SECTION_KINDS: tuple[type[Section], ...] = (
    BlocksSection,
    StepsSection,
    BenefitsSection,
    FeaturesSection,
    PacksSection,
    ProgrammesSection,
    GallerySection,
    StatsSection,
    StatsBandSection,
    NumberedSection,
    ChecklistsSection,
    BandSection,
)


def section_union(*kinds: type[Section]) -> Any:
    """The type of one section of a page that may list ``kinds``: told by ``kind:`` or by
    the list only its kind has."""
    by_kind = {kind.KIND: kind for kind in kinds}
    lists = {kind.LIST: kind.KIND for kind in kinds if kind.LIST}

    def kind_of(value: Any) -> str | None:
        if isinstance(value, Section):
            return value.KIND
        if not isinstance(value, dict):
            return None
        if value.get("kind"):
            return value["kind"] if value["kind"] in by_kind else None
        found = [name for key, name in lists.items() if key in value]
        return found[0] if len(found) == 1 else None

    tagged = tuple(Annotated[kind, Tag(kind.KIND)] for kind in kinds)
    names = ", ".join(sorted(lists))
    return Annotated[
        Union[tagged],  # noqa: UP007  # One kind per tag, chosen by kind_of.
        Discriminator(
            kind_of,
            custom_error_type="section_kind",
            custom_error_message=f"a section has exactly one of the lists {names}, or a "
            f"kind: among {', '.join(sorted(by_kind))}",
        ),
    ]


PageSection = section_union(*SECTION_KINDS)


class SectionsPage(Content):
    """A page made of sections: its meta, hero (with optional buttons and photo) and the
    sections in the order they show."""

    meta: PageMeta
    hero: Hero
    hero_actions: tuple[Button, ...] = ()
    hero_image: Image | None = None
    sections: tuple[PageSection, ...] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _bands_without_buttons_repeat_the_hero(cls, data: Any) -> Any:
        """A band that lists no ``actions`` gets the hero's buttons."""
        if not isinstance(data, dict) or not isinstance(data.get("sections"), list):
            return data
        hero_actions = data.get("hero_actions") or []
        sections = [
            section | {"actions": hero_actions}
            if isinstance(section, dict)
            and section.get("kind", BandSection.KIND) == BandSection.KIND
            and "text" in section
            and "actions" not in section
            else section
            for section in data["sections"]
        ]
        return data | {"sections": sections}

    def section(self, kind: type[Section]) -> Any:
        """The first section of ``kind`` (``LookupError`` if there is none)."""
        for section in self.sections:
            if isinstance(section, kind):
                return section
        raise LookupError(kind.KIND)

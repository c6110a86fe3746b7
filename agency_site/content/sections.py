"""Content models of the sections every page is built from: headings, buttons, CTA bands."""

from pydantic import Field

from agency_site.content.base import Action, Content

__all__ = ["Action", "CallToAction", "SectionHeading", "Step"]


class SectionHeading(Content):
    """Heading of a page section: a short label, its title and an optional introduction."""

    eyebrow: str = ""
    title: str
    intro: str = ""


class Step(Content):
    """A numbered step: what happens and how."""

    title: str
    description: str


class CallToAction(Content):
    """A closing band: title, a sentence and one or more buttons."""

    title: str
    text: str
    actions: tuple[Action, ...] = Field(min_length=1)

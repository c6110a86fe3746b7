"""Content models of the generic sections several pages share: headings, actions, CTA bands."""

from pydantic import Field

from agency_site.content.base import Content, Link


class SectionHeading(Content):
    """Heading of a page section: a short label, its title and an optional introduction."""

    eyebrow: str = ""
    title: str
    intro: str = ""


class Action(Link):
    """A button: a link with an optional lucide icon shown before its label."""

    icon: str = ""


class CallToAction(Content):
    """A closing band: title, a sentence and one or more buttons."""

    title: str
    text: str
    actions: tuple[Action, ...] = Field(min_length=1)

"""Building blocks shared by every content module."""

from pydantic import BaseModel, ConfigDict


class Content(BaseModel):
    """Base of every content model: immutable and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Hero(Content):
    """Top section of a page: a short label, the main heading and its introduction."""

    eyebrow: str = ""
    heading: str
    intro: str


class Link(Content):
    """A labelled link or button target (a site path, mailto:, tel: or https://wa.me/)."""

    label: str
    href: str

"""Building blocks shared by every content module."""

from abc import abstractmethod
from collections.abc import Iterator, Mapping

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agency_site.content import images
from agency_site.content.loader import fill


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


class Action(Link):
    """A button: a link with an optional lucide icon shown before its label."""

    icon: str = ""


class Figure(Content):
    """Content a text may quote by name: ``key`` names it (a description's ``{clients}``)."""

    key: str = ""

    @property
    @abstractmethod
    def figure(self) -> str:
        """The figure as quoted in a sentence (each kind of figure says how)."""


class Stat(Figure):
    """A headline figure, e.g. value '500+' with label 'clientes satisfechos'."""

    value: str
    label: str

    @property
    def figure(self) -> str:
        """The value as quoted in a sentence, without its '+': '500+' -> '500'."""
        return self.value.strip("+")


class Fact(Content):
    """A labelled datum, e.g. label 'NIF' and its value, with an optional lucide icon."""

    label: str
    value: str
    icon: str = ""


class Benefit(Content):
    """An icon (lucide name), a title and a short description."""

    icon: str
    title: str
    description: str


class ServiceBlock(Content):
    """A titled block of a service page with its description and feature list."""

    title: str
    description: str
    features: tuple[str, ...] = ()
    icon: str = ""


def euros(amount: int) -> str:
    """Euros as Spanish text (RAE: no separator up to four digits): 99€, 4500€, 45.000€."""
    digits = f"{amount:,}".replace(",", ".") if amount >= 10_000 else str(amount)
    return digits + "€"


class Image(Content):
    """One of the site's own pictures: its name (``assets/images/source/<src>.png``), alt
    text (in the file's language) and the size it is laid out at, in the source's
    proportions (the ``width``/``height`` attributes that keep the layout from shifting)."""

    src: str = Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
    alt: str
    width: int = Field(gt=0)
    height: int = Field(gt=0)

    @model_validator(mode="after")
    def _is_a_picture_of_the_site(self) -> "Image":
        """The name has a source, and the size its proportions (to the nearest pixel)."""
        try:
            picture = images.source(self.src)
        except LookupError as error:
            raise ValueError(str(error)) from None
        if abs(self.width * picture.height - self.height * picture.width) >= picture.width:
            exact = self.width * picture.height / picture.width
            msg = (
                f"{self.src} is {picture.width}x{picture.height}: {self.width} wide, it is "
                f"{exact:g} high, not {self.height}"
            )
            raise ValueError(msg)
        return self


class PageMeta(Content):
    """How a page is named and described to browsers, search engines and the menus.

    ``description`` may quote the page's own figures by name (``{clients}``,
    ``{price_from}``: see ``figures``), so a price is never typed twice.
    """

    # Its URL path (a {paths.*} name); a service's or a case study's comes from its id.
    path: str = Field(default="", pattern=r"^(/[a-z0-9/-]*)?$")
    name: str | None = None  # Prefix of the document title; None for the fixed title alone.
    description: str
    priority: float = Field(default=0.7, ge=0, le=1)  # In the sitemap.
    nav_label: str = ""  # Its label in the navigation bar (English, SPEC §2), if listed there.

    def describe(self, figures: Mapping[str, str]) -> str:
        """The description with the named figures filled in (``ValueError`` for an unknown one)."""
        return fill(self.description, figures, "description")


def models_in(value: object) -> Iterator[BaseModel]:
    """Every model inside a content value (itself included), in order."""
    if isinstance(value, BaseModel):
        yield value
        for name in type(value).model_fields:
            yield from models_in(getattr(value, name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from models_in(item)


def figures(*values: object) -> dict[str, str]:
    """Named figures of content values: each keyed figure (a stat's value, a pack's price),
    and ``price_from``, the cheapest price among them."""
    found: dict[str, str] = {}
    prices = []
    for model in (m for value in values for m in models_in(value)):
        if isinstance(price := getattr(model, "price_from", None), int):
            prices.append(price)
        if isinstance(model, Figure) and model.key:
            if model.key in found:
                raise ValueError(f"Two figures are named {model.key!r}.")
            found[model.key] = model.figure
    if prices:
        found["price_from"] = euros(min(prices))
    return found

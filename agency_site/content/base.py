"""Building blocks shared by every content module."""

from pydantic import BaseModel, ConfigDict, Field, computed_field


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


class Stat(Content):
    """A headline figure, e.g. value '500+' with label 'clientes satisfechos'."""

    value: str
    label: str


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


class Pack(Content):
    """A priced pack: title, starting price in euros, features and its button."""

    title: str
    price_from: int = Field(gt=0)
    features: tuple[str, ...] = Field(min_length=1)
    cta: Link
    highlighted: bool = False

    @computed_field
    @property
    def price(self) -> str:
        """The price as shown: 'Desde 99€'."""
        return f"Desde {euros(self.price_from)}"


class Image(Content):
    """A stock photo: its URL (without size parameters), Spanish alt text and intrinsic size."""

    src: str
    alt: str
    width: int
    height: int

"""What clients say about the agency (Home): ``content/es/testimonials.yaml``."""

from pydantic import Field

from agency_site.content.base import Content, Image
from agency_site.content.files import load
from agency_site.content.loader import fill
from agency_site.locale import Localized

MAX_RATING = 5


class Testimonial(Content):
    """A client's opinion: who they are, what they said and their rating out of five."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    name: str
    company: str
    role: str
    quote: str
    rating: int = Field(ge=1, le=MAX_RATING)
    image: Image


class TestimonialsCopy(Content):
    """The testimonials and how a rating is read out (``{rating}``, ``{max}``)."""

    rating_label: str
    testimonials: tuple[Testimonial, ...] = Field(min_length=1)

    def rating_text(self, testimonial: Testimonial) -> str:
        """A testimonial's rating as text, for every reader (the stars are decorative)."""
        values = {"rating": testimonial.rating, "max": MAX_RATING}
        return fill(self.rating_label, values, "rating_label")


COPY = Localized(lambda: load("testimonials.yaml", TestimonialsCopy))

"""What clients say about the agency (Home): ``content/es/testimonials.yaml``."""

from pydantic import Field, computed_field

from agency_site.content.base import Content, Image
from agency_site.content.files import load

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

    # The words come from the file's `rating_label` (read once COPY is loaded, below).
    @computed_field
    @property
    def rating_label(self) -> str:
        """The rating as text, for every reader (the stars are decorative)."""
        return COPY.rating_label.format(rating=self.rating, max=MAX_RATING)


class TestimonialsCopy(Content):
    """The testimonials and how a rating is read out (``{rating}``, ``{max}``)."""

    rating_label: str
    testimonials: tuple[Testimonial, ...] = Field(min_length=1)


COPY = load("testimonials.yaml", TestimonialsCopy)
TESTIMONIALS = COPY.testimonials

"""What clients say about the agency (Home)."""

from pydantic import Field, computed_field

from agency_site.content.base import Content, Image

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

    @computed_field
    @property
    def rating_label(self) -> str:
        """The rating as text, for every reader (the stars are decorative)."""
        return f"Valoración: {self.rating} de {MAX_RATING}"


TESTIMONIALS: tuple[Testimonial, ...] = (
    Testimonial(
        id="laura-martinez",
        name="Laura Martínez",
        company="Moda Viva",
        role="Fundadora y CEO",
        quote=(
            "Rediseñaron nuestra tienda online y se encargan de la publicidad desde hace dos "
            "años. Las ventas no han dejado de crecer y siempre sabemos qué se está haciendo "
            "y por qué."
        ),
        rating=5,
        image=Image(
            src="https://images.unsplash.com/photo-1494790108377-be9c29b29330",
            alt="Retrato de Laura Martínez, fundadora de Moda Viva",
            width=400,
            height=400,
        ),
    ),
    Testimonial(
        id="jordi-puig",
        name="Jordi Puig",
        company="Puig Industrial",
        role="Director comercial",
        quote=(
            "Necesitábamos contactos de calidad, no más visitas. Con la automatización y las "
            "campañas en LinkedIn, el equipo comercial trabaja cada semana con oportunidades "
            "reales."
        ),
        rating=5,
        image=Image(
            src="https://images.unsplash.com/photo-1507003211169-0a1dd7228f2d",
            alt="Retrato de Jordi Puig, director comercial de Puig Industrial",
            width=400,
            height=400,
        ),
    ),
    Testimonial(
        id="marta-soler",
        name="Marta Soler",
        company="Marta Soler Coaching",
        role="Coach y creadora de contenido",
        quote=(
            "Yo tenía la comunidad y ellos la experiencia para convertirla en un curso online. "
            "Se ocuparon de todo, desde la grabación hasta las ventas, y el lanzamiento superó "
            "lo que esperábamos."
        ),
        rating=4,
        image=Image(
            src="https://images.unsplash.com/photo-1438761681033-6461ffad8d80",
            alt="Retrato de Marta Soler, coach y creadora de contenido",
            width=400,
            height=400,
        ),
    ),
)

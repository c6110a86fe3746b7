"""Copy of the Home page."""

from agency_site import paths
from agency_site.content.base import Content, Hero, Image, PageMeta
from agency_site.content.contact import RESPONSE_PROMISE
from agency_site.content.sections import Action, CallToAction, SectionHeading
from agency_site.content.site import SITE

META = PageMeta(
    nav_label="Home",
    description=(
        "Agencia de marketing digital y desarrollo web en Agramunt: branding, redes sociales, "
        "webs, publicidad y automatización para hacer crecer tu negocio."
    ),
    priority=1.0,
)

HERO = Hero(
    eyebrow="Agencia de marketing digital y desarrollo web",
    heading="Hacemos crecer tu negocio en el mundo digital",
    intro=(
        "Estrategia, diseño, tecnología y publicidad bajo un mismo techo. Desde Agramunt "
        "ayudamos a empresas, profesionales e influencers de toda España a conseguir más "
        "clientes y vender más en internet."
    ),
)
HERO_FORM_INTRO = "Déjanos tu e-mail y te contamos cómo podemos ayudarte, sin compromiso."


class Teaser(Content):
    """A highlighted card that points to another page."""

    icon: str
    eyebrow: str
    title: str
    text: str
    action: Action


INFLUENCER_TEASER = Teaser(
    icon="sparkles",
    eyebrow="Nuevo · Programa para influencers",
    title="¿Tienes comunidad? Creamos tu infoproducto sin coste",
    text=(
        "Diseñamos, producimos y vendemos tu curso o ebook con nuestra inversión, y "
        "compartimos contigo los beneficios."
    ),
    action=Action(label="Descubre el programa", href=paths.INFLUENCER_PROGRAM, icon="arrow-right"),
)


class ServiceCardCopy(Content):
    """Fixed labels of the expandable service cards."""

    toggle_label: str
    features_title: str
    cta_label: str


SERVICES_HEADING = SectionHeading(
    eyebrow="Servicios",
    title="Todo lo que tu negocio necesita para crecer online",
    intro=(
        "Nueve áreas de especialidad que combinamos según tus objetivos. Abre cada servicio "
        "para ver qué incluye."
    ),
)
SERVICE_CARD = ServiceCardCopy(
    toggle_label="Ver servicios incluidos",
    features_title="Servicios incluidos",
    cta_label="Solicitar información",
)


class Spotlight(Content):
    """A feature section: heading, selling points, buttons and a photo."""

    heading: SectionHeading
    points: tuple[str, ...]
    actions: tuple[Action, ...]
    image: Image


INFLUENCER_SPOTLIGHT = Spotlight(
    heading=SectionHeading(
        eyebrow="Programa para influencers",
        title="Tu conocimiento, convertido en ingresos recurrentes",
        intro=(
            "Si tienes una comunidad que confía en ti, creamos contigo un curso, un ebook o "
            "una membresía sin que tengas que invertir: nosotros asumimos la producción, la "
            "tecnología y el marketing, y repartimos los beneficios."
        ),
    ),
    points=(
        "Sin inversión inicial por tu parte",
        "Producción profesional con tu estilo y tu voz",
        "Plataforma, pagos y atención al alumno incluidos",
        "Informes de ventas claros cada mes",
    ),
    actions=(
        Action(label="Quiero participar", href=paths.CONTACT, icon="send"),
        Action(label="Agendar una llamada", href=paths.SCHEDULE, icon="calendar"),
    ),
    image=Image(
        src="https://images.unsplash.com/photo-1611162617213-7d7a39e9b1d7",
        alt="Influencer grabando contenido para redes sociales con un aro de luz",
        width=1200,
        height=900,
    ),
)

TESTIMONIALS_HEADING = SectionHeading(
    eyebrow="Testimonios",
    title="Lo que dicen nuestros clientes",
    intro="Empresas y creadores que ya han hecho crecer su negocio con nosotros.",
)

BRANDS_TITLE = "Marcas que confían en nosotros"
BRANDS: tuple[str, ...] = (
    "Nexa Software",
    "Olis del Segrià",
    "Celler Montclar",
    "Vitta Clinic",
    "Fusta Nova",
    "Urgell Logística",
)

CONTACT_CTA = CallToAction(
    title="¿Hablamos de tu proyecto?",
    text=(
        "Cuéntanos qué necesitas y te proponemos un plan a medida por el canal que "
        f"prefieras. {RESPONSE_PROMISE}."
    ),
    actions=(
        Action(label="Email", href=SITE.mailto, icon="mail"),
        Action(label="Llamar", href=SITE.tel, icon="phone"),
        Action(label="WhatsApp", href=SITE.whatsapp_url, icon="message-circle"),
    ),
)

CONTACT_INFO_HEADING = SectionHeading(
    eyebrow="Contacto",
    title="Encuéntranos en Agramunt",
    intro=(
        "Ven a vernos a la oficina o contacta con nosotros por el canal que te resulte más cómodo."
    ),
)

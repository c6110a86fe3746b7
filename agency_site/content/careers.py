"""Copy of the Careers page: benefits, open positions and the spontaneous application."""

import datetime as dt
from urllib.parse import quote

from pydantic import Field, computed_field

from agency_site.content.base import Benefit, Content, Hero, Image, euros
from agency_site.content.sections import Action, CallToAction, SectionHeading
from agency_site.content.site import SITE

HERO = Hero(
    eyebrow="Trabaja con nosotros",
    heading="Únete a un equipo que crece contigo",
    intro=(
        "Buscamos personas con talento y ganas de aprender para crear juntos las campañas, "
        "webs y marcas de nuestros clientes. Formación continua, buen ambiente y flexibilidad."
    ),
)
HERO_IMAGE = Image(
    src="https://images.unsplash.com/photo-1600880292203-757bb62b4baf",
    alt="Compañeros de trabajo conversando en una oficina luminosa",
    width=1200,
    height=800,
)

POSITIONS_ANCHOR = "posiciones"
HERO_ACTION = Action(
    label="Ver posiciones abiertas", href=f"#{POSITIONS_ANCHOR}", icon="arrow-down"
)

APPLY_LABEL = "Aplicar ahora"
REMOTE = "Remoto"
SPONTANEOUS_SUBJECT = "Candidatura espontánea"


def application_mailto(subject: str) -> str:
    """``mailto:`` link to the agency's inbox with the (URL-encoded) subject."""
    return f"{SITE.mailto}?subject={quote(subject)}"


class JobPosting(Content):
    """An open position with its conditions, requirements and benefits."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    department: str
    city: str = ""  # Empty for a fully remote position.
    hybrid: bool = False
    type: str
    date_posted: dt.date
    salary_min: int = Field(gt=0)
    salary_max: int = Field(gt=0)
    description: str
    requirements: tuple[str, ...] = Field(min_length=1)
    benefits: tuple[str, ...] = Field(min_length=1)

    @computed_field
    @property
    def location(self) -> str:
        """Where the job is done, as shown: 'Remoto', 'Madrid', 'Madrid (híbrido)'."""
        if not self.city:
            return REMOTE
        return f"{self.city} (híbrido)" if self.hybrid else self.city

    @computed_field
    @property
    def salary(self) -> str:
        """The gross annual salary range as shown, e.g. '45.000€ - 60.000€'."""
        return f"{euros(self.salary_min)} - {euros(self.salary_max)}"

    @computed_field
    @property
    def apply(self) -> Action:
        """The 'Aplicar ahora' button: an e-mail to the agency about this position."""
        return Action(label=APPLY_LABEL, href=application_mailto(self.title), icon="send")


class JobLabels(Content):
    """Fixed labels of a position card."""

    department: str
    location: str
    type: str
    salary: str
    requirements: str
    benefits: str


BENEFITS_HEADING = SectionHeading(
    eyebrow="Por qué trabajar aquí",
    title="Un lugar para crecer profesional y personalmente",
)
BENEFITS: tuple[Benefit, ...] = (
    Benefit(
        icon="graduation-cap",
        title="Desarrollo profesional",
        description=(
            "Presupuesto anual de formación, certificaciones y un plan de carrera que "
            "revisamos contigo cada seis meses."
        ),
    ),
    Benefit(
        icon="heart-pulse",
        title="Bienestar",
        description=(
            "Seguro médico privado, ayuda para el gimnasio y jornada intensiva los viernes y "
            "en verano."
        ),
    ),
    Benefit(
        icon="users",
        title="Cultura de equipo",
        description=(
            "Equipos pequeños, decisiones compartidas y celebraciones cuando las cosas salen "
            "bien, que es a menudo."
        ),
    ),
    Benefit(
        icon="laptop",
        title="Entorno flexible",
        description=(
            "Horario flexible, teletrabajo según el puesto y el equipo que necesitas para "
            "trabajar desde donde estés."
        ),
    ),
)

POSITIONS_HEADING = SectionHeading(
    eyebrow="Posiciones abiertas",
    title="Encuentra tu próximo reto",
    intro="Salarios brutos anuales. Respondemos a todas las candidaturas.",
)
JOB_LABELS = JobLabels(
    department="Departamento",
    location="Ubicación",
    type="Jornada",
    salary="Salario",
    requirements="Requisitos",
    benefits="Qué ofrecemos",
)

POSITIONS: tuple[JobPosting, ...] = (
    JobPosting(
        id="senior-marketing-manager",
        title="Senior Marketing Manager",
        department="Marketing",
        city="Madrid",
        hybrid=True,
        type="Jornada completa",
        date_posted=dt.date(2026, 11, 2),
        salary_min=45_000,
        salary_max=60_000,
        description=(
            "Liderarás la estrategia de marketing de una cartera de clientes, coordinarás a "
            "un equipo de especialistas y serás responsable de los resultados de cada cuenta."
        ),
        requirements=(
            "Al menos 5 años de experiencia en marketing digital, en agencia o en empresa",
            "Experiencia liderando equipos y presentando resultados a clientes",
            "Dominio de la analítica digital y de las principales plataformas publicitarias",
            "Nivel alto de inglés",
        ),
        benefits=(
            "Dos días de teletrabajo a la semana",
            "Retribución variable según objetivos",
            "Presupuesto de formación y congresos",
        ),
    ),
    JobPosting(
        id="full-stack-developer",
        title="Full Stack Developer",
        department="Tecnología",
        type="Jornada completa",
        date_posted=dt.date(2026, 11, 2),
        salary_min=40_000,
        salary_max=55_000,
        description=(
            "Desarrollarás webs, tiendas online e integraciones para nuestros clientes, desde "
            "la arquitectura hasta la puesta en producción, en un equipo que cuida la calidad."
        ),
        requirements=(
            "Al menos 3 años de experiencia como desarrollador full stack",
            "Buen nivel de JavaScript o TypeScript, React y Python o Node.js",
            "Experiencia con bases de datos, APIs REST y despliegue en la nube",
            "Interés por el rendimiento, la accesibilidad y el SEO técnico",
        ),
        benefits=(
            "Trabajo 100% en remoto con horario flexible",
            "Equipo y material de trabajo a tu elección",
            "Tiempo dedicado a formación y proyectos internos",
        ),
    ),
    JobPosting(
        id="content-manager",
        title="Content Manager",
        department="Contenido",
        city="Madrid",
        type="Jornada completa",
        date_posted=dt.date(2026, 11, 16),
        salary_min=28_000,
        salary_max=35_000,
        description=(
            "Crearás y coordinarás los contenidos de blogs, redes sociales y campañas de "
            "nuestros clientes, cuidando el tono de cada marca y midiendo lo que funciona."
        ),
        requirements=(
            "Al menos 2 años de experiencia en redacción o gestión de contenidos",
            "Excelente redacción en español y buena ortografía",
            "Conocimientos de SEO y de las principales redes sociales",
            "Capacidad para organizar calendarios editoriales con varios clientes",
        ),
        benefits=(
            "Horario flexible de entrada y salida",
            "Formación en SEO, copywriting y herramientas de IA",
            "Buen ambiente en un equipo creativo y joven",
        ),
    ),
)

SPONTANEOUS = CallToAction(
    title="¿No encuentras tu puesto?",
    text=(
        "Si crees que puedes aportar algo a nuestro equipo, envíanos tu CV y cuéntanos qué te "
        "gustaría hacer. Leemos todas las candidaturas y te escribiremos si surge una vacante "
        "que encaje contigo."
    ),
    actions=(
        Action(
            label="Enviar CV espontáneo",
            href=application_mailto(SPONTANEOUS_SUBJECT),
            icon="file-text",
        ),
    ),
)

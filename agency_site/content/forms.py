"""Copy and constants of the two lead forms: the Home e-mail capture and the booking form."""

from agency_site import paths
from agency_site.content.base import Content, Link
from agency_site.content.site import SITE

# SPEC §9: how long a success message stays on screen.
SUCCESS_MESSAGE_MS = 5000

# SPEC §9: the consultation slots offered, in the order shown.
TIME_SLOTS: tuple[str, ...] = (
    "09:00",
    "10:00",
    "11:00",
    "12:00",
    "15:00",
    "16:00",
    "17:00",
    "18:00",
)

# Dates are "today" in the agency's time zone, in the browser and on the server.
AGENCY_TIME_ZONE = "Europe/Madrid"

NAME_MIN, NAME_MAX = 2, 100
PHONE_MIN, PHONE_MAX = 6, 20
EMAIL_MAX = 254
MESSAGE_MAX = 2000


class Field(Content):
    """A form field: its label, an example and the message shown when it is wrong."""

    label: str
    placeholder: str = ""
    error: str


class PrivacyNotice(Content):
    """First layer of the data-protection notice (RGPD art. 13) shown under a form."""

    heading: str
    items: tuple[tuple[str, str], ...]  # (Responsable, ...), (Finalidad, ...), ...
    more: Link


class Notices(Content):
    """Messages a form shows after a submission, other than its success text."""

    # Each of these is followed by the agency's direct channels (ALTERNATIVES).
    queued: str  # Stored, but the e-mail could not be sent yet.
    store_failed: str  # Not even stored: the visitor must write to us.
    rate_limited: str
    offline: str  # The backend cannot be reached; the form waits.
    sending: str  # Label of the submit button while sending.
    control_chars: str  # A field carries invisible control characters.


class ContactAlternatives(Content):
    """The agency's direct channels, offered whenever a form cannot deliver."""

    email: Link
    phone: Link
    whatsapp: Link


class HeroCaptureCopy(Content):
    """The Home hero's e-mail capture."""

    email: Field
    submit: str
    success: str
    email_message: str  # Body of the e-mail the agency receives; {email} is the visitor's.


# Put before the message of an e-mail sent again after a send whose outcome is unknown
# (EmailJS never answered, or the worker sending it stopped): the agency may get it twice.
RESEND_NOTE = (
    "[Reenvío del aviso n.º {lead_id}: no se pudo confirmar el envío anterior. "
    "Si ya lo recibiste, este es un duplicado.]"
)


class BookingCopy(Content):
    """The consultation booking form of /schedule."""

    name: Field
    email: Field
    phone: Field
    date: Field
    date_hint: str  # Under the date field: which days the agency works.
    date_past: str
    date_too_far: str
    date_weekend: str
    date_holiday: str  # A public holiday of Spain or Catalonia.
    date_closed: str  # A closed day of the settings (BOOKING_CLOSED_DAYS).
    time: Field
    time_passed: str  # Today's slot starts too soon (BOOKING_MIN_NOTICE_HOURS).
    time_placeholder: str
    message: Field
    optional: str
    required_hint: str
    submit: str
    success: str


ALTERNATIVES = ContactAlternatives(
    email=Link(label=SITE.email, href=SITE.mailto),
    phone=Link(label=SITE.phone, href=SITE.tel),
    whatsapp=Link(label="WhatsApp", href=SITE.whatsapp_url),
)

NOTICES = Notices(
    queued=(
        "Hemos recibido tu solicitud y te responderemos lo antes posible. Si te corre prisa, "
        "también puedes contactarnos directamente:"
    ),
    store_failed=(
        "Lo sentimos: por un problema técnico no hemos podido registrar tu solicitud. "
        "Escríbenos por correo electrónico o WhatsApp y te atenderemos enseguida:"
    ),
    rate_limited=(
        "Has enviado varias solicitudes en poco tiempo. Espera unos minutos antes de volver a "
        "intentarlo o contacta directamente con nosotros:"
    ),
    offline=(
        "Ahora mismo no podemos conectar con nuestro servidor, así que el formulario está en "
        "pausa; se reactivará solo en cuanto vuelva la conexión. Mientras tanto, puedes "
        "contactarnos directamente:"
    ),
    sending="Enviando…",
    control_chars="El texto contiene caracteres no permitidos. Revísalo y vuelve a intentarlo.",
)

_EMAIL = Field(
    label="Correo electrónico",
    placeholder="tu@email.com",
    error="Introduce un correo electrónico válido, por ejemplo nombre@empresa.com.",
)

HERO_CAPTURE = HeroCaptureCopy(
    email=_EMAIL.model_copy(update={"label": "Tu correo electrónico"}),
    submit="Quiero más información",
    success=("Gracias por contactar con nosotros. En breve nos pondremos en contacto contigo."),
    email_message=(
        "Un visitante de la web ha pedido más información desde el formulario de la página "
        "de inicio. Su correo electrónico es {email}: escríbele para conocer su proyecto."
    ),
)

BOOKING = BookingCopy(
    name=Field(
        label="Nombre",
        placeholder="Tu nombre y apellidos",
        error=f"Escribe tu nombre (entre {NAME_MIN} y {NAME_MAX} caracteres).",
    ),
    email=_EMAIL,
    phone=Field(
        label="Teléfono",
        placeholder="+34 600 00 00 00",
        error=(
            f"Introduce un teléfono válido: al menos {PHONE_MIN} cifras y como máximo "
            f"{PHONE_MAX} caracteres, solo con números, espacios y los signos + - ( )."
        ),
    ),
    date=Field(label="Fecha preferida", error="Elige la fecha que prefieres para la consulta."),
    date_hint="Atendemos de lunes a viernes, excepto festivos.",
    date_past="Elige una fecha a partir de hoy.",
    date_too_far="Elige una fecha dentro de los próximos doce meses.",
    date_weekend="Los fines de semana no atendemos consultas: elige un día de lunes a viernes.",
    date_holiday="Ese día es festivo y no atendemos consultas: elige otro día laborable.",
    date_closed="Ese día la agencia está cerrada: elige otro día laborable.",
    time=Field(label="Hora preferida", error="Elige una de las horas disponibles."),
    time_passed=("Esa hora ya no se puede reservar para hoy: elige una hora más tarde u otro día."),
    time_placeholder="Selecciona una hora",
    message=Field(
        label="Cuéntanos tu proyecto",
        placeholder="¿Qué quieres conseguir? Objetivos, plazos, presupuesto aproximado…",
        error=f"El mensaje no puede superar los {MESSAGE_MAX} caracteres.",
    ),
    optional="(opcional)",
    required_hint="Los campos sin la indicación «opcional» son obligatorios.",
    submit="Agendar consulta",
    success=(
        "Gracias por agendar tu consulta. En breve nos pondremos en contacto contigo para "
        "confirmar la cita."
    ),
)


def _privacy_notice(purpose: str) -> PrivacyNotice:
    """The first-layer notice of a form whose data serve ``purpose``."""
    return PrivacyNotice(
        heading="Información básica sobre protección de datos",
        items=(
            ("Responsable", SITE.name + "."),
            ("Finalidad", purpose),
            (
                "Legitimación",
                "tu solicitud, al enviarnos el formulario (aplicación de medidas "
                "precontractuales, art. 6.1.b RGPD).",
            ),
            (
                "Destinatarios",
                "no cedemos tus datos a terceros salvo obligación legal. Los recibimos a "
                "través de EmailJS, nuestro proveedor de envío de correo electrónico.",
            ),
            (
                "Derechos",
                f"puedes acceder, rectificar y suprimir tus datos, y ejercer el resto de tus "
                f"derechos, escribiendo a {SITE.email}.",
            ),
        ),
        more=Link(label="Política de privacidad", href=paths.PRIVACY_POLICY),
    )


HERO_PRIVACY = _privacy_notice("responder a tu petición de información.")
BOOKING_PRIVACY = _privacy_notice(
    "gestionar la consulta que reservas y contactarte para confirmarla."
)

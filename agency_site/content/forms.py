"""Constants of the two lead forms (the Home e-mail capture and the booking form) and the
models of their copy, ``content/es/forms.yaml``."""

from pydantic import Field as PydanticField

from agency_site.content.base import Content, Link
from agency_site.content.files import load

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
    sending: str  # Label of the submit button while sending.
    control_chars: str  # A field carries invisible control characters.


class PrivacyPurposes(Content):
    """What each form's data serve, for its privacy notice."""

    hero: str
    booking: str


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


class AnswerPageCopy(Content):
    """The plain page after a form sent without JavaScript, and the refusals of the endpoint."""

    sent: str  # Title when the lead was taken (sent or queued).
    review: str  # Title when something must be corrected.
    back: str  # The link back to the site.
    refused: str  # Title of a refused request (origin, content type).
    too_large: str
    refused_text: str


class DateWords(Content):
    """A date in words: ``format`` with ``{weekday}``, ``{day}``, ``{month}``, ``{year}``."""

    format: str
    weekdays: tuple[str, ...] = PydanticField(min_length=7, max_length=7)  # Monday first.
    months: tuple[str, ...] = PydanticField(min_length=12, max_length=12)


class FormsCopy(Content):
    """Everything the two forms say: ``content/es/forms.yaml``."""

    alternatives: ContactAlternatives
    notices: Notices
    hero_capture: HeroCaptureCopy
    booking: BookingCopy
    privacy_notice: PrivacyNotice  # The "Finalidad" item says {purpose}: each form's own.
    privacy_purposes: PrivacyPurposes
    # Put before the message of an e-mail sent again after a send whose outcome is unknown
    # (EmailJS never answered, or the worker sending it stopped): the agency may get it
    # twice. {lead_id} is the lead's number.
    resend_note: str
    honeypot_label: str
    answer_page: AnswerPageCopy
    dates: DateWords


# The error messages quote the limits by name ({forms.name_max}): the code owns them.
COPY = load(
    "forms.yaml",
    FormsCopy,
    values={
        "forms.name_min": str(NAME_MIN),
        "forms.name_max": str(NAME_MAX),
        "forms.phone_min": str(PHONE_MIN),
        "forms.phone_max": str(PHONE_MAX),
        "forms.message_max": str(MESSAGE_MAX),
    },
)


def _privacy_notice(purpose: str) -> PrivacyNotice:
    """The first-layer notice of a form whose data serve ``purpose``."""
    notice = COPY.privacy_notice
    items = tuple((label, text.replace("{purpose}", purpose)) for label, text in notice.items)
    return notice.model_copy(update={"items": items})


# The names other modules read.
ALTERNATIVES, NOTICES = COPY.alternatives, COPY.notices
HERO_CAPTURE, BOOKING, RESEND_NOTE = COPY.hero_capture, COPY.booking, COPY.resend_note
HONEYPOT_LABEL, ANSWER_PAGE, DATES = COPY.honeypot_label, COPY.answer_page, COPY.dates
HERO_PRIVACY = _privacy_notice(COPY.privacy_purposes.hero)
BOOKING_PRIVACY = _privacy_notice(COPY.privacy_purposes.booking)

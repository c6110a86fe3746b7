"""The words of the lead forms, ``content/es/forms.yaml``, and their models.

Which fields a form has, and their rules, are declared in ``agency_site/forms/``; the
limits the messages quote ({forms.name_max}) live in ``agency_site/rules.py``. A form's
words are the part of ``forms.yaml`` its declaration names (``copy``): a form that says
nothing but its fields' words, button and success text needs no line here (it is a
``FormCopy``); only a form with words of its own has a model (``HeroFormCopy``...).
"""

from pydantic import ConfigDict, Field

from agency_site.content.base import Content, Link
from agency_site.content.files import load
from agency_site.content.loader import fill
from agency_site.content.template import Template
from agency_site.locale import Localized
from agency_site.rules import (
    EMAIL_MAX,
    MESSAGE_MAX,
    NAME_MAX,
    NAME_MIN,
    PHONE_MAX,
    PHONE_MIN,
)


class FieldCopy(Content):
    """What a form field says: its label, an example (a select's empty option) and the
    message shown when it is wrong; and, where the label is a question to the visitor,
    what a summary of the lead calls it (the booking's pages, the agency's digest)."""

    label: str
    placeholder: str = ""
    error: str
    summary_label: str = ""  # Default: the label.

    @property
    def summary(self) -> str:
        """Its name in a summary of the lead: ``summary_label``, or the label."""
        return self.summary_label or self.label


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
    # Next to the field whose value the database refused (e.g. an address whose
    # normalised form does not fit): nothing stored, the visitor must change it.
    not_stored: str


class ChallengeWords(Content):
    """What a form says when a submission must prove it is no robot (a proof of work the
    browser solves by itself, ``leads/spam/challenge.py``), and the ALTCHA widget's own
    labels (its ``i18n`` keys, set by ``components/js/altcha_start.js``)."""

    notice: str  # Shown while the browser solves it: it sends the form by itself.
    no_script: str  # The page without JavaScript: it cannot be solved there.
    label: str  # The widget's checkbox: "I am not a robot".
    verifying: str
    verified: str
    error: str
    expired: str
    verification_required: str
    wait_alert: str


class ContactAlternatives(Content):
    """The agency's direct channels, offered whenever a form cannot deliver."""

    email: Link
    phone: Link
    whatsapp: Link


class FormCopy(Content):
    """What a form says: its name, each field's words by name (the form's declaration says
    which fields it has, ``agency_site/forms/``), its button and success text, and the
    heading of its e-mail to the agency.

    ``name`` and ``email_heading`` are the agency's words (its desk, monthly report and
    EmailJS template read the Spanish file's); ``email_heading`` is EmailJS template text,
    the subject of the form's e-mail: its ``{{variables}}`` are those the form's e-mail
    carries (``python -m agency_site.forms`` lists them)."""

    name: str  # The form as the agency names it: "Reserva de consulta".
    email_heading: str
    fields: dict[str, FieldCopy] = Field(min_length=1)
    submit: str
    success: str
    optional: str = ""  # After the label of an optional field.
    required_hint: str = ""  # Above the fields.


class HeroFormCopy(FormCopy):
    """The hero form of Home: an e-mail address alone."""

    email_message: Template(
        "email"
    )  # Body of the e-mail the agency receives; {email} is the visitor's.


class BookingCopy(FormCopy):
    """The consultation booking form of /schedule, with its date's and time's messages."""

    date_hint: str  # Under the date field: which days the agency works.
    date_past: str
    date_too_far: str
    date_weekend: str
    date_holiday: str  # A public holiday of Spain or Catalonia.
    date_closed: str  # A closed day of the settings (BOOKING_CLOSED_DAYS).
    time_passed: str  # Today's slot starts too soon (BOOKING_MIN_NOTICE_HOURS).
    time_hint: str  # Under the time: the slots are the agency's clock (Europe/Madrid).
    # When the visitor's clock differs: each slot as "{slot}" with their "{local}" time, and
    # a note naming their "{zone}".
    time_local: str
    time_zone_note: str
    # The template's Auto-Reply to the visitor ({{reply_subject}}, {{reply_message}}), in
    # the visitor's language: {name} (short_name), {date} (in words) and {time} only.
    autoreply_subject: Template()
    autoreply_message: Template("name", "date", "time")


class AnswerPageCopy(Content):
    """The plain page after a form sent without JavaScript, and the refusals of the endpoint."""

    sent: str  # Title when the lead was taken (sent or queued).
    review: str  # Title when something must be corrected.
    back: str  # The link back to the site.
    refused: str  # Title of a refused request (origin, content type).
    too_large: str
    refused_text: str
    form: str  # Title of a form's own plain page (``GET /_site/forms/<kind>``).


class DateWords(Content):
    """A date in words: ``format`` with ``{weekday}``, ``{day}``, ``{month}``, ``{year}``."""

    format: Template("weekday", "day", "month", "year")
    weekdays: tuple[str, ...] = Field(min_length=7, max_length=7)  # Monday first.
    months: tuple[str, ...] = Field(min_length=12, max_length=12)


class FormsCopy(Content):
    """Everything the forms say: ``content/es/forms.yaml``. Any other top-level key is a
    form's words (a ``FormCopy``, named by its declaration's ``copy``), as ``quote`` is."""

    # The forms without words of their own, by their declaration's ``copy``.
    model_config = ConfigDict(frozen=True, extra="allow")
    __pydantic_extra__: dict[str, FormCopy]

    alternatives: ContactAlternatives
    notices: Notices
    challenge: ChallengeWords
    hero: HeroFormCopy
    booking: BookingCopy
    privacy_notice: PrivacyNotice  # The "Finalidad" item says {purpose}: each form's own.
    # What each form's data serve, for its privacy notice: by its ``privacy_purpose``.
    privacy_purposes: dict[str, str] = Field(min_length=1)
    # Put before the message of an e-mail sent again after a send whose outcome is unknown
    # (EmailJS never answered, or the worker sending it stopped): the agency may get it
    # twice. {lead_id} is the lead's number.
    resend_note: Template("lead_id")
    honeypot_label: str
    answer_page: AnswerPageCopy
    dates: DateWords

    def privacy(self, purpose: str) -> PrivacyNotice:
        """The first-layer notice of a form whose data serve the purpose named ``purpose``."""
        text = self.privacy_purposes[purpose]
        items = tuple(
            (label, fill(item, {"purpose": text}, "privacy_notice"))
            for label, item in self.privacy_notice.items
        )
        return self.privacy_notice.model_copy(update={"items": items})


# The error messages quote the limits by name ({forms.name_max}): the rules own them.
COPY = Localized(
    lambda: load(
        "forms.yaml",
        FormsCopy,
        values={
            "forms.name_min": str(NAME_MIN),
            "forms.name_max": str(NAME_MAX),
            "forms.phone_min": str(PHONE_MIN),
            "forms.phone_max": str(PHONE_MAX),
            "forms.message_max": str(MESSAGE_MAX),
            "forms.email_max": str(EMAIL_MAX),
        },
    )
)

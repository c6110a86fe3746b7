"""The lead forms, each declared once: its kind, ids, fields in order, words and
where its leads go. Everything else about a form follows from here (see ``__init__``
and ``docs/forms.md``)."""

from dataclasses import dataclass, replace

from agency_site import locale, paths
from agency_site.content.form_words import COPY, FieldCopy, FormCopy, PrivacyNotice
from agency_site.forms.fields import Control, FormField, Option
from agency_site.forms.kinds import LeadKind
from agency_site.rules import EMAIL_MAX, MESSAGE_MAX, NAME_MAX, NAME_MIN, PHONE_MAX
from agency_site.settings import EmailJSSettings

# The fields every form carries besides its own (see components/form_layouts.py, leads/).
# Hidden; only bots fill it in. Named to match none of the patterns by which browsers'
# autofill and password managers recognise a field (name, e-mail, phone, address,
# company, URL, "website"...): a real visitor's autofill never fills it
# (components/form_layouts.py ``_honeypot``, tests/forms/test_honeypot.py).
HONEYPOT_FIELD = "x_k7q"
# The honeypot input's markers by which the common password managers skip a field
# (1Password, LastPass, Bitwarden, Dashlane), the same on the page and the no-JavaScript
# page, besides its name, id, tabindex -1 and autocomplete off (which browsers ignore for
# addresses, not for a field they do not recognise).
HONEYPOT_ATTRIBUTES = (
    ("data-1p-ignore", "true"),
    ("data-lpignore", "true"),
    ("data-bwignore", "true"),
    ("data-form-type", "other"),
)
IDEMPOTENCY_FIELD = "idempotency_key"  # Hidden; one key per submission, set by the browser.
LANGUAGE_FIELD = "language"  # Hidden; the language of the form's page (es, ca).
# Hidden; the backend's signed token, fetched at the first focus in the form (the time
# trap: leads/spam_token.py).
FORM_TOKEN_FIELD = "form_token"
# Hidden; the solved proof of work of a suspect submission (the ALTCHA widget's payload,
# leads/spam_challenge.py), empty until the server asked for one.
CHALLENGE_FIELD = "altcha"


@dataclass(frozen=True)
class FormDeclaration:
    """A lead form.

    ``copy`` is its part of ``forms.yaml`` (a ``FormCopy``: a ``FieldCopy`` per field,
    under ``fields``; a plain form needs no model line), ``privacy_purpose`` its line of
    ``privacy_purposes``, ``template_setting`` the ``EmailJSSettings`` field with its EmailJS
    template id (``*_template_id``: the settings' fingerprint includes every such field). ``email_message``: the
    form's copy key of an e-mail body made of its fields (``{email}``) instead of a
    ``message`` field; ``autoreply``: the e-mail carries ``reply_to`` for the template's
    Auto-Reply to the visitor (once a day per address, see ``LeadStore.add``).
    """

    kind: LeadKind
    form_id: str  # The form's DOM id.
    prefix: str  # Of its fields' DOM ids: booking-name.
    page: str  # The page it is on.
    copy: str
    privacy_purpose: str
    template_setting: str
    fields: tuple[FormField, ...]
    inline: bool = False  # One field and the button on a line (the Home hero).
    email_message: str = ""
    autoreply: bool = False

    def __post_init__(self) -> None:
        names = self.names
        if len(set(names)) != len(names):
            raise ValueError(f"The {self.kind} form declares a field twice: {names}.")
        setting = self.template_setting
        if not setting.endswith("_template_id") or setting not in EmailJSSettings.model_fields:
            raise ValueError(
                f"The {self.kind} form's template_setting {setting!r} is no "
                "EmailJSSettings '*_template_id' field."
            )
        for field in self.fields:
            if field.depends_on and field.depends_on not in names[: names.index(field.name)]:
                raise ValueError(f"{field.name!r} depends on no earlier field of the form.")
            if field.day_field and field.day_field not in names:
                raise ValueError(f"{field.name!r}'s day_field is no field of the form.")

    def field(self, name: str) -> FormField:
        """The field called ``name`` (``KeyError`` if the form has none)."""
        for field in self.fields:
            if field.name == name:
                return field
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        """The names of its fields, in order."""
        return tuple(field.name for field in self.fields)

    def field_id(self, name: str) -> str:
        """The DOM id of one of its fields (or of the hidden ones): ``booking-phone``."""
        return f"{self.prefix}-{name}"

    @property
    def words(self) -> FormCopy:
        """What the form says (``forms.yaml``)."""
        return getattr(COPY, self.copy)

    def field_words(self, field: FormField) -> FieldCopy:
        """What one of its fields says: label, placeholder, error."""
        return self.words.fields[field.copy_key]

    @property
    def errors(self) -> dict[str, str]:
        """The message of each of its fields when wrong, in the form's order."""
        return {field.name: self.field_words(field).error for field in self.fields}

    @property
    def privacy(self) -> PrivacyNotice:
        """The first-layer privacy notice under it."""
        return COPY.privacy(self.privacy_purpose)

    @property
    def post_path(self) -> str:
        """Where it posts without JavaScript: ``/_site/forms/<kind>``."""
        return paths.form_post(self.kind)


# The fields several forms share; a form may take one with changes (``replace``).
NAME = FormField(
    "name",
    Control.TEXT,
    min_length=NAME_MIN,
    max_length=NAME_MAX,
    autocomplete="name",
    email=("from_name",),
)
EMAIL = FormField(
    "email", Control.EMAIL, max_length=EMAIL_MAX, autocomplete="email", email=("from_email",)
)
PHONE = FormField(
    "phone", Control.PHONE, max_length=PHONE_MAX, autocomplete="tel", email=("phone",)
)
MESSAGE = FormField(
    "message", Control.TEXTAREA, required=False, max_length=MESSAGE_MAX, email=("message",)
)


@locale.per_language
def service_options() -> tuple[Option, ...]:
    """The services, in the menus' order, named in the language in use."""
    from agency_site.content.service_pages import SERVICES

    return tuple(Option(service.id, service.title) for service in SERVICES)


@locale.per_language
def pack_options() -> tuple[Option, ...]:
    """Every service's packs, each in its service's group, named in the language in use."""
    from agency_site.content.service_pages import SERVICE_PAGES
    from agency_site.content.services import pack_id

    return tuple(
        Option(pack_id(pack), pack.title, service_id)
        for service_id, page in SERVICE_PAGES.items()
        for section in page.sections
        for pack in getattr(section, "packs", ())
    )


HERO = FormDeclaration(
    kind=LeadKind.HERO,
    form_id="hero-capture-form",
    prefix="hero",
    page=paths.HOME,
    copy="hero",
    privacy_purpose="hero",
    template_setting="contact_template_id",
    fields=(EMAIL,),
    inline=True,
    email_message="email_message",
)

BOOKING = FormDeclaration(
    kind=LeadKind.BOOKING,
    form_id="booking-form",
    prefix="booking",
    page=paths.SCHEDULE,
    copy="booking",
    privacy_purpose="booking",
    template_setting="booking_template_id",
    fields=(
        replace(NAME, email=("from_name", "reply_name")),  # The auto-reply greets by name.
        EMAIL,
        PHONE,
        FormField("date", Control.DATE, email=("date", "date_es")),
        FormField("time", Control.SLOT, day_field="date", email=("time",)),
        MESSAGE,
    ),
    autoreply=True,
)

QUOTE = FormDeclaration(
    kind=LeadKind.QUOTE,
    form_id="quote-form",
    prefix="quote",
    page=paths.CONTACT,
    copy="quote",
    privacy_purpose="quote",
    template_setting="quote_template_id",
    fields=(
        NAME,
        EMAIL,
        replace(PHONE, required=False),
        FormField("service", Control.CHOICE, options=service_options, email=("service",)),
        FormField(
            "pack",
            Control.CHOICE,
            required=False,
            options=pack_options,
            depends_on="service",
            email=("pack",),
        ),
        replace(MESSAGE, required=True),
    ),
)

# Every form, in the order of the export's columns (each field once, first seen first).
FORMS: tuple[FormDeclaration, ...] = (BOOKING, QUOTE, HERO)
BY_KIND: dict[LeadKind, FormDeclaration] = {form.kind: form for form in FORMS}


def form_templates(emailjs: EmailJSSettings) -> dict[LeadKind, str]:
    """Each form's EmailJS template id, from the setting its declaration names (unset: the
    agency template's, ``EmailJSSettings.template_id``)."""
    return {form.kind: emailjs.template_id(form.template_setting) for form in FORMS}


def export_fields(forms: tuple[FormDeclaration, ...] = FORMS) -> tuple[str, ...]:
    """The lead fields ``leads export`` writes as columns: every exported field once."""
    names: dict[str, None] = {}
    for form in forms:
        names |= {field.name: None for field in form.fields if field.export}
    return tuple(names)


def submission_fields(kind: LeadKind) -> tuple[str, ...]:
    """The names a valid submission of the ``kind`` form posts, in the form's order:
    its fields and the honeypot (for the load test's crafted submissions)."""
    return (*BY_KIND[kind].names, HONEYPOT_FIELD)

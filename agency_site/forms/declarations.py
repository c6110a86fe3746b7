"""The lead forms, each declared once: its name, kind, page and fields in order.
Everything else about a form follows from here (see ``__init__`` and ``docs/forms.md``):
its member of ``LeadKind`` (``kinds.py``), its Reflex state (``state/form_states.py``), its
EmailJS template id (``template_ids.py``), its words (``forms.yaml``)."""

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

from agency_site import locale, paths
from agency_site.content.form_words import COPY, FieldCopy, FormCopy, PrivacyNotice
from agency_site.forms.fields import Control, FormField, Option
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
# trap: leads/spam/form_token.py).
FORM_TOKEN_FIELD = "form_token"
# Hidden; the solved proof of work of a suspect submission (the ALTCHA widget's payload,
# leads/spam/challenge.py), empty until the server asked for one.
CHALLENGE_FIELD = "altcha"
# Hidden; where the visit came from, as JSON, written by the page's browser code on submit
# (components/js/lead_source.js) from the page, the entry page, the referring host and these
# campaign parameters; read by leads/source.py, which trusts none of it.
SOURCE_FIELD = "lead_source"
UTM_KEYS = ("utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content")


# The agency's e-mails that are no lead's (a booking cancelled or moved by its visitor,
# the morning digest, the monthly report): their kind of e-mail (``email.kind_params``),
# which no form may take.
NOTICE = "notice"
# A form's name: its state's class, its member of ``LeadKind``, its words' key.
_NAME = re.compile(r"[a-z][a-z0-9_]*")
# A kind as the leads table stores it (a String(20) column) and the EmailJS template
# variable spells it (``EMAILJS_<KIND>_TEMPLATE_ID``).
_KIND = re.compile(r"[a-z][a-z0-9_]{0,19}")


@dataclass(frozen=True)
class FormDeclaration:
    """A lead form.

    ``name`` names everything of it: its member of ``LeadKind`` (``BOOKING``), its Reflex
    state (``BookingFormState``), its words in ``forms.yaml`` (a ``FormCopy``: a
    ``FieldCopy`` per field under ``fields``, its ``name`` and ``email_heading``; a plain
    form needs no model line), its line of ``privacy_purposes``, the DOM ids of its fields
    (``booking-phone``). ``kind`` is what the leads table stores (default: the name; at
    most 20 characters, never changed afterwards): its EmailJS template id is
    ``EMAILJS_<KIND>_TEMPLATE_ID``, the agency template's when unset (``template_ids.py``).
    ``email_message``: the form's copy key of an e-mail body made of its fields
    (``{email}``) instead of a ``message`` field; ``autoreply``: the e-mail carries
    ``reply_to`` for the template's Auto-Reply to the visitor (once a day per address,
    see ``LeadStore.add``).
    """

    name: str
    page: str  # The page it is on.
    fields: tuple[FormField, ...]
    kind: str = ""  # Default: the name.
    form_id: str = ""  # The form's DOM id; default: "<name>-form".
    inline: bool = False  # One field and the button on a line (the Home hero).
    email_message: str = ""
    autoreply: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", self.kind or self.name)
        object.__setattr__(self, "form_id", self.form_id or f"{self.name}-form")
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"The form name {self.name!r} is no lower-case identifier.")
        if not _KIND.fullmatch(self.kind) or self.kind == NOTICE:
            raise ValueError(
                f"The {self.name} form's kind {self.kind!r}: 1 to 20 lower-case letters, "
                f"digits or _, and not {NOTICE!r} (the agency's notices' e-mails)."
            )
        if self.template_setting == EmailJSSettings.VISITOR_TEMPLATE:
            raise ValueError(f"The kind {self.kind!r} would take the visitor template's id.")
        names = self.names
        if len(set(names)) != len(names):
            raise ValueError(f"The {self.kind} form declares a field twice: {names}.")
        for each in self.fields:
            if each.depends_on and each.depends_on not in names[: names.index(each.name)]:
                raise ValueError(f"{each.name!r} depends on no earlier field of the form.")
            if each.day_field and each.day_field not in names:
                raise ValueError(f"{each.name!r}'s day_field is no field of the form.")

    @property
    def prefix(self) -> str:
        """Of its fields' DOM ids: ``booking`` (``booking-name``)."""
        return self.name

    @property
    def copy(self) -> str:
        """Its key in ``forms.yaml``."""
        return self.name

    @property
    def privacy_purpose(self) -> str:
        """Its line of ``privacy_purposes`` in ``forms.yaml``."""
        return self.name

    @property
    def template_setting(self) -> str:
        """The ``EmailJSSettings`` name of its template id: ``booking_template_id``, read
        from ``EMAILJS_BOOKING_TEMPLATE_ID`` (``template_ids.py``)."""
        return f"{self.kind}_template_id"

    def field(self, name: str) -> FormField:
        """The field called ``name`` (``KeyError`` if the form has none)."""
        for each in self.fields:
            if each.name == name:
                return each
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        """The names of its fields, in order."""
        return tuple(each.name for each in self.fields)

    def field_id(self, name: str) -> str:
        """The DOM id of one of its fields (or of the hidden ones): ``booking-phone``."""
        return f"{self.prefix}-{name}"

    @property
    def words(self) -> FormCopy:
        """What the form says (``forms.yaml``), in the language in use."""
        return getattr(COPY, self.copy)

    @property
    def agency_words(self) -> FormCopy:
        """What the form says to the agency (its desk, report and e-mails): in Spanish."""
        with locale.active(locale.DEFAULT_LOCALE):
            return self.words

    def field_words(self, field: FormField) -> FieldCopy:
        """What one of its fields says: label, placeholder, error."""
        return self.words.fields[field.copy_key]

    @property
    def errors(self) -> dict[str, str]:
        """The message of each of its fields when wrong, in the form's order."""
        return {each.name: self.field_words(each).error for each in self.fields}

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
    name="hero",
    kind="contact",  # Its stored value predates the name.
    form_id="hero-capture-form",
    page=paths.HOME,
    fields=(EMAIL,),
    inline=True,
    email_message="email_message",
)

BOOKING = FormDeclaration(
    name="booking",
    page=paths.SCHEDULE,
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
    name="quote",
    page=paths.CONTACT,
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

# Every form, in the site's order (the order of ``LeadKind``, of the Reflex states, of the
# template's sections). A new form: its declaration above and its line here (then its
# words, page and privacy text: docs/forms.md).
FORMS: tuple[FormDeclaration, ...] = (HERO, BOOKING, QUOTE)
BY_KIND: dict[str, FormDeclaration] = {form.kind: form for form in FORMS}


class _FormNames(Mapping[str, str]):
    """Each declared form's name as the agency reads it (its words' ``name``, in Spanish),
    by kind, read when asked: the desk's and the report's name of a form."""

    def __getitem__(self, kind: str) -> str:
        return BY_KIND[kind].agency_words.name

    def __iter__(self) -> Iterator[str]:
        return iter(BY_KIND)

    def __len__(self) -> int:
        return len(BY_KIND)


FORM_NAMES: Mapping[str, str] = _FormNames()


def export_forms(forms: tuple[FormDeclaration, ...] | None = None) -> list[FormDeclaration]:
    """The forms (default: every one) in the order the exports read them: the forms with
    the most fields first, so the name, e-mail and phone most forms ask for lead the columns
    and each column is labelled as the fullest form labels it."""
    return sorted(FORMS if forms is None else forms, key=lambda form: -len(form.fields))


def export_fields(forms: tuple[FormDeclaration, ...] | None = None) -> tuple[str, ...]:
    """The lead fields ``leads export`` (and the desk's CSV) writes as columns: every
    exported field once, first seen first (``export_forms``)."""
    names: dict[str, None] = {}
    for form in export_forms(forms):
        names |= {field.name: None for field in form.fields if field.export}
    return tuple(names)


def submission_fields(kind: str) -> tuple[str, ...]:
    """The names a valid submission of the ``kind`` form posts, in the form's order:
    its fields and the honeypot (for the load test's crafted submissions)."""
    return (*BY_KIND[kind].names, HONEYPOT_FIELD)

"""The EmailJS templates the site's e-mails need, ready to paste, made from the form
declarations: ``docs/leads.md`` carries this module's output (``docs_section``) and a test
checks that it still does (``python -m agency_site.emailjs_templates`` prints it,
``--write`` puts it in the doc).

Two templates, as EmailJS's free plan allows (docs/leads.md, "EmailJS's free plan"):

- the **agency template** (``EMAILJS_CONTACT_TEMPLATE_ID``): every e-mail to the agency,
  whatever its kind. Each send carries its kind's flag (``forms.email.kind_params``), so
  one section per kind (``{{#is_booking}}…{{/is_booking}}``) shows that kind's fields,
  labelled as its form labels them; its Auto-Reply tab is the visitor's confirmation of a
  booking (sent by EmailJS only when ``reply_to`` is set);
- the **visitor template** (``EMAILJS_VISITOR_TEMPLATE_ID``): a booking's confirmation,
  decline, cancellation, move and reminder, in the visitor's language (``bookings/mails.py``).

EmailJS renders ``{{var}}`` (HTML-escaped) and the Mustache sections ``{{#var}}…{{/var}}``
(shown when ``var`` is set and not empty) and ``{{^var}}…{{/var}}`` (when it is not).
"""

import sys
from dataclasses import dataclass
from pathlib import Path

from agency_site import locale
from agency_site.bookings.mails import VISITOR_LINKS
from agency_site.forms import declarations
from agency_site.forms.declarations import FormDeclaration
from agency_site.forms.email import NOTICE, agency_kinds, kind_params
from agency_site.forms.kinds import LeadKind

# What the agency reads first of its notices (the morning digest...): the subject and heading
# of their e-mails; the monthly report is one of them, with its own heading when it carries
# ``report_month`` (agency_site/report/mail.py). A form's is its words' ``email_heading``.
NOTICE_HEADING = (
    "{{#report_month}}Informe de {{report_month}}{{/report_month}}"
    "{{^report_month}}Aviso de la web{{/report_month}}"
)
# Variables every agency e-mail shows after its kind's fields, with their labels.
COMMON = {"message": "", "source": "Origen", "language": "Idioma"}
# Variables of a lead's parameters that are for the Auto-Reply to the visitor only.
AUTOREPLY_ONLY = ("reply_to", "reply_name", "reply_subject", "reply_message")
# What the bookings plugin adds to a booking's agency e-mail (``bookings/mails.py``).
BOOKING_EXTRA = (
    '{{#confirm_url}}<p><a href="{{confirm_url}}">Confirmar la cita</a> · '
    '<a href="{{decline_url}}">Rechazarla</a></p>{{/confirm_url}}'
)
SLOT_NOTE = "{{#slot_note}}<p><strong>{{slot_note}}</strong></p>{{/slot_note}}"
# Text with its line breaks, in the HTML body of an EmailJS template.
LINES = '<div style="white-space: pre-line">{}</div>'


@dataclass(frozen=True)
class EmailTemplate:
    """One template as the EmailJS dashboard asks for it: its settings and its content."""

    title: str
    setting: str  # The variable that takes its id.
    fields: tuple[tuple[str, str], ...]  # The editor's fields: ("To Email", "{{to_email}}")...
    content: str  # The HTML body (the editor's code view).

    @property
    def subject(self) -> str:
        """Its Subject field."""
        return dict(self.fields)["Subject"]

    def markdown(self) -> str:
        """Its part of docs/leads.md."""
        rows = "\n".join(f"| {name} | `{value}` |" for name, value in self.fields)
        return (
            f"#### {self.title} (`{self.setting}`)\n\n| Field | Value |\n|---|---|\n{rows}\n\n"
            f"Content (the editor's `<>` code view):\n\n```html\n{self.content}\n```\n"
        )


def section(flag: str, text: str) -> str:
    """``text`` only when ``flag`` is set."""
    return f"{{{{#{flag}}}}}{text}{{{{/{flag}}}}}"


def _field_lines(form: FormDeclaration) -> str:
    """One line per field of ``form``: its label (Spanish, as the form says it) and its
    variables; an optional field's line only when it is filled in."""
    lines = []
    with locale.active(locale.DEFAULT_LOCALE):
        for field in form.fields:
            names = [n for n in field.email if n not in AUTOREPLY_ONLY and n not in COMMON]
            if not names:
                continue
            values = " · ".join(f"{{{{{name}}}}}" for name in names)
            line = f"{form.field_words(field).label}: {values}<br>"
            lines.append(line if field.required else section(names[0], line))
    return "<p>" + "\n".join(lines) + "</p>"


def heading(kind: str) -> str:
    """What the agency reads first of an e-mail of ``kind`` (its subject, and the heading
    of its body): its form's ``email_heading`` (Spanish), or the notices'."""
    if kind == NOTICE:
        return NOTICE_HEADING
    return declarations.BY_KIND[kind].agency_words.email_heading


def agency_content() -> str:
    """The agency template's body: its kind's heading and fields, then the common part."""
    parts = [section(f"is_{kind}", f"<h2>{heading(kind)}</h2>") for kind in agency_kinds()]
    parts.append(SLOT_NOTE)
    for form in declarations.FORMS:
        extra = BOOKING_EXTRA if form.kind == LeadKind.BOOKING else ""
        parts.append(section(f"is_{form.kind}", _field_lines(form) + extra))
    parts.append(LINES.format("{{message}}"))
    parts += [
        section(name, f"<p>{label}: {{{{{name}}}}}</p>") for name, label in COMMON.items() if label
    ]
    return "\n".join(parts)


def agency_template() -> EmailTemplate:
    """Every e-mail to the agency, one section per kind."""
    subject = "".join(section(f"is_{kind}", heading(kind)) for kind in agency_kinds())
    return EmailTemplate(
        title="Agency template",
        setting="EMAILJS_CONTACT_TEMPLATE_ID",
        fields=(
            ("To Email", "{{to_email}}"),
            ("Reply To", "{{from_email}}"),
            ("Subject", subject),
        ),
        content=agency_content(),
    )


def autoreply_template() -> EmailTemplate:
    """The agency template's Auto-Reply tab: the visitor's confirmation of their booking."""
    return EmailTemplate(
        title="Its Auto-Reply tab",
        setting="EMAILJS_CONTACT_TEMPLATE_ID",
        fields=(("To Email", "{{reply_to}}"), ("Subject", "{{reply_subject}}")),
        content=LINES.format("{{reply_message}}"),
    )


# The visitor template's links, each shown only when the e-mail has it. The visitor reads
# them in their language: the template's own words are none (a brand, a symbol, the link).
_VISITOR_LINK_TEXT = {
    "ics_url": '📅 <a href="{{ics_url}}">.ics</a>',
    "google_url": '<a href="{{google_url}}">Google Calendar</a>',
    "outlook_url": '<a href="{{outlook_url}}">Outlook</a>',
    "meeting_url": '🎥 <a href="{{meeting_url}}">{{meeting_url}}</a>',
    "cancel_url": '✎ <a href="{{cancel_url}}">{{cancel_url}}</a>',
    "book_again_url": '↻ <a href="{{book_again_url}}">{{book_again_url}}</a>',
}


def visitor_template() -> EmailTemplate:
    """The visitor's e-mails about their booking, in their language."""
    links = [section(name, f"<p>{_VISITOR_LINK_TEXT[name]}</p>") for name in VISITOR_LINKS]
    content = "\n".join(
        [
            LINES.format("{{message}}"),
            "<p>🗓 {{date_es}} · {{time}} ({{time_zone}})</p>",
            *links,
        ]
    )
    return EmailTemplate(
        title="Visitor template",
        setting="EMAILJS_VISITOR_TEMPLATE_ID",
        fields=(("To Email", "{{to_email}}"), ("Subject", "{{subject}}")),
        content=content,
    )


def templates() -> tuple[EmailTemplate, ...]:
    """Every template, in the doc's order."""
    return agency_template(), autoreply_template(), visitor_template()


# Where the generated part of docs/leads.md starts and ends.
START = "<!-- emailjs-templates: generated by `python -m agency_site.emailjs_templates --write` -->"
END = "<!-- /emailjs-templates -->"
DOC = Path(__file__).resolve().parents[1] / "docs" / "leads.md"


def docs_section() -> str:
    """The generated part of docs/leads.md, its markers included."""
    flags = ", ".join(f"`{name}`" for name in kind_params(NOTICE) if name != "kind")
    intro = (
        f"Each e-mail to the agency carries `kind` and one flag per kind ({flags}): "
        "`1` for its own, empty for the others.\n"
    )
    body = "\n".join(template.markdown() for template in templates())
    return f"{START}\n{intro}\n{body}{END}"


def with_section(doc: str) -> str:
    """``doc`` with its generated part replaced by ``docs_section``."""
    before, _, rest = doc.partition(START)
    _, _, after = rest.partition(END)
    return before + docs_section() + after


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(with_section(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(docs_section())

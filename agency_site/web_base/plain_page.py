"""The plain pages the backend answers with (no script, styled inline, ``noindex``): a form
sent without JavaScript, a booking link's page; a form's field drawn from its declaration's
markup contract (``field_html``: the no-JavaScript form and the booking's manage page). In
the language in use, the site's name in the title."""

from collections.abc import Mapping
from html import escape

from agency_site.content.form_words import COPY
from agency_site.content.site import SITE
from agency_site.forms.field_markup import FieldMarkup
from agency_site.forms.fields import Option
from agency_site.locale import HTML_LANG, current

_CSS = """
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#0f172a;
background:#f8fafc;line-height:1.5}
main{max-width:40rem;margin:0 auto;padding:2.5rem 1.25rem}
h1{font-size:1.6rem;margin:0 0 1.25rem}
a{color:#3730a3}
a:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,
button:focus-visible{outline:3px solid #4f46e5;outline-offset:2px}
.box{border-radius:.75rem;border:1px solid;padding:.75rem 1rem;margin:0 0 1.5rem}
.ok{border-color:#a7f3d0;background:#ecfdf5;color:#064e3b}
.note{border-color:#fde68a;background:#fffbeb;color:#451a03}
.note ul{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;list-style:none;padding:0;margin:.5rem 0 0}
.note a{font-weight:600}
form{display:grid;gap:1.1rem;background:#fff;border:1px solid #e2e8f0;border-radius:1.25rem;
padding:1.5rem}
label{display:block;font-weight:600;font-size:.9rem}
input,select,textarea{box-sizing:border-box;width:100%;margin-top:.4rem;padding:.7rem .9rem;
border:1px solid #cbd5e1;border-radius:.75rem;font:inherit;color:inherit;background:#fff}
[aria-invalid=true]{border-color:#dc2626}
.error{margin:.25rem 0 0;color:#b91c1c;font-size:.9rem;font-weight:500}
.error:empty{display:none}
button{justify-self:start;border:0;border-radius:999px;background:#4f46e5;color:#fff;
font:inherit;font-weight:600;padding:.75rem 1.5rem;cursor:pointer}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.back{margin-top:1.5rem}
.summary{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0 0 1.25rem;
background:#fff;border:1px solid #e2e8f0;border-radius:1rem;padding:1rem 1.25rem}
.summary dt{font-weight:600}.summary dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
"""


def _alternatives() -> str:
    links = (COPY.alternatives.email, COPY.alternatives.phone, COPY.alternatives.whatsapp)
    items = "".join(
        f'<li><a href="{escape(link.href)}">{escape(link.label)}</a></li>' for link in links
    )
    return f"<ul>{items}</ul>"


def alternatives_notice(text: str) -> str:
    """``text`` in a note box, followed by the agency's direct channels."""
    return f'<div class="box note" role="status"><p>{escape(text)}</p>{_alternatives()}</div>'


def attributes_html(attributes: Mapping[str, str | int | bool]) -> str:
    """HTML attributes, escaped: ``True`` as a bare name (``required``)."""
    return "".join(
        f" {name}" if value is True else f' {name}="{escape(str(value), quote=True)}"'
        for name, value in attributes.items()
    )


def _option(option: Option, chosen: str, grouped: bool) -> str:
    selected = " selected" if option.value and option.value == chosen else ""
    data = attributes_html({"data-group": option.group}) if grouped else ""
    value = attributes_html({"value": option.value})
    return f"<option{value}{data}{selected}>{escape(option.label)}</option>"


def _options(markup: FieldMarkup, chosen: str) -> str:
    html = f'<option value="">{escape(markup.placeholder)}</option>'
    for group in markup.groups:
        options = "".join(_option(o, chosen, bool(group.value)) for o in group.options)
        html += (
            f"<optgroup{attributes_html({'label': group.label})}>{options}</optgroup>"
            if group.value
            else options
        )
    return html


def field_html(
    markup: FieldMarkup,
    value: str,
    error: str = "",
    more: Mapping[str, str | int | bool] | None = None,
) -> str:
    """One field of a form as drawn without script (``forms/field_markup.py``): its label,
    control (``value`` filled in or chosen; ``more`` attributes, e.g. a date's ``min``), hint
    and message (``error``)."""
    attributes = attributes_html(
        {
            "id": markup.id,
            "name": markup.name,
            "aria-invalid": "true" if error else "false",
            "aria-describedby": markup.described_by,
        }
        | markup.attributes
        | dict(more or {})
    )
    match markup.tag:
        case "textarea":
            control = f"<textarea{attributes}>{escape(value)}</textarea>"
        case "select":
            control = f"<select{attributes}>{_options(markup, value)}</select>"
        case _:
            control = f"<input{attributes}{attributes_html({'value': value})}>"
    label = f"{markup.label} {markup.optional}" if markup.optional else markup.label
    hint = f'<p class="hint" id="{markup.hint_id}">{escape(markup.hint)}</p>' if markup.hint else ""
    return (
        f'<div><label for="{markup.id}">{escape(label)}</label>{control}{hint}'
        f'<p class="error" id="{markup.error_id}">{escape(error)}</p></div>'
    )


def page(title: str, body: str, back: str) -> str:
    """A whole answer page: ``title``, the ``body`` markup and a link back to the site."""
    return (
        f'<!DOCTYPE html><html lang="{HTML_LANG[current()]}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="robots" content="noindex">'
        f"<title>{escape(title)} · {escape(SITE.name)}</title><style>{_CSS}</style></head>"
        f"<body><main><h1>{escape(title)}</h1>{body}"
        f'<p class="back"><a href="{escape(back, quote=True)}">'
        f"{escape(COPY.answer_page.back)}</a></p></main></body></html>"
    )

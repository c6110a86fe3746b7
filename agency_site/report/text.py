"""The month's report as text, in Spanish (what ``python -m agency_site.report`` prints)."""

from agency_site.forms.declarations import FORM_NAMES
from agency_site.report.figures import Figures, Rate

MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
          "septiembre", "octubre", "noviembre", "diciembre")  # fmt: skip
LANGUAGES = {"es": "español", "ca": "catalán"}
DEVICES = {"mobile": "móvil", "tablet": "tableta", "desktop": "ordenador"}
BOOKING_STEPS = (
    ("requested", "pedidas"),
    ("confirmed", "confirmadas"),
    ("declined", "rechazadas por la agencia"),
    ("cancelled", "canceladas"),
    ("expired", "caducadas sin respuesta"),
    ("attended", "atendidas"),
    ("no_show", "no se presentó"),
)
UNSAID = "sin decir"  # A form started that the browser did not name.


def form_name(kind: str) -> str:
    """A form as the report names it: its words' ``name`` (``forms.yaml``), "sin decir"
    when the browser did not say which, the kind itself for one no longer declared."""
    return FORM_NAMES.get(kind, kind) if kind else UNSAID


def set_aside(spam: int) -> str:
    """ "1 apartada como spam", "2 apartadas como spam": the leads quarantined as spam."""
    return f"{spam} apartada como spam" if spam == 1 else f"{spam} apartadas como spam"


def month_name(figures: Figures) -> str:
    return f"{MONTHS[figures.month.month - 1]} de {figures.month.year}"


def rate_text(rate: Rate) -> str:
    """``12,5 % (3 de 24)``; ``— (0 de 0)`` without a denominator."""
    shown = "—" if rate.percent is None else f"{rate.percent:.1f} %".replace(".", ",")
    return f"{shown} ({rate.part} de {rate.whole})"


def sections(figures: Figures) -> list[tuple[str, list[str]]]:
    """The report's sections: a title and its lines (the HTML page shows the same)."""
    devices = ", ".join(f"{DEVICES[name]} {n}" for name, n in figures.devices.most_common())
    return [
        (
            "Visitas por página e idioma",
            [f"Total: {figures.visits} visitas" + (f" ({devices})" if devices else "")]
            + [
                f"{page} ({LANGUAGES.get(lang, lang)}): {n}"
                for page, lang, n in figures.visits_by_page
            ],
        ),
        (
            "Sitios que envían visitas",
            [f"{domain}: {n}" for domain, n in figures.referrers] or ["ninguno"],
        ),
        (
            "Campañas (utm_source / utm_medium / utm_campaign)",
            [f"{s or '-'} / {m or '-'} / {c or '-'}: {n}" for s, m, c, n in figures.campaigns]
            or ["ninguna"],
        ),
        (
            "Solicitudes por origen",
            [f"{source}: {n}" for source, n in figures.leads_by_source] or ["ninguna"],
        ),
        (
            "Presupuestos por servicio",
            [f"{service}: {n}" for service, n in figures.leads_by_service] or ["ninguno"],
        ),
        (
            "El embudo",
            [f"{label}: {n}" for label, n in figures.funnel]
            + [
                "Formularios empezados por formulario: "
                + (
                    ", ".join(f"{form_name(f)} {n}" for f, n in sorted(figures.started.items()))
                    or "0"
                ),
                f"Solicitudes: {figures.leads['sent']} enviadas, {figures.leads['delivered']} ya en "
                f"el correo, {figures.leads['waiting']} en cola, {set_aside(figures.leads['spam'])}",
                "Citas: "
                + ", ".join(f"{figures.bookings[key]} {word}" for key, word in BOOKING_STEPS),
            ],
        ),
        ("Conversión", [f"{rate.label}: {rate_text(rate)}" for rate in figures.rates]),
        (
            "Páginas no encontradas (404) que merecen una redirección",
            [f"{path} ← {referrer or 'sin origen'}: {n}" for path, referrer, n in figures.not_found]
            or ["ninguna"],
        ),
        (
            "Robots y monitores (no cuentan como visitas)",
            [f"{bot}: {n}" for bot, n in figures.bots] or ["ninguno"],
        ),
    ]


def report_text(figures: Figures) -> str:
    """The whole report, as printed."""
    lines = [f"Informe de {month_name(figures)}", ""]
    for title, body in sections(figures):
        lines += [title, *(f"  {line}" for line in body), ""]
    return "\n".join(lines)

"""The month's report as text, in Spanish (what ``python -m agency_site.report`` prints):
its words are ``content/es/report.yaml``'s (``WORDS``), the months' the dates'."""

from agency_site.content.form_words import COPY
from agency_site.content.report import WORDS as ALL_WORDS
from agency_site.content.template import render
from agency_site.forms.declarations import FORM_NAMES
from agency_site.locale import DEFAULT_LOCALE
from agency_site.report.figures import Figures, Rate

# The report is the owner's: Spanish whatever language is in use.
WORDS = ALL_WORDS.of(DEFAULT_LOCALE)
MONTHS = COPY.of(DEFAULT_LOCALE).dates.months
LANGUAGES = WORDS.languages
DEVICES = WORDS.devices
# Each booking's step (a ``BookingStatus`` or an attendance) and its word, in order.
BOOKING_STEPS = tuple(WORDS.booking_steps.model_dump().items())


def form_name(kind: str) -> str:
    """A form as the report names it: its words' ``name`` (``forms.yaml``), "sin decir"
    when the browser did not say which, the kind itself for one no longer declared."""
    return FORM_NAMES.get(kind, kind) if kind else WORDS.unsaid


def set_aside(spam: int) -> str:
    """ "1 apartada como spam", "2 apartadas como spam": the leads quarantined as spam."""
    return render(WORDS.set_aside_one if spam == 1 else WORDS.set_aside_many, count=spam)


def month_name(figures: Figures) -> str:
    month = figures.month
    return render(WORDS.month, month=MONTHS[month.month - 1], year=month.year)


def title(figures: Figures) -> str:
    """ "Informe de noviembre de 2026"."""
    return render(WORDS.title, month=month_name(figures))


def rate_text(rate: Rate) -> str:
    """``12,5 % (3 de 24)``; ``— (0 de 0)`` without a denominator."""
    if rate.percent is None:
        shown = WORDS.no_percent
    else:
        value = f"{rate.percent:.1f}".replace(".", WORDS.decimal_mark)
        shown = render(WORDS.percent, value=value)
    return render(WORDS.rate, percent=shown, part=rate.part, whole=rate.whole)


def _counts(pairs: list[tuple[str, int]]) -> str:
    """``quote 2, contact 1``."""
    return ", ".join(f"{name} {n}" for name, n in pairs)


def devices(figures: Figures) -> str:
    """`` (móvil 4, ordenador 3)`` after the visits, nothing without any."""
    pairs = [(DEVICES[name], n) for name, n in figures.devices.most_common()]
    return f" ({_counts(pairs)})" if pairs else ""


def sections(figures: Figures) -> list[tuple[str, list[str]]]:
    """The report's sections: a title and its lines (the HTML page shows the same)."""
    words = WORDS.sections
    started = [(form_name(f), n) for f, n in sorted(figures.started.items())]
    leads = figures.leads
    steps = [(str(figures.bookings[key]), word) for key, word in BOOKING_STEPS]
    return [
        (
            words.visits.heading,
            [render(words.visits.total, visits=figures.visits) + devices(figures)]
            + [
                f"{page} ({LANGUAGES.get(lang, lang)}): {n}"
                for page, lang, n in figures.visits_by_page
            ],
        ),
        (
            words.referrers.heading,
            [f"{domain}: {n}" for domain, n in figures.referrers] or [words.referrers.none],
        ),
        (
            words.campaigns.heading,
            [f"{s or '-'} / {m or '-'} / {c or '-'}: {n}" for s, m, c, n in figures.campaigns]
            or [words.campaigns.none],
        ),
        (
            words.sources.heading,
            [f"{source}: {n}" for source, n in figures.leads_by_source] or [words.sources.none],
        ),
        (
            words.services.heading,
            [f"{service}: {n}" for service, n in figures.leads_by_service] or [words.services.none],
        ),
        (
            words.funnel.heading,
            [f"{label}: {n}" for label, n in figures.funnel]
            + [
                render(words.funnel.started, forms=_counts(started) or "0"),
                render(
                    words.funnel.leads,
                    sent=leads["sent"],
                    delivered=leads["delivered"],
                    waiting=leads["waiting"],
                    spam=set_aside(leads["spam"]),
                ),
                render(words.funnel.bookings, steps=_counts(steps)),
            ],
        ),
        (words.rates.heading, [f"{rate.label}: {rate_text(rate)}" for rate in figures.rates]),
        (
            words.not_found.heading,
            [
                f"{path} ← {referrer or words.not_found.no_referrer}: {n}"
                for path, referrer, n in figures.not_found
            ]
            or [words.not_found.none],
        ),
        (words.bots.heading, [f"{bot}: {n}" for bot, n in figures.bots] or [words.bots.none]),
    ]


def report_text(figures: Figures) -> str:
    """The whole report, as printed."""
    lines = [title(figures), ""]
    for heading, body in sections(figures):
        lines += [heading, *(f"  {line}" for line in body), ""]
    return "\n".join(lines)

"""The owner's monthly report in words: ``content/es/report.yaml``. The report, its e-mail,
its page, its charts and the desk's "Cifras" say them (``agency_site/report/``).

The report is the owner's and speaks Spanish whatever language is in use: it reads
``WORDS.of(DEFAULT_LOCALE)``; the Catalan twin keeps every content file's structure (as the
owner's digest and alerts do). The months' names are the dates' (``forms.yaml``'s
``dates.months``), said once. Each key that names a value of the code (a device, a
booking's step, a chart) is checked against it (``tests/report/test_report_words.py``).
"""

from pydantic import Field

from agency_site.content.base import Content
from agency_site.content.files import load
from agency_site.content.template import Template
from agency_site.locale import Localized


class SectionWords(Content):
    """A section of the report: its heading and, for a list, what it says when empty."""

    heading: str
    none: str = ""


class VisitsSection(SectionWords):
    total: Template("visits")  # Before the devices, "(móvil 4, ordenador 3)".


class FunnelSection(SectionWords):
    started: Template("forms")  # The forms started, each with its count.
    leads: Template("sent", "delivered", "waiting", "spam")  # {spam}: ``set_aside_*``.
    bookings: Template("steps")  # Each of ``booking_steps`` with its count.


class NotFoundSection(SectionWords):
    no_referrer: str  # A 404 nobody linked to.


class Sections(Content):
    """The report's sections, in the order it shows them."""

    visits: VisitsSection
    referrers: SectionWords
    campaigns: SectionWords
    sources: SectionWords
    services: SectionWords
    funnel: FunnelSection
    rates: SectionWords
    not_found: NotFoundSection
    bots: SectionWords


class Funnel(Content):
    """The steps from a visit to a meeting held, in order."""

    visits: str
    started: str
    sent: str
    requested: str
    confirmed: str
    attended: str


class Rates(Content):
    """The conversion rates, each a step of the funnel against an earlier one."""

    visits_starting: str
    visits_sending: str
    started_sent: str
    requested_confirmed: str
    confirmed_attended: str


class BookingSteps(Content):
    """The bookings by what became of them (a ``BookingStatus`` or an attendance), in order."""

    requested: str
    confirmed: str
    declined: str
    cancelled: str
    expired: str
    attended: str
    no_show: str


class Chart(Content):
    title: str
    series: str  # The bars' legend.
    description: str  # The chart's text alternative, and its caption.


class Charts(Content):
    visits: Chart
    funnel: Chart
    sources: Chart


class MailWords(Content):
    """The month's e-mail to the agency inbox: the key figures, then the link."""

    visits: Template("visits")
    leads: Template("sent", "spam")
    bookings: Template("requested", "confirmed", "attended")
    rates: str  # Before the conversion rates.
    sources: Template("pairs")
    referrers: Template("pairs")
    campaigns: Template("pairs")
    none: str  # A list of pairs with nothing in it.
    link: Template("until")  # Before the link to the whole report.
    no_link: str  # In place of the link when the links have no secret to sign with.


class CliWords(Content):
    """What ``python -m agency_site.report`` tells the operator on its error output."""

    not_a_month: Template("value")  # ``--month`` is no YYYY-MM: {value} as given, quoted.
    ingested: Template("lines")  # ``ingest``: the new lines of the access log read.
    no_secret: str  # ``link`` without BOOKING_LINK_SECRET.
    valid_until: Template("until", "days")  # After the link: its last day, REPORT_LINK_DAYS.
    not_sent: Template("month")  # ``mail``: EmailJS did not take it.
    sent: Template("month", "email")


class ReportWords(Content):
    """Everything the monthly report says."""

    title: Template("month")
    month: Template("month", "year")  # "noviembre de 2026".
    languages: dict[str, str] = Field(min_length=1)  # A page's language, by locale.
    devices: dict[str, str] = Field(min_length=1)  # By ``visitors.device``'s names.
    unsaid: str  # A form started that the browser did not name.
    direct: str  # A lead that came with no campaign nor referring site.
    set_aside_one: Template("count")  # The leads taken for spam, one...
    set_aside_many: Template("count")  # ...or any other number.
    rate: Template("percent", "part", "whole")
    percent: Template("value")  # ``value``: one decimal, with ``decimal_mark``.
    decimal_mark: str
    no_percent: str  # A rate with no denominator.
    sections: Sections
    funnel: Funnel
    rates: Rates
    booking_steps: BookingSteps
    charts: Charts
    mail: MailWords
    cli: CliWords


WORDS = Localized(lambda: load("report.yaml", ReportWords))

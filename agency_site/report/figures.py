"""A month's figures: visits from the daily tables, the funnel from the leads and
bookings tables (read at report time, counted in memory, nothing kept)."""

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field

import sqlalchemy as sa

from agency_site.bookings.models import Attendance, Booking, BookingStatus
from agency_site.content.report import WORDS
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead
from agency_site.leads.statuses import LeadStatus
from agency_site.locale import DEFAULT_LOCALE
from agency_site.report import tables
from agency_site.report.log_lines import ZONE
from agency_site.report.retention import OTHERS

TOP = 10
# The report's words: Spanish whatever language is in use (``content/es/report.yaml``).
_WORDS = WORDS.of(DEFAULT_LOCALE)


@dataclass(frozen=True)
class Rate:
    """A conversion rate with its denominator: ``part`` of ``whole``."""

    label: str
    part: int
    whole: int

    @property
    def percent(self) -> float | None:
        return 100 * self.part / self.whole if self.whole else None


@dataclass
class Figures:
    """Everything the report shows for one month."""

    month: dt.date
    visits_by_day: list[tuple[dt.date, int]] = field(default_factory=list)
    visits_by_page: list[tuple[str, str, int]] = field(default_factory=list)
    devices: Counter = field(default_factory=Counter)
    referrers: list[tuple[str, int]] = field(default_factory=list)
    campaigns: list[tuple[str, str, str, int]] = field(default_factory=list)
    bots: list[tuple[str, int]] = field(default_factory=list)
    not_found: list[tuple[str, str, int]] = field(default_factory=list)
    started: Counter = field(default_factory=Counter)  # By form ("" when not said).
    leads: Counter = field(default_factory=Counter)  # sent, delivered, waiting, spam
    leads_by_source: list[tuple[str, int]] = field(default_factory=list)
    leads_by_service: list[tuple[str, int]] = field(default_factory=list)
    leads_by_form: Counter = field(default_factory=Counter)
    bookings: Counter = field(default_factory=Counter)

    @property
    def visits(self) -> int:
        return sum(views for _, views in self.visits_by_day)

    @property
    def funnel(self) -> list[tuple[str, int]]:
        """The steps from a visit to a meeting held, in order."""
        words = _WORDS.funnel
        return [
            (words.visits, self.visits),
            (words.started, sum(self.started.values())),
            (words.sent, self.leads["sent"]),
            (words.requested, self.bookings["requested"]),
            (words.confirmed, self.bookings["confirmed"]),
            (words.attended, self.bookings["attended"]),
        ]

    @property
    def rates(self) -> list[Rate]:
        started, sent = sum(self.started.values()), self.leads["sent"]
        requested, confirmed = self.bookings["requested"], self.bookings["confirmed"]
        words = _WORDS.rates
        return [
            Rate(words.visits_starting, started, self.visits),
            Rate(words.visits_sending, sent, self.visits),
            Rate(words.started_sent, sent, started),
            Rate(words.requested_confirmed, confirmed, requested),
            Rate(words.confirmed_attended, self.bookings["attended"], confirmed),
        ]


def _sum(connection: sa.Connection, table: sa.Table, start, end, *group: str) -> list[sa.Row]:
    count = tables.count_column(table)
    columns = [table.c[name] for name in group]
    query = (
        sa.select(*columns, sa.func.sum(count).label("n"))
        .where(table.c.day >= start, table.c.day < end)
        .group_by(*columns)
        .order_by(sa.func.sum(count).desc(), *columns)
    )
    return list(connection.execute(query))


def _top(rows: list[tuple], others: bool = True) -> list[tuple]:
    """The ``TOP`` rows of most hits, then the "otros" row of the days' folded rest
    (``retention.py``) when there is one and ``others``."""
    rest = [row for row in rows if row[0] == OTHERS]
    ranked = [row for row in rows if row[0] != OTHERS][:TOP]
    return ranked + (rest if others else [])


def _in_month(moment: dt.datetime, start: dt.date, end: dt.date) -> bool:
    if moment.tzinfo is None:  # SQLite hands back UTC without its zone.
        moment = moment.replace(tzinfo=dt.UTC)
    return start <= moment.astimezone(ZONE).date() < end


def _source(source: dict | None) -> str:
    source = source or {}
    return source.get("utm_source") or source.get("referrer") or _WORDS.direct


def _service_names() -> dict[str, str]:
    from agency_site.content.service_pages import SERVICES

    return {service.id: service.title for service in SERVICES}


def month_figures(engine: sa.Engine, month: dt.date) -> Figures:
    """The figures of ``month`` (any day of it)."""
    start, end = tables.days(month)
    figures = Figures(month=start)
    # A day's margin each side: the leads' instants are in UTC, the month in the agency's zone.
    wide_start = dt.datetime.combine(start - dt.timedelta(days=1), dt.time(), dt.UTC)
    wide_end = dt.datetime.combine(end + dt.timedelta(days=1), dt.time(), dt.UTC)
    with engine.connect() as connection:
        _read_visits(connection, figures, start, end)
        _read_sources(connection, figures, start, end)
        leads = connection.execute(
            sa.select(Lead.kind, Lead.status, Lead.source, Lead.fields, Lead.created_at).where(
                Lead.created_at >= wide_start, Lead.created_at < wide_end
            )
        ).all()
        bookings = connection.execute(
            sa.select(Booking.state, Booking.attendance, Booking.created_at).where(
                Booking.created_at >= wide_start, Booking.created_at < wide_end
            )
        ).all()
    _count_leads(figures, [lead for lead in leads if _in_month(lead.created_at, start, end)])
    _count_bookings(
        figures, [booking for booking in bookings if _in_month(booking.created_at, start, end)]
    )
    return figures


def _read_visits(connection: sa.Connection, figures: Figures, start, end) -> None:
    """The month's visits from the daily tables: by day (every day, 0 when none), by page
    and language, by device, and the forms started."""
    daily = dict(_sum(connection, tables.page_views, start, end, "day"))
    day = start
    while day < end:
        figures.visits_by_day.append((day, int(daily.get(day, 0))))
        day += dt.timedelta(days=1)
    figures.visits_by_page = [
        (row.page, row.language, int(row.n))
        for row in _sum(connection, tables.page_views, start, end, "page", "language")
    ]
    figures.devices = Counter(
        {
            row.device: int(row.n)
            for row in _sum(connection, tables.page_views, start, end, "device")
        }
    )
    figures.started = Counter(
        {row.form: int(row.n) for row in _sum(connection, tables.forms_started, start, end, "form")}
    )


def _read_sources(connection: sa.Connection, figures: Figures, start, end) -> None:
    """Where the month's visits came from and what missed: referrers, campaigns, bots and
    the pages not found, each its ``TOP``."""
    figures.referrers = _top(
        [
            (row.domain, int(row.n))
            for row in _sum(connection, tables.referrers, start, end, "domain")
        ]
    )
    figures.campaigns = _top(
        [
            (row.utm_source, row.utm_medium, row.utm_campaign, int(row.n))
            for row in _sum(
                connection,
                tables.campaigns,
                start,
                end,
                "utm_source",
                "utm_medium",
                "utm_campaign",
            )
        ]
    )
    figures.bots = [
        (row.bot, int(row.n)) for row in _sum(connection, tables.bots, start, end, "bot")
    ]
    figures.not_found = _top(
        [
            (row.path, row.referrer, int(row.n))
            for row in _sum(connection, tables.not_found, start, end, "path", "referrer")
        ],
        others=False,  # No page to redirect.
    )


def _count_leads(figures: Figures, leads: list[sa.Row]) -> None:
    """The month's leads: sent (delivered or waiting) or spam, by form, source and service."""
    by_source, by_service = Counter(), Counter()
    names = _service_names()
    for lead in leads:
        if lead.status == LeadStatus.SPAM:
            figures.leads["spam"] += 1
            continue
        figures.leads["sent"] += 1
        figures.leads["delivered" if lead.status == LeadStatus.SENT else "waiting"] += 1
        figures.leads_by_form[lead.kind] += 1
        by_source[_source(lead.source)] += 1
        if lead.kind == LeadKind.QUOTE and (service := (lead.fields or {}).get("service")):
            by_service[names.get(service, service)] += 1
    figures.leads_by_source = by_source.most_common()
    figures.leads_by_service = by_service.most_common()


def _count_bookings(figures: Figures, bookings: list[sa.Row]) -> None:
    """The month's bookings: requested, by state, attended or not."""
    for booking in bookings:
        figures.bookings["requested"] += 1
        figures.bookings[booking.state] += 1
        if booking.attendance == Attendance.ATTENDED:
            figures.bookings["attended"] += 1
        elif booking.attendance == Attendance.NO_SHOW:
            figures.bookings["no_show"] += 1
    # Confirmed: every booking the agency confirmed (attended or not since).
    figures.bookings["confirmed"] = figures.bookings[BookingStatus.CONFIRMED]

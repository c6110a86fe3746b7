"""The owner's monthly report e-mail: on the 1st of each month, from ``REPORT_MAIL_HOUR``
(agency time), the previous month's key figures in Spanish (visits, leads, conversion, top
sources) and the signed link to its whole page with the charts (``link.py``, ``web.py``),
sent to the agency inbox through the agency template, in the owner's notices' section
(``kind`` ``notice``, ``report_month`` its heading: ``emailjs_templates.py``).

Who sends it: the monitor loop of every backend worker (``plugin.py``: a watcher beside the
owner's morning digest), so it reuses that machinery: the ``lead_monitor`` rows shared by
every worker and host, the process's EmailJS client, the owner's alert webhook.

Once, and never lost:

- the ``report_mail`` row's ``state`` is the last month sent (``2026-11``); a month is due
  once the row says an earlier one. A new site's row is empty: the monitor's first round
  records the month due then without sending it (no e-mail at a first start, on a new
  database, in a test), so the first report is the next full month's;
- a try is claimed with the row's ``due_at`` (``claim_job``: one conditional UPDATE, one
  worker wins), which also spaces the tries ``RETRY_EVERY`` apart; the winner reads the
  row again (another may have sent it meanwhile), sends, and only then writes the month
  into ``state``. A send takes at most the EmailJS timeout, far less than ``RETRY_EVERY``,
  so no second worker tries while the first is sending; a refused send, or a worker that
  dies mid-send, leaves the month due: the next try comes ``RETRY_EVERY`` later. An
  e-mail EmailJS may have sent without answering (a read timeout) is tried again: a
  report twice is better than none;
- still unsent ``ALERT_AFTER`` after it was due, the owner is alerted once (the
  ``report_alert`` row: the month last alerted), and ``/_site/leads/health`` names it
  under ``notes`` (``report_mail_unsent``) until it goes.
"""

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import sqlalchemy as sa

from agency_site.content.site import SITE
from agency_site.content.template import render
from agency_site.emailjs import EmailJSClient
from agency_site.forms.email import NOTICE, date_es, kind_params
from agency_site.leads.jobs import Jobs
from agency_site.report.figures import Figures, month_figures
from agency_site.report.link import ReportLinks, month_key
from agency_site.report.log_lines import ZONE
from agency_site.report.text import WORDS, devices, month_name, rate_text, set_aside, title

logger = logging.getLogger(__name__)

REPORT_MAIL, REPORT_ALERT = "report_mail", "report_alert"
# How often, at most, the workers together try the month's e-mail.
RETRY_EVERY = dt.timedelta(minutes=15)
# Still unsent this long after it was due: the owner is alerted, the health page says so.
ALERT_AFTER = dt.timedelta(hours=2)
TOP_SOURCES = 5

# Sends the agency template with these parameters: whether EmailJS accepted it.
Sender = Callable[[dict[str, str]], Awaitable[bool]]


def emailjs_sender(client: EmailJSClient | None, template_id: str) -> Sender:
    """Sends through ``client`` and the agency template (nothing without either)."""

    async def send(params: dict[str, str]) -> bool:
        if client is None or not template_id:
            logger.error(
                "The monthly report cannot be e-mailed: EmailJS is not configured "
                "(EMAILJS_SERVICE_ID, EMAILJS_PUBLIC_KEY, EMAILJS_CONTACT_TEMPLATE_ID)."
            )
            return False
        return (await client.send(template_id, params)).ok

    return send


def first_of_month(day: dt.date) -> dt.date:
    return day.replace(day=1)


def previous_month(day: dt.date) -> dt.date:
    return first_of_month(first_of_month(day) - dt.timedelta(days=1))


def due_month(now: dt.datetime, hour: int) -> dt.date:
    """The latest month whose report is due at ``now`` (aware): the previous month from the
    1st at ``hour`` o'clock agency time (its wall clock), the one before until then."""
    shifted = now.astimezone(ZONE) - dt.timedelta(hours=hour)  # Wall-clock arithmetic.
    return previous_month(shifted.date())


def due_at(month: dt.date, hour: int) -> dt.datetime:
    """When the report of ``month`` is due: the next month's 1st at ``hour``, agency time."""
    following = first_of_month(month + dt.timedelta(days=31))
    return dt.datetime.combine(following, dt.time(hour), ZONE)


def _pairs(pairs: list[tuple[str, int]]) -> str:
    return ", ".join(f"{name} {n}" for name, n in pairs[:TOP_SOURCES]) or WORDS.mail.none


def summary(figures: Figures, url: str, valid_until: dt.datetime | None) -> str:
    """The e-mail's text: the month's key figures, then the link to the whole report
    (``url`` "": none, the links have no secret)."""
    words = WORDS.mail
    campaigns = [(f"{s or '-'} / {m or '-'} / {c or '-'}", n) for s, m, c, n in figures.campaigns]
    bookings = figures.bookings
    lines = [
        title(figures),
        "",
        render(words.visits, visits=figures.visits) + devices(figures),
        render(words.leads, sent=figures.leads["sent"], spam=set_aside(figures.leads["spam"])),
        render(
            words.bookings,
            requested=bookings["requested"],
            confirmed=bookings["confirmed"],
            attended=bookings["attended"],
        ),
        words.rates,
        *(f"  {rate.label}: {rate_text(rate)}" for rate in figures.rates),
        render(words.sources, pairs=_pairs(figures.leads_by_source)),
        render(words.referrers, pairs=_pairs(figures.referrers)),
        render(words.campaigns, pairs=_pairs(campaigns)),
    ]
    if url and valid_until:
        until = date_es(valid_until.astimezone(ZONE).date().isoformat())
        lines += ["", render(words.link, until=until), url]
    else:
        lines += ["", words.no_link]
    return "\n".join(lines)


def params(figures: Figures, url: str, valid_until: dt.datetime | None) -> dict[str, str]:
    """The agency template's parameters: the owner's notices' section, the report's heading."""
    return {
        "to_email": SITE.email,
        "from_email": SITE.email,
        "message": summary(figures, url, valid_until),
        "report_month": month_name(figures),
    } | kind_params(NOTICE)


@dataclass(frozen=True)
class ReportMail:
    """How a month's report is e-mailed: the database, the links, the sender, the hour."""

    engine: sa.Engine
    links: ReportLinks | None  # None: no secret to sign with (the e-mail says so).
    send: Sender
    hour: int = 8

    async def mail(self, month: dt.date) -> bool:
        """E-mail the report of ``month`` now; whether EmailJS accepted it."""
        figures = await asyncio.to_thread(month_figures, self.engine, month)
        if self.links is None:
            return await self.send(params(figures, "", None))
        return await self.send(params(figures, self.links.url(month), self.links.valid_until()))


async def send_when_due(jobs: Jobs, mail: ReportMail, now: dt.datetime) -> bool:
    """Send the report due at ``now`` if it was not sent and this worker wins the try;
    whether it was sent now."""
    due = due_month(now, mail.hour)
    month = month_key(due)
    told = await asyncio.to_thread(jobs.monitor_state, REPORT_MAIL)
    if not told:  # A new site (or a new database): its first report is the next month's.
        await asyncio.to_thread(jobs.switch_state, REPORT_MAIL, told, month)
        return False
    if told >= month:
        return False  # Sent already.
    if not await asyncio.to_thread(jobs.claim_job, REPORT_MAIL, RETRY_EVERY):
        return False  # Another worker is trying, or one tried less than RETRY_EVERY ago.
    told = await asyncio.to_thread(jobs.monitor_state, REPORT_MAIL)
    if told >= month:
        return False  # Sent by another worker between the first look and the claim.
    if not await mail.mail(due):
        logger.warning("The report of %s was not accepted by EmailJS; tried again later.", month)
        return False
    await asyncio.to_thread(mark_sent, jobs, month)
    logger.info("The report of %s was e-mailed to the owner.", month)
    return True


def mark_sent(jobs: Jobs, month: str) -> None:
    """Record ``month`` as sent (a later month already recorded stays)."""
    told = jobs.monitor_state(REPORT_MAIL)
    if told < month:
        jobs.switch_state(REPORT_MAIL, told, month)


def unsent(jobs: Jobs, hour: int, now: dt.datetime) -> str | None:
    """The month due at ``now`` still unsent ``ALERT_AFTER`` after it was due, or None."""
    month = due_month(now, hour)
    if now - due_at(month, hour) < ALERT_AFTER:
        return None
    key, told = month_key(month), jobs.monitor_state(REPORT_MAIL)
    return key if told and told < key else None

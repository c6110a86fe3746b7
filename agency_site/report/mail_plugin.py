"""The owner's report plugged into the lead core (``LEADS_PLUGINS``, with the bookings by
default): the monthly e-mail as one more watcher of the monitor loop, beside the owner's
morning digest, and its note on ``/_site/leads/health`` while a month's e-mail is unsent.

- ``watchers``: ``mail.send_when_due`` every tick (one worker sends, once a month), then the
  owner's alert once a month's e-mail is still unsent ``mail.ALERT_AFTER`` after it was due;
  and, whatever ``REPORT_MAIL`` says, the daily tables' rows past ``retention.KEEP_MONTHS``
  deleted once a day by each worker (``purge_daily``: one DELETE a table, nothing to do
  after the first worker's);
- ``health``: ``report_mail_unsent`` names that month (the page's status stays as it is:
  the forms work without the report), read from the rows the monitor's last round used.

``REPORT_MAIL=false``: no e-mail's watcher, no note.
"""

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.leads.jobs import Jobs
from agency_site.leads.monitor import Monitor
from agency_site.leads.plugins import LeadPlugin, Watcher
from agency_site.paths import LEADS_HEALTH
from agency_site.report import mail, retention
from agency_site.report.link import ReportLinks
from agency_site.report.log_lines import ZONE
from agency_site.settings import Settings

logger = logging.getLogger(__name__)

# The purpose of the report links' key (``leads/site_secret.py``).
REPORT_LINKS = "report-links"


def report_links(settings: Settings) -> ReportLinks | None:
    """The report's links with the site secret's key for them (``REPORT_LINKS``; until
    ``site_secret.LEGACY_UNTIL`` a link made before, with the booking links' secret, still
    opens), reaching the backend at ``REFLEX_API_URL``; None without a secret."""
    from agency_site.bookings.link_secret import FILE_NAME
    from agency_site.leads.site_secret import transition_keys

    found = transition_keys(settings, REPORT_LINKS, FILE_NAME)
    if not found:
        return None
    return ReportLinks(found, settings.reflex.api_url, settings.report.link_days)


@dataclass
class ReportPlugin(LeadPlugin):
    """The report's hooks with the ``REPORT_*`` settings (``plugin``)."""

    hour: int | None = 8  # REPORT_MAIL_HOUR; None: REPORT_MAIL=false.
    template_id: str = ""  # The agency template's id (EMAILJS_CONTACT_TEMPLATE_ID).
    links: ReportLinks | None = None  # None: no secret (the e-mail goes without its link).
    # The monitor's rows, as the monitor last handed them (the health page reads them).
    jobs: Jobs | None = field(default=None, repr=False)
    # The agency's day this worker last deleted the rows past the retention.
    purged_on: dt.date | None = field(default=None, repr=False)

    def watchers(self, monitor: Monitor) -> list[Watcher]:
        purge = partial(self.purge_daily, monitor)
        if self.hour is None:
            return [purge]
        self.jobs = monitor.store
        return [partial(self.send_when_due, monitor), purge]

    async def purge_daily(self, monitor: Monitor, now: dt.datetime | None = None) -> int:
        """Once a day in this worker: delete the daily tables' rows older than
        ``retention.KEEP_MONTHS`` (``retention.purge``); how many."""
        today = (now or dt.datetime.now(dt.UTC)).astimezone(ZONE).date()
        if self.purged_on == today:
            return 0
        deleted = await asyncio.to_thread(retention.purge_old, monitor.store.engine, today)
        self.purged_on = today
        if deleted:
            logger.info(
                "%s row(s) of the report's daily counts deleted: older than %s months.",
                deleted,
                retention.KEEP_MONTHS,
            )
        return deleted

    def report_mail(self, monitor: Monitor) -> mail.ReportMail:
        """The e-mail through the monitor's database and its delivery's EmailJS client."""
        assert self.hour is not None
        send = mail.emailjs_sender(monitor.delivery.client, self.template_id)
        return mail.ReportMail(monitor.store.engine, self.links, send, self.hour)

    async def send_when_due(self, monitor: Monitor, now: dt.datetime | None = None) -> bool:
        """The month's e-mail when due (``mail.send_when_due``); the owner alerted once when
        it is still unsent ``mail.ALERT_AFTER`` after it was due."""
        if self.hour is None:
            return False
        now = now or dt.datetime.now(dt.UTC)
        store = monitor.store
        sent = await mail.send_when_due(store, self.report_mail(monitor), now)
        month = await asyncio.to_thread(mail.unsent, store, self.hour, now)
        if month is not None:
            await self.alert_once(monitor, month)
        return sent

    async def alert_once(self, monitor: Monitor, month: str) -> None:
        """Tell the owner, once per month (the ``report_alert`` row), that ``month``'s e-mail
        is still unsent."""
        store = monitor.store
        told = await asyncio.to_thread(store.monitor_state, mail.REPORT_ALERT)
        if told >= month:
            return
        if not await asyncio.to_thread(store.switch_state, mail.REPORT_ALERT, told, month):
            return  # Another worker tells it.
        logger.error("The report of %s could not be e-mailed yet; retried.", month)
        status_url = f"{monitor.site_url}{LEADS_HEALTH}"
        await monitor.alert(render(ALERTS.report_unsent, month=month, status_url=status_url))

    def health(self, now: dt.datetime) -> dict[str, Any]:
        if self.hour is None or self.jobs is None:  # Before the monitor's first round.
            return {}
        month = mail.unsent(self.jobs, self.hour, now)
        return {"report_mail_unsent": month} if month else {}


def plugin(settings: Settings) -> ReportPlugin:
    """The report of these settings (``LEADS_PLUGINS`` loads it)."""
    report = settings.report
    return ReportPlugin(
        hour=report.mail_hour if report.mail else None,
        template_id=settings.emailjs.contact_template_id,
        links=report_links(settings),
    )

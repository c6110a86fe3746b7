"""The owner's alerts about this host's spool, run by the drain loop of every backend
worker (``spool_drain.drain_forever``, through ``Monitor.watch_spool``).

While the database is down the table cannot say what the owner was told, so the spool's
alert state is a file of the spool folder (``.alerted``, created with ``O_EXCL`` by exactly
one worker of the host): one alert once a lead has waited ``LEADS_SPOOL_ALERT_SECONDS``,
one more when the spool is empty. Lines the drain could not store and set aside
(quarantine) are told too: the count the owner was last told is the file
``.aside-alerted``, changed under its lock, so one worker of the host tells each increase.
And the spool's lines past the retention period are deleted (the host's own files: the
daily purge runs on one host only).
"""

import asyncio
import datetime as dt
import fcntl
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.leads.models import utcnow
from agency_site.leads.rgpd import retention_cutoff
from agency_site.leads.spool import Spool

logger = logging.getLogger(__name__)

SPOOL_ALERTED, ASIDE_ALERTED = ".alerted", ".aside-alerted"

Alert = Callable[[str], Awaitable[Any]]


def _minutes(delta: dt.timedelta) -> int:
    return max(1, round(delta.total_seconds() / 60))


def purge_spool(spool: Spool, retention_months: int) -> int:
    """Delete the lines of this host's spool files past the retention period; how many."""
    deleted = spool.purge(retention_cutoff(retention_months))
    if deleted:
        logger.info(
            "%s line(s) of the spool folder deleted: older than the retention of %s months.",
            deleted,
            retention_months,
        )
    return deleted


def aside_news(spool: Spool) -> int:
    """How many lines are set aside, when more than the owner was last told (else 0)."""
    count = sum(1 for _ in spool.lines(spool.aside()))
    marker = spool.folder / ASIDE_ALERTED
    if not count and not marker.exists():
        return 0
    fd = os.open(marker, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
        told = int(text) if text.isdigit() else 0
        if count != told:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{count}\n".encode(), 0)
            os.fsync(fd)
        return count if count > told else 0
    finally:
        os.close(fd)


async def watch_spool(
    spool: Spool, alert: Alert, alert_after: dt.timedelta, retention_months: int
) -> None:
    """Alert once while this host's spool has held a lead longer than ``alert_after``, and
    once when empty; alert when lines are set aside; delete the lines past the retention
    period."""
    await _watch_waiting(spool, alert, alert_after)
    if aside := await asyncio.to_thread(aside_news, spool):
        logger.error("%s spooled line(s) could not be stored and are set aside.", aside)
        await alert(render(ALERTS.spool_quarantined, count=aside, folder=spool.folder))
    await asyncio.to_thread(purge_spool, spool, retention_months)


async def _watch_waiting(spool: Spool, alert: Alert, alert_after: dt.timedelta) -> None:
    """The alerts of leads waiting in this host's spool (``watch_spool``)."""
    oldest = await asyncio.to_thread(spool.oldest)
    marker = spool.folder / SPOOL_ALERTED
    if oldest is not None and utcnow() - oldest > alert_after:
        try:
            spool.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            return
        count = sum(1 for _ in spool.leads())
        logger.error("%s lead(s) wait in the spool: the database does not answer.", count)
        await alert(
            render(
                ALERTS.spool_waiting,
                count=count,
                minutes=_minutes(alert_after),
                folder=spool.folder,
            )
        )
    elif oldest is None:
        try:
            marker.unlink()
        except FileNotFoundError:
            return
        await alert(ALERTS.spool_drained)

"""The desk plugged into the lead core (``LEADS_PLUGINS``, with the bookings and the report by
default): its ``forget`` deletes the pipeline stages and private notes of the leads an
erasure or a purge deletes, in that transaction (``pipeline.forget``); one more watcher of
the monitor's loop, its daily round (the ``desk_purge`` row of
``lead_monitor``, claimed by one worker a day, as the leads' own purge): the audit log's
lines past ``DESK_AUDIT_MONTHS`` (and the privacy requests closed that long ago), the
sessions that ended by themselves, the challenges never answered and the invites past
their day."""

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass
from functools import partial

import sqlalchemy as sa
from sqlmodel import col

from agency_site.desk import audit, pipeline, privacy_table, sessions
from agency_site.desk.models import DeskChallenge, DeskInvite
from agency_site.leads.monitor import Monitor
from agency_site.leads.plugins import LeadPlugin, Watcher
from agency_site.settings import Settings

logger = logging.getLogger(__name__)

PURGE_JOB = "desk_purge"
PURGE_EVERY = dt.timedelta(days=1)


@dataclass(frozen=True)
class DeskPurged:
    """What one round deleted."""

    audit: int
    sessions: int
    challenges: int
    invites: int
    requests: int = 0  # Privacy requests closed more than DESK_AUDIT_MONTHS ago.


def purge(
    engine: sa.Engine,
    now: dt.datetime,
    audit_months: int,
    idle: dt.timedelta,
    max_age: dt.timedelta,
) -> DeskPurged:
    """Delete what the desk keeps no longer (module doc); how many of each."""
    lines = audit.purge(engine, audit_months, now)
    requests = privacy_table.purge_closed(engine, audit_months, now)
    ended = sessions.purge(engine, now, idle, max_age)
    with engine.begin() as connection:
        challenges = connection.execute(
            sa.delete(DeskChallenge).where(col(DeskChallenge.expires_at) < now)
        ).rowcount
        invites = connection.execute(
            sa.delete(DeskInvite).where(col(DeskInvite.expires_at) < now - dt.timedelta(days=1))
        ).rowcount
    if lines:
        logger.info(
            "%s line(s) of the desk's audit log deleted after %s months.", lines, audit_months
        )
    return DeskPurged(lines, ended, challenges, invites, requests)


@dataclass
class DeskPlugin(LeadPlugin):
    """The desk's hooks with the ``DESK_*`` settings (``plugin``)."""

    audit_months: int = 24
    idle: dt.timedelta = dt.timedelta(minutes=30)
    max_age: dt.timedelta = dt.timedelta(hours=12)

    def watchers(self, monitor: Monitor) -> list[Watcher]:
        return [partial(self.purge_when_due, monitor)]

    def forget(self, connection: sa.Connection) -> None:
        """The leads just erased or purged: their pipeline stages and private notes go."""
        pipeline.forget(connection)

    async def purge_when_due(self, monitor: Monitor) -> DeskPurged | None:
        """The daily round, if due and this worker claimed it."""
        store = monitor.store
        if not await asyncio.to_thread(store.claim_job, PURGE_JOB, PURGE_EVERY):
            return None
        now = dt.datetime.now(dt.UTC)
        return await asyncio.to_thread(
            purge, store.engine, now, self.audit_months, self.idle, self.max_age
        )


def plugin(settings: Settings) -> DeskPlugin:
    """The desk of these settings (``LEADS_PLUGINS`` loads it)."""
    desk = settings.desk
    return DeskPlugin(
        audit_months=desk.audit_months,
        idle=dt.timedelta(minutes=desk.idle_minutes),
        max_age=dt.timedelta(hours=desk.max_hours),
    )

"""The owner's side of the leads, run by every backend worker: alerts, canary and purge.

- **Alert**: when leads become held (EmailJS refuses the configuration) the owner's
  webhook (``LEADS_ALERT_WEBHOOK_URL``) gets one JSON ``{"text": ...}`` in Spanish, and
  one more when none is held any longer. "Once" holds across workers and hosts: the
  state the owner was last told is a row of ``lead_monitor`` changed by a conditional
  UPDATE, and only the worker whose UPDATE changed it sends.
- **Canary**: the fix of a refused configuration happens in the EmailJS dashboard, so
  nothing here changes and a restart would not help. While leads are held, one worker
  at a time (the ``canary`` row, claimed like a lead) retries ONE of them every
  ``LEADS_CANARY_INTERVAL_SECONDS``; when EmailJS accepts it, every held lead is queued
  again and the normal retry loop delivers each once, one per second.
- **Purge**: once a day (the ``purge`` row) the leads past the retention period are
  deleted (see ``LeadStore.purge``): the webhook endpoints their messages reached get a
  ``lead.erased`` (a CRM deletes its record), and what stays where nothing can delete
  it (a chat's messages, HubSpot) is logged with ids only and sent to the owner, to
  delete by hand. Then the leads taken for spam the owner was shown more than
  ``LEADS_SPAM_KEEP_DAYS`` ago; deleting is idempotent anyway.
- **Spam digest**: once a day (the ``spam_digest`` row) the leads taken for spam not
  shown yet are listed to the owner (kind, reason, when received, number; no name nor
  address, as every alert), with the desk's spam page, through the alert webhook, or the
  agency e-mail without one. Only a digest really delivered marks them shown
  (``spam_listed_at``, ``rgpd.mark_spam_listed``), starting their keep days; one that
  fails is tried again an hour later. Spam not shown two days after it arrived
  (``rgpd.SPAM_LISTING_LATE``) is kept, and the owner alerted once (``spam_unlisted_alert``)
  and once more when none is left.
- **Plugins' watchers**: after its own rounds, each tick runs the plugins' watchers
  (``LeadPlugin.watchers``: the bookings' unanswered alert and expiry).
- **Late leads**: once when a queued lead has waited longer than
  ``LEADS_ALERT_QUEUED_AGE_SECONDS`` (the ``queued_alert`` row), and once more when none
  has; once for each lead EmailJS refuses for its content (``rejected_alert`` keeps the
  count the owner was told).
- **Spool**: the alerts of this host's spool (a lead waiting, lines set aside) and its
  lines past the retention period, run by the drain loop (``watch_spool``,
  ``spool_watch.py``).
"""

import asyncio
import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import httpx

from agency_site.content.owner_alerts import ALERTS
from agency_site.content.template import render
from agency_site.forms.email import NOTICE, kind_params
from agency_site.leads.delivery import Delivery
from agency_site.leads.lease import new_claim_token
from agency_site.leads.loop import forever
from agency_site.leads.models import Lead, utcnow
from agency_site.leads.rgpd import SPAM_LISTING_LATE, mark_spam_listed, retention_cutoff
from agency_site.leads.spool import Spool
from agency_site.leads.spool_watch import purge_spool, watch_spool
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import LeadSummary
from agency_site.leads.webhooks.channel import WebhookChannel
from agency_site.paths import LEADS_HEALTH
from agency_site.rules import AGENCY_TIME_ZONE

logger = logging.getLogger(__name__)

HELD_ALERT, CANARY, PURGE = "held_alert", "canary", "purge"
QUEUED_ALERT, REJECTED_ALERT = "queued_alert", "rejected_alert"
SPAM_DIGEST, SPAM_UNLISTED_ALERT = "spam_digest", "spam_unlisted_alert"
OK, HELD, LATE = "ok", "held", "late"
SPOOL_ALERTED, ASIDE_ALERTED = ".alerted", ".aside-alerted"
PURGE_EVERY = dt.timedelta(days=1)
SPAM_DIGEST_EVERY = dt.timedelta(days=1)
SPAM_DIGEST_RETRY = dt.timedelta(hours=1)  # After a digest the channel did not take.
SPAM_DIGEST_LINES = 30  # Leads listed one by one; the others counted by reason.
SPAM_DIGEST_MOST = 2000  # Leads one digest covers (a flood's rest: the next day's).
WEBHOOK_TRIES = 3


def held_text(summary: LeadSummary, error: str, canary_every: dt.timedelta, site: str) -> str:
    """The alert when leads become held: what happened and what to do (content/es)."""
    text = ALERTS.held_one if summary.held == 1 else ALERTS.held_many
    return render(
        text,
        count=summary.held,
        error=error or ALERTS.no_detail,
        minutes=max(1, round(canary_every.total_seconds() / 60)),
        status_url=f"{site}{LEADS_HEALTH}",
    )


def recovered_text(summary: LeadSummary, site: str) -> str:
    """The alert when no lead is held any longer."""
    waiting = summary.queued + summary.sending
    pending = ALERTS.pending_one if waiting == 1 else render(ALERTS.pending_many, count=waiting)
    return render(ALERTS.recovered, pending=pending, status_url=f"{site}{LEADS_HEALTH}")


def _minutes(delta: dt.timedelta) -> int:
    return max(1, round(delta.total_seconds() / 60))


def _local(moment: dt.datetime, pattern: str) -> str:
    """``moment`` (UTC, naive from SQLite) on the agency's clock."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return aware.astimezone(ZoneInfo(AGENCY_TIME_ZONE)).strftime(pattern)


def spam_reason_words(reason: str | None) -> str:
    """Why a lead was taken for spam, in the owner's words (``spam_reason_<reason>``); a
    lead stored before the reasons were kept was the honeypot's."""
    return str(getattr(ALERTS, f"spam_reason_{reason or 'honeypot'}", reason))


def spam_digest_text(leads: Sequence[Lead], now: dt.datetime, keep_days: int, desk_url: str) -> str:
    """The daily spam digest (content/es: ``spam_digest``): each lead's number, form,
    reason and arrival, the first ``SPAM_DIGEST_LINES``, the others counted by reason;
    when they go unless released (``keep_days`` from ``now``); the desk's spam page."""
    lines = [
        render(
            ALERTS.spam_digest_line,
            lead_id=lead.id,
            kind=lead.kind,
            reason=spam_reason_words(lead.spam_reason),
            received=_local(lead.created_at, "%d/%m/%Y %H:%M"),
        )
        for lead in leads[:SPAM_DIGEST_LINES]
    ]
    if rest := leads[SPAM_DIGEST_LINES:]:
        counts: dict[str, int] = {}
        for lead in rest:
            reason = spam_reason_words(lead.spam_reason)
            counts[reason] = counts.get(reason, 0) + 1
        reasons = ", ".join(f"{count} {reason}" for reason, count in counts.items())
        lines.append(render(ALERTS.spam_digest_more, count=len(rest), reasons=reasons))
    return render(
        ALERTS.spam_digest,
        count=len(leads),
        days=keep_days,
        until=_local(now + dt.timedelta(days=keep_days), "%d/%m/%Y"),
        desk_url=desk_url,
        leads="\n".join(lines),
    )


async def post_alert(webhook_url: str, text: str, timeout_s: float = 10.0) -> bool:
    """POST ``{"text": text}`` to the owner's webhook (a few tries); True if it took it."""
    if not webhook_url:
        logger.error("Owner alert (no LEADS_ALERT_WEBHOOK_URL set): %s", text)
        return False
    for attempt in range(WEBHOOK_TRIES):
        if attempt:
            await asyncio.sleep(2**attempt)
        try:
            async with httpx.AsyncClient(timeout=timeout_s) as client:
                response = await client.post(webhook_url, json={"text": text})
        except httpx.HTTPError as error:
            problem = type(error).__name__
        else:
            if response.is_success:
                return True
            problem = f"HTTP {response.status_code}"
        logger.warning("The alert webhook did not take the alert (%s).", problem)
    logger.error("The alert could not be delivered to LEADS_ALERT_WEBHOOK_URL: %s", text)
    return False


@dataclass
class Monitor:
    """The owner's side of one backend worker (or of the operator command)."""

    delivery: Delivery
    webhook_url: str  # "" for no webhook.
    canary_every: dt.timedelta
    retention_months: int
    site_url: str
    webhook_timeout_s: float = 10.0
    # Alert when a queued lead waits longer than this (None: never).
    queued_alert_after: dt.timedelta | None = None
    # This host's spool, and how long a lead may wait in it before the owner is alerted.
    spool: Spool | None = None
    spool_alert_after: dt.timedelta = dt.timedelta(minutes=5)
    # Days a lead taken for spam is kept, once shown to the owner, for them to release it.
    spam_keep_days: int = 7
    # The desk's spam page, absolute (the spam digest links to it).
    desk_url: str = ""
    # The agency template (EMAILJS_CONTACT_TEMPLATE_ID): the spam digest goes through it to
    # the agency inbox when no alert webhook is set.
    agency_template: str = ""
    # The webhooks (where the purged leads' copies went, to list what stays by hand).
    webhooks: WebhookChannel | None = None

    @property
    def store(self):
        return self.delivery.store

    def purge(self) -> int:
        """Delete the leads past the retention period now; how many (``purge_and_tell``
        also tells the owner what to delete by hand)."""
        return self._purge()[0]

    def _purge(self) -> tuple[int, list[str]]:
        """``purge``, and where the purged leads' copies stay for the agency to delete by
        hand (``WebhookChannel.by_hand``: ids only), logged."""
        purged = self.store.purge(retention_cutoff(self.retention_months))
        if purged.deleted:
            logger.info(
                "%s lead(s) deleted: retention of %s months after the person's last contact.",
                purged.deleted,
                self.retention_months,
            )
        by_hand = self.webhooks.by_hand(purged.erasures) if self.webhooks is not None else []
        if purged.erasures:
            logger.info(
                "lead.erased queued for the %s webhook endpoint(s) the purged leads reached.",
                len({erasure.endpoint for erasure in purged.erasures}),
            )
        if by_hand:
            logger.warning("Purged leads' copies to delete by hand: %s.", "; ".join(by_hand))
        spam = self.store.purge_spam(utcnow() - dt.timedelta(days=self.spam_keep_days))
        if spam:
            logger.info(
                "%s lead(s) taken for spam deleted %s days after they were shown.",
                spam,
                self.spam_keep_days,
            )
        return purged.deleted + spam, by_hand

    async def purge_and_tell(self) -> int:
        """``purge``; the owner told what stays at destinations that cannot delete it
        (``tell_owner``: the alert webhook, or the agency inbox)."""
        deleted, by_hand = await asyncio.to_thread(self._purge)
        if by_hand:
            await self.tell_owner(
                render(
                    ALERTS.purge_by_hand, months=self.retention_months, places="; ".join(by_hand)
                )
            )
        return deleted

    async def tick(self) -> None:
        """One round: the daily purge if due, the spam digest if due and its alert, the
        held-leads alert and canary, the late leads' alerts, then the plugins' watchers."""
        if await asyncio.to_thread(self.store.claim_job, PURGE, PURGE_EVERY):
            await self.purge_and_tell()
        await self.spam_digest()
        await self.watch_unlisted_spam()
        await self.watch_held()
        await self.watch_late()
        for watcher in self.store.plugins.watchers(self):
            await watcher()

    async def watch_late(self) -> None:
        """Tell the owner when queued leads wait too long, and about leads refused for content."""
        summary = await asyncio.to_thread(self.store.summary)
        status_url = f"{self.site_url}{LEADS_HEALTH}"
        if self.queued_alert_after is not None:
            oldest = summary.oldest_waiting_at
            late = oldest is not None and utcnow() - oldest > self.queued_alert_after
            old, new = (OK, LATE) if late else (LATE, OK)
            if await asyncio.to_thread(self.store.switch_state, QUEUED_ALERT, old, new):
                text = ALERTS.queued_late if late else ALERTS.queued_recovered
                waiting = summary.queued + summary.sending
                await self.alert(
                    render(
                        text,
                        count=waiting,
                        minutes=_minutes(self.queued_alert_after),
                        status_url=status_url,
                    )
                )
        told = await asyncio.to_thread(self.store.monitor_state, REJECTED_ALERT)
        if str(summary.rejected) == told:
            return
        switched = await asyncio.to_thread(
            self.store.switch_state, REJECTED_ALERT, told, str(summary.rejected)
        )
        if switched and told.isdigit() and summary.rejected > int(told):
            await self.alert(render(ALERTS.rejected, count=summary.rejected))

    def purge_spool(self) -> int:
        """Delete the lines of this host's spool files past the retention period; how many."""
        return 0 if self.spool is None else purge_spool(self.spool, self.retention_months)

    async def watch_spool(self) -> None:
        """The owner's alerts about this host's spool, and its lines past the retention
        period deleted (``spool_watch.py``)."""
        if self.spool is not None:
            await watch_spool(self.spool, self.alert, self.spool_alert_after, self.retention_months)

    async def watch_held(self) -> None:
        """Tell the owner when leads become held and when they recover; run the canary."""
        summary = await asyncio.to_thread(self.store.summary)
        if summary.held:
            if await asyncio.to_thread(self.store.switch_state, HELD_ALERT, OK, HELD):
                # Just refused: the canary tries again only after a full interval.
                await asyncio.to_thread(self.store.postpone_job, CANARY, self.canary_every)
                held = await asyncio.to_thread(self.store.all, LeadStatus.HELD)
                error = (held[0].last_error or "") if held else ""
                logger.error(
                    "%s lead(s) held: EmailJS refuses the configuration (%s). Retried every "
                    "%s s; fix it in the EmailJS dashboard.",
                    summary.held,
                    error,
                    int(self.canary_every.total_seconds()),
                )
                await self.alert(held_text(summary, error, self.canary_every, self.site_url))
            else:
                await self.canary()
        elif await asyncio.to_thread(self.store.switch_state, HELD_ALERT, HELD, OK):
            logger.warning("No lead is held any longer: EmailJS accepts the configuration.")
            await self.alert(recovered_text(summary, self.site_url))

    async def canary(self) -> bool:
        """If this worker wins the due canary, retry ONE held lead; True when it got through."""
        if not self.delivery.configured:
            return False
        if not await asyncio.to_thread(self.store.claim_job, CANARY, self.canary_every):
            return False
        token = new_claim_token()
        lead = await asyncio.to_thread(self.store.claim_held, token, self.delivery.policy.lease)
        if lead is None:
            return False
        logger.info("Held lead %s tried again to see whether EmailJS accepts now.", lead.id)
        result = await self.delivery.attempt_claimed(lead, token)
        if not result.ok:
            return False
        released = await asyncio.to_thread(self.store.release_all_held)
        logger.warning(
            "EmailJS accepts the configuration again: %s held lead(s) queued for delivery.",
            released,
        )
        return True

    async def alert(self, text: str) -> bool:
        """POST ``{"text": text}`` to the owner's webhook (a few tries); True if it took it."""
        return await post_alert(self.webhook_url, text, self.webhook_timeout_s)

    @property
    def can_tell(self) -> bool:
        """Whether the owner can be told anything: an alert webhook, or EmailJS and the
        agency template."""
        return bool(self.webhook_url) or (
            self.delivery.client is not None and bool(self.agency_template)
        )

    async def tell_owner(self, text: str) -> bool:
        """``text`` to the owner: the alert webhook, or without one the agency inbox (the
        agency template's notices); True if it was taken."""
        if self.webhook_url:
            return await self.alert(text)
        client = self.delivery.client
        if client is None or not self.agency_template:
            logger.error(
                "The owner cannot be told (set LEADS_ALERT_WEBHOOK_URL, or EmailJS): %s",
                text.splitlines()[0],
            )
            return False
        inbox = self.delivery.to_email
        params = {"to_email": inbox, "from_email": inbox, "message": text} | kind_params(NOTICE)
        return (await client.send(self.agency_template, params)).ok

    async def spam_digest(self, now: dt.datetime | None = None) -> bool:
        """If due and won by this worker: list the spam not shown yet to the owner, and
        mark it shown only when the digest was taken; whether one was delivered now."""
        if not await asyncio.to_thread(self.store.claim_job, SPAM_DIGEST, SPAM_DIGEST_EVERY):
            return False
        leads = await asyncio.to_thread(self.store.unlisted_spam, SPAM_DIGEST_MOST)
        if not leads:
            return False
        now = now or utcnow()
        text = spam_digest_text(leads, now, self.spam_keep_days, self.desk_url)
        if not await self.tell_owner(text):
            if self.can_tell:  # A channel that failed now: again in an hour, not tomorrow.
                await asyncio.to_thread(self.store.postpone_job, SPAM_DIGEST, SPAM_DIGEST_RETRY)
            logger.warning("The spam digest of %s lead(s) was not delivered.", len(leads))
            return False
        ids = [lead.id for lead in leads if lead.id is not None]
        await asyncio.to_thread(mark_spam_listed, self.store.engine, ids, now)
        logger.info("The spam digest listed %s lead(s) to the owner: %s.", len(ids), ids[:50])
        return True

    async def watch_unlisted_spam(self) -> None:
        """Alert once while spam waits unshown past ``SPAM_LISTING_LATE`` (the digest not
        getting through), and once when none does."""
        late = await asyncio.to_thread(self.store.unlisted_spam_count)
        old, new = (OK, LATE) if late else (LATE, OK)
        if not await asyncio.to_thread(self.store.switch_state, SPAM_UNLISTED_ALERT, old, new):
            return
        if late:
            logger.error("%s lead(s) taken for spam were never shown to the owner.", late)
            hours = round(SPAM_LISTING_LATE.total_seconds() / 3600)
            text = render(
                ALERTS.spam_unlisted,
                count=late,
                hours=hours,
                months=self.retention_months,
                desk_url=self.desk_url,
            )
        else:
            text = ALERTS.spam_unlisted_recovered
        await self.alert(text)

    async def run_forever(self, poll: dt.timedelta) -> None:
        """Every ``poll``: one round (errors are logged and the loop carries on)."""
        await forever(self.tick, poll, "The leads monitor")

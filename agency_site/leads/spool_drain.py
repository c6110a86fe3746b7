"""The spool's drain: every lead this host spooled while the database was down, moved into
it exactly once (by its idempotency key), in every backend worker (``drain_forever``).

Each line is stored as the intake would have stored it, with one difference: the visitor
was told "received", so what the plugins cannot hold any longer (a booking's slot taken
meanwhile, busy, or over a cap: the caps are counted here, with the network of the request
that sent it) is the agency's to sort out, never a lost lead: it is stored anyway, holding
what it can (``Hold(strict=False)``), and the plugin notes why. A line that carried a solved
proof of work releases the lead in quarantine it solves (``release_solved``). The database
down again: the file stays as it was, drained next time; a line it refuses for its
content is set aside (``spool.QUARANTINE``) and the drain goes on.
"""

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agency_site.leads.database import DownMark, Failure, error_line, failure, refused_column
from agency_site.leads.plugins import Hold
from agency_site.leads.spool import Spool, SpooledLead, Unstorable
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import DuplicateSubmission, LeadStore

if TYPE_CHECKING:
    from agency_site.leads.monitor import Monitor

logger = logging.getLogger(__name__)


@dataclass
class SpoolDrain:
    """The drain of this host's ``spool`` into ``store``; ``down``: the intake's mark of a
    database found down, cleared once the spool drained (it answers again)."""

    store: LeadStore
    spool: Spool | None
    lease: dt.timedelta
    down: DownMark = field(default_factory=DownMark)

    @classmethod
    def of(cls, intake: Any) -> "SpoolDrain":
        """The drain of a ``LeadIntake``'s spool, into its store, clearing its down mark."""
        return cls(intake.store, intake.spool, intake.delivery.policy.lease, intake.down)

    def store_spooled(self, lead: SpooledLead) -> bool:
        """Insert one drained lead, queued for the retry loop; False if it was already stored.

        A lead that carried a solved proof of work (``lead.solves``) releases the lead of
        the submission it solves, if that is still in quarantine for a soft reason, as the
        intake would have (``release_solved``), instead of being stored again.
        """
        if lead.solves is not None and (released := self.release_solved(lead)) is not None:
            return released
        try:
            self.store.add_lead(
                lead.kind,
                lead.fields,
                claim_token=None,
                lease=self.lease,
                idempotency_key=lead.key,
                autoreply_day=lead.autoreply_day,
                created_at=lead.created_at,
                # Told "received": stored holding what it can; spam holds nothing until
                # it is released.
                hold=None if lead.spam else Hold(strict=False, network=lead.network),
                source=lead.source,
                language=lead.language,
                spam=lead.spam,
            )
        except DuplicateSubmission:
            return False
        return True

    def release_solved(self, lead: SpooledLead) -> bool | None:
        """The drain of a submission that carried a solved proof for ``lead.solves``: that
        key's lead, in quarantine for a soft reason and of the same form, is released
        (holding what it can, the caps counted with the line's network: the visitor was
        told "received"), corrected with this one's fields and key when they differ, or,
        when this one is suspect for a hard reason, kept in quarantine with them. Whether
        a lead was released now; None when there is no such lead (stored as it says)."""
        assert lead.solves is not None
        found = self.store.by_key(lead.solves)
        reason = SpamReason(found.spam_reason) if found and found.spam_reason else None
        if found is None or found.id is None or found.status != LeadStatus.SPAM:
            return None
        if found.kind != lead.kind or reason is None or not reason.soft:
            return None
        if lead.spam is not None and not lead.spam.soft:
            self.store.requarantine(found.id, lead.fields, lead.key, lead.language, lead.spam)
            return False
        corrected = (
            {}
            if lead.solves == lead.key
            else {"fields": lead.fields, "idempotency_key": lead.key, "language": lead.language}
        )
        hold = Hold(strict=False, network=lead.network)
        try:
            return bool(self.store.release_spam(found.id, hold=hold, **corrected))
        except DuplicateSubmission:
            return False

    def drain(self) -> int:
        """Move every spooled lead into the database (exactly once); how many were new.

        Raises when the database is down (``failure``: the spool stays as it was, drained
        next time); a lead it refuses otherwise is set aside (``spool.QUARANTINE``) and the
        drain goes on.
        """
        if self.spool is None or not self.spool.files():
            return 0
        added = 0

        def store(lead: SpooledLead) -> None:
            nonlocal added
            try:
                added += self.store_spooled(lead)
            except Exception as error:
                failed = failure(error)
                if failed is Failure.OUTAGE:
                    raise
                column = refused_column(error) if failed is Failure.CONTENT else "-"
                raise Unstorable(f"{failed}, column {column}: {error_line(error)}") from error

        handed = self.spool.drain(store)
        if handed:
            self.down.clear()
            logger.warning(
                "%s spooled lead(s) moved into the database (%s new); delivery goes on.",
                handed,
                added,
            )
        return added


async def drain_forever(
    drain: SpoolDrain, monitor: "Monitor", ready: asyncio.Event, poll_s: float
) -> None:
    """Every ``poll_s``: move spooled leads into the (migrated) database once ``ready``;
    watch the spool for the owner's alerts all along (``Monitor.watch_spool``)."""
    failing = False
    while True:
        if ready.is_set():
            try:
                await asyncio.to_thread(drain.drain)
            except Exception as error:
                if not failing:
                    logger.warning(
                        "Spooled leads wait: the database does not take them yet (%s).",
                        type(error).__name__,
                    )
                failing = True
            else:
                failing = False
        try:
            await monitor.watch_spool()
        except Exception:
            logger.exception("The spool watch failed; it carries on.")
        await asyncio.sleep(poll_s)

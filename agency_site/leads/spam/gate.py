"""The spam gate of a submission (``LeadIntake``'s): its proof of work, the rate limit's
pass for a solved one, and the decision on a valid one: clean (the intake stores it),
quarantined (stored as spam: answered as real, or asked for a proof of work), or released
(the lead its solved challenge stands for, out of quarantine).

- **The proof** (``proof``): a challenge this submission was asked for, solved
  (``challenge.py``); it passes the soft spam reasons, and the rate limit up to its
  ceiling. One solved for an earlier version of it still in quarantine (the visitor
  changed it after its release was refused: the page sends it under a new key with the
  old proof) stands for that version: the lead takes the corrected fields (``correcting``).
- **The limit** (``limit``): every submission counts, solved ones too; past the limit a
  solved one passes while the address is under its ceiling of those
  (``RateLimiter.hit_solved``), an unsolved valid one is asked for a proof of work.
- **The verdict** (``decide``): a filled honeypot, or the screen's reason (``screen.py``),
  quarantines the lead unless it is soft and solved; a solved submission releases its
  lead from quarantine, holding what comes with it as the intake would (``plugins.Hold``),
  in the release's transaction; refused, the lead stays in quarantine and the visitor
  gets the form's field errors, to send it again changed.

A check that cannot tell (the screen failing, the database not answering a lookup) never
keeps a lead from the agency: the submission goes on as an unsolved, clean one.
"""

import asyncio
import contextvars
import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Protocol

from agency_site.forms.declarations import CHALLENGE_FIELD
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result, Submission
from agency_site.leads.database import DB_THREADS, Failure, failure, refused_column
from agency_site.leads.delivery import Delivery
from agency_site.leads.lease import new_claim_token
from agency_site.leads.models import Lead, utcnow
from agency_site.leads.plugins import Hold, Refused
from agency_site.leads.problems import loggable
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.spam.challenge import Challenges
from agency_site.leads.spam.screen import SpamScreen
from agency_site.leads.spool import SpooledLead
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import DuplicateSubmission, LeadStore, Release
from agency_site.leads.validation import HONEYPOT_FIELD

logger = logging.getLogger(__name__)


class Outlet(Protocol):
    """What the gate hands back to the intake (``LeadIntake``): a lead to spool, a released
    lead's first send, the answer to a lead refused for its content."""

    async def spool_lead(self, line: SpooledLead, stored: asyncio.Event) -> Submission: ...

    async def first_send(self, lead: Lead, token: str) -> Submission: ...

    def content_refused(self, kind: LeadKind, column: str) -> Submission: ...


@dataclass(frozen=True)
class Proof:
    """What a submission's solved challenge stands for: ``solves``, the idempotency key of
    the submission whose challenge it carries solved (ours, not expired), or None;
    ``correcting``, the quarantined lead of that key when it is not the submission's own."""

    solves: str | None = None
    correcting: int | None = None
    solved: bool = False


class SpamGate:
    """The spam checks of one intake: its ``limiter``, its ``screen`` (None: the honeypot is
    the only check) and the store and delivery a released lead goes through."""

    def __init__(
        self,
        store: LeadStore,
        delivery: Delivery,
        limiter: RateLimiter,
        screen: SpamScreen | None,
        deadline_s: float,
        outlet: Outlet,
    ) -> None:
        self.store, self.delivery, self.limiter = store, delivery, limiter
        self.screen, self.deadline_s, self.outlet = screen, deadline_s, outlet

    # --- The proof and the limit ---------------------------------------------------------

    async def proof(self, kind: LeadKind, form_data: Any, key: str, valid: bool) -> Proof:
        """What the challenge ``form_data`` carries solved stands for (``Proof``); the
        correction of a quarantined lead only for a ``valid`` submission."""
        solves = self._solved_for(form_data)
        correcting = await self._correcting(kind, solves, key) if valid else None
        return Proof(solves, correcting, solves == key or correcting is not None)

    async def limit(
        self, kind: LeadKind, client_ip: str, key: str, proof: Proof, valid: bool
    ) -> Submission | None:
        """Count this submission; None when it may go on, else its answer: the outcome of
        the same solved submission stored already, a challenge (valid, unsolved), or
        ``RATE_LIMITED``."""
        if await self._within_limit(client_ip, proof.solved):
            return None
        if proof.solved and (replayed := await self._replayed(key)) is not None:
            return replayed  # The same submission again: its outcome, nothing written.
        logger.warning(
            "A %s submission from %s was refused by the rate limit%s.",
            kind,
            loggable(client_ip),
            " (solved, past the ceiling)" if proof.solved else "",
        )
        if valid and not proof.solved and (challenge := self.challenge(key)):
            return Submission(Result.CHALLENGE, challenge=challenge)
        return Submission(Result.RATE_LIMITED)

    @property
    def _challenges(self) -> Challenges | None:
        """The proofs of work the spam screen asks for, or None when off."""
        return self.screen.challenges if self.screen is not None else None

    def challenge(self, key: str) -> str:
        """A proof of work for the submission of ``key`` to solve, or "" when off."""
        challenges = self._challenges
        return challenges.issue(key) if challenges is not None else ""

    def _solved_for(self, form_data: Any) -> str | None:
        """The idempotency key of the submission whose challenge this one carries solved
        (ours, not expired: ``Challenges.solved_for``), or None."""
        challenges = self._challenges
        if challenges is None or not isinstance(form_data, Mapping):
            return None
        payload = form_data.get(CHALLENGE_FIELD)
        return challenges.solved_for(payload) if payload else None

    async def _within_limit(self, client_ip: str, solved: bool) -> bool:
        """Count this submission (every one counts, solved ones too); whether it may go on:
        within the limit, or past it with a solved proof of work while the address is under
        its ceiling of those (``RateLimiter.hit_solved``)."""
        if await self.limiter.hit(client_ip):
            return True
        return solved and await self.limiter.hit_solved(client_ip)

    async def _correcting(self, kind: LeadKind, proof: str | None, key: str) -> int | None:
        """The lead a submission corrects: the one of ``proof``'s key when that is not this
        submission's own, still in quarantine for a soft reason, of the same form.

        The page makes a new key when the visitor changes a field, and keeps the proof
        it solved: after a release refused for what comes with the lead, the visitor
        changes it and sends the submission again under a new key, carrying the proof of
        the old one. That proof then stands for the old lead only, which takes the new
        fields and key when released (``_release``): the visitor's submission stays one
        lead, and one proof never passes for a new submission. A proof whose lead left
        quarantine (released, erased) or was never stored (a rate limit's challenge)
        stands for nothing. While the database does not answer: nothing (the submission
        goes on as an unsolved one).
        """
        if proof is None or proof == key:
            return None
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.deadline_s / 4):
                lead = await loop.run_in_executor(DB_THREADS, self.store.by_key, proof)
        except Exception as error:
            logger.warning("A %s correction could not be matched (%s).", kind, type(error).__name__)
            return None
        if lead is None or lead.status != LeadStatus.SPAM or lead.kind != kind:
            return None
        reason = SpamReason(lead.spam_reason) if lead.spam_reason else None
        return lead.id if reason is not None and reason.soft else None

    # --- The verdict ---------------------------------------------------------------------

    async def decide(
        self, line: SpooledLead, form_data: Mapping, no_script: bool, proof: Proof, stored
    ) -> Submission | None:
        """The answer to a valid submission (``line``: its checked fields, key, source,
        language, network and proof) when the gate keeps it: quarantined, or released;
        None when it is clean (the intake stores it). Sets ``stored`` once a lead is."""
        reason = (
            SpamReason.HONEYPOT
            if form_data.get(HONEYPOT_FIELD)
            else await self._suspect(line.kind, line.fields, form_data, no_script)
        )
        if reason is not None and not (proof.solved and reason.soft):
            return await self._quarantine(line, reason, proof, stored)
        if not proof.solved:
            return None
        try:
            released = await self._release(line, proof.correcting)
        except Exception as error:
            if failure(error) is Failure.CONTENT:
                return self.outlet.content_refused(line.kind, refused_column(error))
            # The database did not answer: the drain releases it (``SpoolDrain.store_spooled``).
            return await self.outlet.spool_lead(replace(line, created_at=utcnow()), stored)
        if released is not None and released.result in (Result.SENT, Result.QUEUED):
            stored.set()
        return released

    async def _quarantine(
        self, line: SpooledLead, reason: SpamReason, proof: Proof, stored: asyncio.Event
    ) -> Submission:
        """A submission suspect for ``reason``: the quarantined lead it corrects takes it
        and stays there, else it is stored as spam (``_spam``)."""
        if proof.correcting is not None and await self._requarantine(
            proof.correcting, line.fields, line.key, line.language, reason
        ):
            stored.set()  # Its correction, suspect too: the one lead stays quarantined.
            return Submission(Result.SENT if self.delivery.configured else Result.QUEUED)
        return await self._spam(replace(line, created_at=utcnow(), spam=reason), stored)

    async def _suspect(
        self, kind: LeadKind, fields: dict[str, Any], form_data: Mapping, no_script: bool
    ) -> SpamReason | None:
        """The screen's reason to take this valid lead for spam; None when there is none,
        and when the screen fails or takes a quarter of the deadline (a check that cannot
        tell never keeps a lead from the agency)."""
        if self.screen is None:
            return None
        try:
            async with asyncio.timeout(self.deadline_s / 4):
                return await self.screen.reason(fields, form_data, no_script=no_script)
        except Exception as error:
            logger.warning(
                "A %s submission could not be screened (%s).", kind, type(error).__name__
            )
            return None

    async def _spam(self, line: SpooledLead, stored: asyncio.Event) -> Submission:
        """A valid lead suspected for ``line.spam`` (its honeypot filled: a bot, or a
        browser's autofill...): stored as ``SPAM`` (never sent, holding nothing) for the
        owner to release, and answered as a real submission is. A database that does not
        take it: spooled like any lead (``line``)."""
        kind, key, reason = line.kind, line.key, line.spam
        assert reason is not None
        insert = partial(
            self.store.add_lead,
            kind,
            line.fields,
            claim_token=None,
            lease=self.delivery.policy.lease,
            idempotency_key=key,
            source=line.source,
            language=line.language,
            spam=reason,
        )
        try:
            lead = await asyncio.get_running_loop().run_in_executor(DB_THREADS, insert)
        except DuplicateSubmission as duplicate:
            if duplicate.status != LeadStatus.SPAM:  # Released meanwhile: answered as one.
                sent = duplicate.status == LeadStatus.SENT
                return Submission(Result.SENT if sent else Result.QUEUED)
        except Exception:
            # Answered as any lead spooled in an outage: no challenge, which could release
            # nothing before the drain (the owner's `leads not-spam` can, after it).
            return await self.outlet.spool_lead(line, stored)
        else:
            stored.set()
            logger.info("A %s submission stored as spam (%s): %s.", kind, lead.id, reason)
        if reason.soft and (challenge := self.challenge(key)):
            return Submission(Result.CHALLENGE, challenge=challenge)
        return Submission(Result.SENT if self.delivery.configured else Result.QUEUED)

    async def _requarantine(
        self, lead_id: int, fields: dict[str, Any], key: str, language: str, reason: SpamReason
    ) -> bool:
        """The correction of quarantined lead ``lead_id`` is suspect for a hard ``reason``:
        the lead takes it and stays in quarantine (one lead); False when it could not."""
        requarantine = partial(self.store.requarantine, lead_id, fields, key, language, reason)
        try:
            changed = await asyncio.get_running_loop().run_in_executor(DB_THREADS, requarantine)
        except Exception:
            logger.exception("Quarantined lead %s could not take its correction.", lead_id)
            return False
        if changed:
            logger.info(
                "Lead %s, in quarantine, was corrected and stays there: %s.", lead_id, reason
            )
        return changed

    # --- A solved submission's release ---------------------------------------------------

    def _told(self, lead: Lead) -> Submission:
        """What a submission already stored as ``lead`` is told again: its outcome (in
        quarantine: as a real one, which a bot learns nothing from)."""
        if lead.status == LeadStatus.SPAM:
            return Submission(Result.SENT if self.delivery.configured else Result.QUEUED)
        return Submission(Result.SENT if lead.status == LeadStatus.SENT else Result.QUEUED)

    async def _replayed(self, key: str) -> Submission | None:
        """The outcome of the submission of ``key`` when it was stored and released already
        (the same solved submission sent again: answered, nothing written); else None."""
        loop = asyncio.get_running_loop()
        try:
            lead = await loop.run_in_executor(DB_THREADS, self.store.by_key, key)
        except Exception:
            return None
        if lead is None or lead.status == LeadStatus.SPAM:
            return None
        return self._told(lead)

    async def _quarantined(self, key: str) -> int | Submission | None:
        """The id of the lead of ``key`` in quarantine for a soft reason; else what its
        submission is told (stored, not releasable), or None when none is stored."""
        lead = await asyncio.get_running_loop().run_in_executor(DB_THREADS, self.store.by_key, key)
        if lead is None or lead.id is None:
            return None
        reason = SpamReason(lead.spam_reason) if lead.spam_reason else None
        if lead.status != LeadStatus.SPAM or reason is None or not reason.soft:
            return self._told(lead)
        return lead.id

    async def _release(self, line: SpooledLead, correcting: int | None) -> Submission | None:
        """A solved submission whose lead is stored already (in quarantine for a soft
        reason): released into delivery and sent now, once whatever the replays; its
        answer, or None when none is stored (it was rate-limited: stored as a clean one).
        ``correcting``: the quarantined lead this submission corrects (``_correcting``),
        released with its fields and key. A lead quarantined for a hard reason stays there,
        answered as real.

        The release holds what comes with the lead as the intake would (``Hold``: counted
        with this request's network), in the release's transaction; refused, the lead stays
        in quarantine and the visitor gets the form's field errors, to send it again changed.
        """
        kind, key, loop = line.kind, line.key, asyncio.get_running_loop()
        correction: dict[str, Any] = {}
        if correcting is not None:
            lead_id: int | Submission | None = correcting
            correction = {"fields": line.fields, "idempotency_key": key, "language": line.language}
        elif not isinstance(lead_id := await self._quarantined(key), int):
            return lead_id
        token = new_claim_token() if self.delivery.configured else None
        hold = Hold(strict=True, network=line.network)
        release = partial(
            self.store.release_spam, lead_id, token, self.delivery.policy.lease, hold=hold
        )
        try:
            # In the visitor's language (``locale.active``): a refusal is theirs to read.
            outcome: Release = await loop.run_in_executor(
                DB_THREADS, contextvars.copy_context().run, partial(release, **correction)
            )
        except Refused as refused:
            logger.info("Lead %s (%s): solved, its release refused for its slot.", lead_id, kind)
            return Submission(Result.INVALID, refused.errors)
        except DuplicateSubmission as duplicate:
            return Submission(Result.SENT if duplicate.status == LeadStatus.SENT else Result.QUEUED)
        if not outcome:  # Released meanwhile by another request, or the owner.
            lead = await loop.run_in_executor(DB_THREADS, self.store.by_key, key)
            return None if lead is None else self._told(lead)
        logger.info(
            "Lead %s (%s): its challenge solved, released from spam%s.",
            lead_id,
            kind,
            " with the visitor's correction" if correcting is not None else "",
        )
        return await self._first_send_of(lead_id, token)

    async def _first_send_of(self, lead_id: int, token: str | None) -> Submission:
        """The released lead ``lead_id``, claimed with ``token``, sent now (the intake's
        first send); queued when delivery is not configured or the lead is gone."""
        if token is None:
            return Submission(Result.QUEUED)
        loop = asyncio.get_running_loop()
        claimed = await loop.run_in_executor(DB_THREADS, self.store.get, lead_id)
        if claimed is None:
            return Submission(Result.QUEUED)
        return await self.outlet.first_send(claimed, token)

"""The loops of a backend worker: a round (send the due leads, watch, send the webhooks)
every so often, for as long as the worker runs.

A feature above the core adds a round of its own as a ``Round`` (``runtime.add_round``:
the report's forms-started counts, flushed once a minute), run the same way once the
database is prepared, and once more (``last``) when the worker stops.

A round that raises is told in the log, once for each new error in a row and in one
bounded line (``problems.problem``: no traceback, which may quote a lead), and the loop
goes on: a lead waits in the table, never on a loop that stopped. Cancelling the task
stops it.
"""

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agency_site.leads.problems import problem

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Round:
    """A round a feature adds to every worker's loops: ``run`` every ``every`` (``name``
    in the log, "The forms-started count"); ``last``: once more when the worker stops, best
    effort (``runtime.LAST_ROUND_S`` at most)."""

    name: str
    run: Callable[[], Awaitable[object]]
    every: dt.timedelta
    last: Callable[[], Awaitable[object]] | None = None


async def forever(round: Callable[[], Awaitable[object]], every: dt.timedelta, name: str) -> None:
    """Await ``round()`` every ``every``, until cancelled; ``name`` says which loop in the log
    ("The lead retry loop")."""
    failing: str | None = None  # The error the last round ended with.
    while True:
        try:
            await round()
        except Exception as error:
            said = problem(error)
            if said != failing:
                logger.error("%s failed (%s); it carries on.", name, said)
            logger.debug("%s failed", name, exc_info=True)
            failing = said
        else:
            if failing is not None:
                logger.info("%s works again.", name)
            failing = None
        await asyncio.sleep(every.total_seconds())

"""The loops of a backend worker: a round (send the due leads, watch, send the webhooks)
every so often, for as long as the worker runs.

A round that raises is told in the log, once for each new error in a row and in one
bounded line (``problems.problem``: no traceback, which may quote a lead), and the loop
goes on: a lead waits in the table, never on a loop that stopped. Cancelling the task
stops it.
"""

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable

from agency_site.leads.problems import problem

logger = logging.getLogger(__name__)


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

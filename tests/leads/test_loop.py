"""The one loop of a backend worker (``leads/loop.py``): a round that raises is logged once
per new error in one bounded line, the loop goes on; cancelling it stops it."""

import asyncio
import datetime as dt
import logging

import pytest

from agency_site.leads.loop import forever
from agency_site.leads.problems import PROBLEM_MAX
from tests.run_async import run

NAME = "The test loop"
AT_ONCE = dt.timedelta(0)


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "agency_site.leads.loop" and r.levelno == logging.ERROR
    ]


async def rounds_then_cancel(outcomes: list[BaseException | None]) -> int:
    """Run ``forever`` on rounds that raise or not, in turn; cancel it after the last one.
    How many rounds ran."""
    ran = 0
    done = asyncio.Event()

    async def one_round() -> None:
        nonlocal ran
        ran += 1
        if ran >= len(outcomes):
            done.set()
        if (error := outcomes[min(ran, len(outcomes)) - 1]) is not None:
            raise error

    task = asyncio.create_task(forever(one_round, AT_ONCE, NAME))
    await asyncio.wait_for(done.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    return ran


def test_a_round_that_raises_is_logged_and_the_loop_goes_on(caplog) -> None:
    caplog.set_level(logging.INFO, logger="agency_site.leads.loop")
    outcomes = [RuntimeError("database down"), RuntimeError("database down"), None, None]
    assert run(rounds_then_cancel(outcomes)) >= 4
    # The same error twice in a row: said once; then the loop says it works again.
    assert failures(caplog) == [f"{NAME} failed (RuntimeError: database down); it carries on."]
    assert f"{NAME} works again." in caplog.messages


def test_each_new_error_is_said_once_in_one_bounded_line(caplog) -> None:
    long = "x\n" * 400
    outcomes = [ValueError(long), ValueError(long), KeyError("a"), ValueError(long), None]
    run(rounds_then_cancel(outcomes))
    said = failures(caplog)
    assert len(said) == 3
    assert all("\n" not in line and len(line) < PROBLEM_MAX + len(NAME) + 30 for line in said)


def test_cancelling_stops_the_loop_while_it_waits() -> None:
    async def cancelled_while_sleeping() -> int:
        ran = 0

        async def one_round() -> None:
            nonlocal ran
            ran += 1

        task = asyncio.create_task(forever(one_round, dt.timedelta(hours=1), NAME))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return ran

    assert run(cancelled_while_sleeping()) == 1

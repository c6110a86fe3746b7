"""A lead's whole life as a simulation (``lead_life.py``), on SQLite and on PostgreSQL.

Random sequences of submissions (every form, hostile text), duplicates, the database
down and up, workers killed holding a claim, EmailJS answering 200, 500, 429 or nothing,
drains, retry rounds, erasures, purges, booking links and clock moves across Madrid's
DST changes; after every step: every accepted lead is stored or spooled exactly once, a
retry round gets past every due lead, no slot has two confirmed bookings, an erased
address never comes back, a link acts on its own booking only, nothing outlives the
retention period; at the end, every stored lead is delivered or marked for the owner.

``make test`` runs a few examples (about half a minute per database); ``make simulate``
runs ``LEAD_LIFE_EXAMPLES`` of them and prints what was covered.
"""

import logging
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from pytest_httpserver import HTTPServer

from tests.leads.lead_life import World, machine

EXAMPLES = int(os.environ.get("LEAD_LIFE_EXAMPLES", "12"))
STEPS = int(os.environ.get("LEAD_LIFE_STEPS", "30"))


@pytest.fixture
def world(db_url: str, tmp_path: Path, emailjs: HTTPServer, monkeypatch):
    world = World(db_url, tmp_path, emailjs)
    world.clock.install(monkeypatch)
    # Thousands of runs log what the site logs (tracebacks included): kept out of memory;
    # a failure is told by its shrunk sequence and the broken promise.
    loggers = [logging.getLogger(name) for name in ("agency_site", "werkzeug")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    yield world
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(level)
    world.close()
    print(f"\nLead life on {world.dialect}: {EXAMPLES} examples of up to {STEPS} steps")
    print(world.report())


def test_the_life_of_a_lead(world: World) -> None:
    run_state_machine_as_test(
        machine(world),
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            # No "explain" phase: it replays the failing run hundreds of times.
            phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
        ),
    )

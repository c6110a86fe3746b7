"""The claim with a lease (``leads/lease.py``) that the leads' e-mails and the webhooks'
messages share: for any interleaving of claimers, finishes and clocks moving on, a row is
held by one token at a time, and only that token's finish counts.

On SQLite, a table of its own: the store's tests run the two callers on both databases.
"""

import datetime as dt
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.pool import StaticPool

from agency_site.leads.lease import Lease, new_claim_token

QUEUED, SENDING, DONE = "queued", "sending", "done"
LEASE = dt.timedelta(seconds=60)
START = dt.datetime(2026, 3, 10, 9, 0, tzinfo=dt.UTC)
WORKERS = 3

METADATA = sa.MetaData()
WORK = sa.Table(
    "work",
    METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("next_attempt_at", sa.DateTime),
    sa.Column("claim_token", sa.String(64)),
    sa.Column("claimed_until", sa.DateTime),
    sa.Column("attempts", sa.Integer, nullable=False, default=0),
)
WORK_LEASE = Lease(WORK, QUEUED, SENDING)


@pytest.fixture(scope="module")
def engine() -> Iterator[sa.Engine]:
    engine = sa.create_engine(
        "sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False}
    )
    METADATA.create_all(engine)
    yield engine
    engine.dispose()


def fresh_row(engine: sa.Engine) -> int:
    """One row of work, queued and due at ``START``."""
    with engine.begin() as connection:
        connection.execute(sa.delete(WORK))
        return connection.execute(
            sa.insert(WORK).values(status=QUEUED, next_attempt_at=START, attempts=0)
        ).inserted_primary_key[0]


def row(engine: sa.Engine, row_id: int) -> sa.Row:
    with engine.connect() as connection:
        return connection.execute(sa.select(WORK).where(WORK.c.id == row_id)).one()


WORKER = st.integers(0, WORKERS - 1)
STEP = st.one_of(
    st.tuples(st.just("claim"), WORKER),
    st.tuples(st.just("finish"), WORKER, st.booleans()),  # True: done, False: retry now.
    st.tuples(st.just("wait"), st.integers(0, 90)),  # Seconds: some leases end.
)


@settings(max_examples=150, deadline=None)
@given(steps=st.lists(STEP, max_size=30))
def test_one_token_holds_a_row_at_a_time_and_only_its_finish_counts(engine, steps) -> None:
    row_id = fresh_row(engine)
    now = START
    # The model: the status, when it is due, its holder's token and the lease's end.
    status, due, holder, until = QUEUED, START, None, None
    tokens: dict[int, str] = {}  # Each worker's latest claim.
    finished = 0
    for step in steps:
        if step[0] == "wait":
            now += dt.timedelta(seconds=step[1])
        elif step[0] == "claim":
            token = new_claim_token()
            free = (status == QUEUED and due <= now) or (status == SENDING and until < now)
            won = WORK_LEASE.claim_due(engine, token, LEASE, now=now) == [row_id]
            assert won == free, (step, status, due, until, now)
            if won:  # Nobody else's lease was running: it had ended, or there was none.
                tokens[step[1]] = token
                status, due, holder, until = SENDING, now + LEASE, token, now + LEASE
        else:
            _, worker, done = step
            token = tokens.get(worker, "never claimed")
            counted = WORK_LEASE.finish(
                engine,
                row_id,
                token,
                status=DONE if done else QUEUED,
                next_attempt_at=None if done else now,
            )
            # Late (its lease ended) counts while nobody took the row over since.
            assert counted == (status == SENDING and holder == token), (step, status)
            if counted:
                finished += 1
                status, due, holder, until = (DONE if done else QUEUED), now, None, None
        stored = row(engine, row_id)
        assert (stored.status, stored.claim_token, stored.attempts) == (status, holder, finished)


def test_a_claim_sets_the_caller_s_own_values_and_only_among_the_rows_it_names(engine) -> None:
    first = fresh_row(engine)
    with engine.begin() as connection:
        second = connection.execute(
            sa.insert(WORK).values(status=QUEUED, next_attempt_at=START, attempts=5)
        ).inserted_primary_key[0]
    token = new_claim_token()
    only_second = WORK.c.id == second
    claimed = WORK_LEASE.claim_due(
        engine, token, LEASE, among=only_second, now=START, attempts=WORK.c.attempts + 1
    )
    assert claimed == [second]
    assert row(engine, second).attempts == 6
    assert row(engine, first).status == QUEUED

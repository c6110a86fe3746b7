"""``LeadStore.summary``: what the health endpoint and every worker's monitor poll. It counts
what a count over the whole table counts, and reads only through the indexes, so its cost
does not grow with the delivered leads kept for the privacy policy's months."""

import datetime as dt

import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session

from agency_site.leads.models import Lead
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import LeadStore

START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
# (status, received after START in s, delivered that many s later or never)
LEADS = st.lists(
    st.tuples(
        st.sampled_from(list(LeadStatus)),
        st.integers(0, 10**7),
        st.none() | st.integers(0, 10**6),
    ),
    max_size=25,
)


def _utc(moment: dt.datetime | None) -> dt.datetime | None:
    return moment if moment is None or moment.tzinfo else moment.replace(tzinfo=dt.UTC)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(leads=LEADS)
def test_the_summary_counts_what_a_count_of_every_lead_counts(
    store: LeadStore, leads: list[tuple[LeadStatus, int, int | None]]
) -> None:
    with store.engine.begin() as connection:
        connection.execute(sa.delete(Lead))
    rows = [
        Lead(
            kind="hero",
            fields={"email": f"v{n}@example.com"},
            status=status,
            created_at=START + dt.timedelta(seconds=received),
            sent_at=None if sent is None else START + dt.timedelta(seconds=received + sent),
        )
        for n, (status, received, sent) in enumerate(leads)
    ]
    with Session(store.engine) as session:
        session.add_all(rows)
        session.commit()
    summary = store.summary()
    count = {status: sum(row[0] == status for row in leads) for status in LeadStatus}
    assert (summary.queued, summary.sending, summary.held, summary.rejected) == (
        count[LeadStatus.QUEUED],
        count[LeadStatus.SENDING],
        count[LeadStatus.HELD],
        count[LeadStatus.REJECTED],
    )
    waiting = [START + dt.timedelta(seconds=received) for status, received, _ in leads
               if status in (LeadStatus.QUEUED, LeadStatus.SENDING)]  # fmt: skip
    assert _utc(summary.oldest_waiting_at) == min(waiting, default=None)
    sent = [START + dt.timedelta(seconds=r + s) for _, r, s in leads if s is not None]
    assert _utc(summary.last_sent_at) == max(sent, default=None)


def _statements(store: LeadStore) -> list[tuple[str, object]]:
    """The SQL ``summary`` sends, with its parameters."""
    sent: list[tuple[str, object]] = []

    def record(_conn, _cursor, statement, parameters, _context, _many) -> None:
        sent.append((statement, parameters))

    sa.event.listen(store.engine, "before_cursor_execute", record)
    try:
        store.summary()
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", record)
    return sent


def test_the_summary_reads_no_whole_table(store: LeadStore) -> None:
    """Each of its queries searches an index: PostgreSQL's plan with sequential scans priced
    out reads leads only through index conditions, SQLite's plan has no ``SCAN leads``."""
    statements = _statements(store)
    assert len(statements) == 3
    with store.engine.connect() as connection:
        raw = connection.connection.driver_connection
        cursor = raw.cursor()
        for statement, parameters in statements:
            if store.engine.dialect.name == "postgresql":
                cursor.execute("SET enable_seqscan = off")
                cursor.execute(f"EXPLAIN {statement}", parameters)
                plan = "\n".join(row[0] for row in cursor.fetchall())
                # Every read of leads is a search: an index scan bounded by a condition.
                scans = plan.count(" on leads")
                assert "Seq Scan on leads" not in plan, f"{statement}\n{plan}"
                assert scans and plan.count("Index Cond:") >= scans, f"{statement}\n{plan}"
            else:
                cursor.execute(f"EXPLAIN QUERY PLAN {statement}", parameters)
                plan = [row[-1] for row in cursor.fetchall()]
                assert not [step for step in plan if step.startswith("SCAN leads")], (
                    f"{statement}\n{plan}"
                )

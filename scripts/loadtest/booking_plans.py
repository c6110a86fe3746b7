"""What one booking asks of the database, and what a backend worker's rounds ask each poll:
every statement, its plan and its time (``EXPLAIN (ANALYZE, BUFFERS)``).

    .venv/bin/python -m scripts.loadtest.booking_plans --url URL            # a seeded database
    .venv/bin/python -m scripts.loadtest.booking_plans --url URL --empty    # an empty one

``URL`` is a throwaway PostgreSQL (or SQLite) database at the site's schema, seeded with
``scripts/seed_leads.py`` (its ``seed_leads`` row) or empty (``--empty``: no lead at all);
anything else is refused: the probe stores one booking (and one more per ``--rounds``).
It runs the site's own code: a ``LeadIntake`` over the site's ``LeadStore`` with the
bookings plugged in and its caps on (``BOOKING_MAX_PENDING_*``'s defaults), EmailJS faked on
loopback (``fake_emailjs.py``), and a worker's rounds (the monitor's ``tick`` with the
bookings' watchers, the retry loop's ``retry_due``), capturing each statement SQLAlchemy
sends (``before_cursor_execute``). Then each is run again under ``EXPLAIN``: the plan, the
database's own time, the buffers read, and whether it read a table without an index
(``Seq Scan`` on PostgreSQL, ``SCAN <table>`` on SQLite). docs/loadtest.md, "A year of
leads", has its output for 30,000 leads.
"""

import argparse
import asyncio
import contextlib
import datetime as dt
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from aiohttp import web

from agency_site.bookings import reminders, reschedule, slots
from agency_site.bookings.caps import PendingCaps
from agency_site.bookings.plugin import MOVE_TOLD_GRACE, BookingsPlugin
from agency_site.emailjs import EmailJSClient
from agency_site.forms.kinds import LeadKind
from agency_site.leads.delivery import Delivery, RetryPolicy
from agency_site.leads.intake import LeadIntake
from agency_site.leads.models import Lead, LeadMonitor, utcnow
from agency_site.leads.monitor import Monitor
from agency_site.leads.plugins import Plugins
from agency_site.leads.ratelimit import RateLimiter, storage_for
from agency_site.leads.store import LeadStore
from agency_site.settings import BookingSettings
from agency_site.working_calendar import default_calendar
from scripts.loadtest import fake_emailjs
from scripts.loadtest.bookers import SlotPlan, booking_fields
from scripts.seed_leads import MARKER

# The tables that grow with the leads kept: a statement reading one of them must search
# an index. (The others hold a row per endpoint, job or day's count: a few.)
GROWING = (
    "leads",
    "bookings",
    "booking_history",
    "lead_attempts",
    "lead_webhooks",
    "lead_autoreplies",
    "desk_lead_stages",
    "desk_lead_notes",
)
TEMPLATES = {kind: f"template_{kind}" for kind in LeadKind}


@dataclass
class Sent:
    """One statement as the driver got it, and how long the driver took (ms: its round
    trip to the database included)."""

    statement: str
    parameters: object
    ms: float = 0.0


@contextlib.contextmanager
def captured(engine: sa.Engine) -> Iterator[list[Sent]]:
    """Every statement ``engine`` sends meanwhile, with its parameters and time, in order."""
    sent: list[Sent] = []

    def before(_conn, cursor, statement, parameters, _context, _many) -> None:
        sent.append(Sent(statement, parameters, -time.perf_counter()))

    def after(_conn, cursor, statement, parameters, _context, _many) -> None:
        for one in reversed(sent):
            if one.statement is statement and one.ms < 0:
                one.ms = (time.perf_counter() + one.ms) * 1000
                break

    sa.event.listen(engine, "before_cursor_execute", before)
    sa.event.listen(engine, "after_cursor_execute", after)
    try:
        yield sent
    finally:
        sa.event.remove(engine, "before_cursor_execute", before)
        sa.event.remove(engine, "after_cursor_execute", after)


def explainable(sent: Sent) -> bool:
    """Whether ``EXPLAIN`` can take it (not a transaction's control, a lock, a savepoint)."""
    head = sent.statement.lstrip().split(None, 1)[0].upper()
    return head in ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH") and (
        "pg_advisory_xact_lock" not in sent.statement
    )


def plan(
    engine: sa.Engine, sent: Sent, *, analyze: bool = False, no_seqscan: bool = False
) -> list[str]:
    """The plan of ``sent`` (PostgreSQL: ``EXPLAIN``, with ``analyze`` its run's times and
    buffers, rolled back so a write changes nothing, and the plan alone when it cannot run
    again (an insert of a key now taken); ``no_seqscan``: sequential scans priced out, so
    the plan uses any index that can serve); SQLite: ``EXPLAIN QUERY PLAN``."""
    with engine.connect() as connection:
        raw = connection.connection.driver_connection
        cursor = raw.cursor()
        try:
            if engine.dialect.name == "postgresql":
                if no_seqscan:
                    cursor.execute("SET enable_seqscan = off")
                if analyze:
                    try:
                        cursor.execute("SAVEPOINT probe")
                        cursor.execute(
                            f"EXPLAIN (ANALYZE, BUFFERS) {sent.statement}", sent.parameters
                        )
                        return [row[0] for row in cursor.fetchall()]
                    except raw.DatabaseError as error:
                        cursor.execute("ROLLBACK TO SAVEPOINT probe")
                        note = f"(not run again: {str(error).splitlines()[0]})"
                        return [note, *plan(engine, sent, no_seqscan=no_seqscan)]
                cursor.execute(f"EXPLAIN {sent.statement}", sent.parameters)
                return [row[0] for row in cursor.fetchall()]
            cursor.execute(f"EXPLAIN QUERY PLAN {sent.statement}", sent.parameters)
            return [row[-1] for row in cursor.fetchall()]
        finally:
            cursor.close()
            connection.connection.driver_connection.rollback()


def unindexed(plan_lines: list[str], tables: tuple[str, ...] = GROWING) -> list[str]:
    """The steps of a plan (``plan``'s text) that read one of ``tables`` without an index:
    PostgreSQL's ``Seq Scan on <table>``, SQLite's ``SCAN <table>`` (not ``… USING … INDEX``).
    What the report marks; ``full_reads`` is the stricter check."""
    names = "|".join(tables)
    pattern = re.compile(rf"(Seq Scan on ({names})\b|^SCAN ({names})\b(?!.*USING))")
    return [line.strip() for line in plan_lines if pattern.search(line.strip())]


def _pg_full_reads(
    node: dict, tables: tuple[str, ...], leading: dict[str, str], parent: str | None = None
) -> Iterator[str]:
    """The nodes of a PostgreSQL JSON plan that read one of ``tables`` whole: a sequential
    scan, or an index scan (a bitmap's too: ``parent`` is its heap scan's table) whose
    condition does not bound the index's first column (``leading``, by index name): it walks
    the whole index, testing each entry."""
    kind = node["Node Type"]
    relation = node.get("Relation Name") or (parent if kind == "Bitmap Index Scan" else None)
    scans = ("Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Index Scan")
    if relation in tables and kind in scans:
        index = node.get("Index Name", "")
        condition = node.get("Index Cond", "")
        first = leading.get(index, "")
        if kind == "Seq Scan" or not re.search(rf"\b{re.escape(first)}\b", condition):
            using = f" using {index}" if index else ""
            yield f"{kind} on {relation}{using} (its first column unbounded: {condition or 'none'})"
    below = relation if kind == "Bitmap Heap Scan" else None
    for child in node.get("Plans", ()):
        yield from _pg_full_reads(child, tables, leading, below or parent)


_LEADING = """SELECT i.indexrelid::regclass::text, a.attname FROM pg_index i
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]"""


def full_reads(engine: sa.Engine, sent: Sent, tables: tuple[str, ...] = GROWING) -> list[str]:
    """How ``sent`` reads one of ``tables`` whole instead of searching an index: PostgreSQL's
    plan with sequential scans priced out (so any index that can serve is used) has a
    ``Seq Scan``, or an index scan whose condition does not bound the index's first column;
    SQLite's plan a ``SCAN`` of it (the whole table, or a whole index) or a ``SEARCH`` using
    no index. Empty: every read of them is a search."""
    if engine.dialect.name != "postgresql":
        names = "|".join(tables)
        step_of = re.compile(rf"^(SCAN|SEARCH) ({names})\b")
        # A search of an index's (or the rowid's) leading columns; "SEARCH leads" alone
        # (max() of a column no index holds) reads the whole table too.
        search = re.compile(
            rf"^SEARCH ({names}) USING (COVERING INDEX|INDEX|INTEGER PRIMARY KEY|PRIMARY KEY)\b"
        )
        return [s for s in plan(engine, sent) if step_of.match(s) and not search.match(s)]
    with engine.connect() as connection:
        raw = connection.connection.driver_connection
        cursor = raw.cursor()
        try:
            cursor.execute(_LEADING)
            leading = dict(cursor.fetchall())
            cursor.execute("SET enable_seqscan = off")
            cursor.execute(f"EXPLAIN (FORMAT JSON) {sent.statement}", sent.parameters)
            [[document]] = cursor.fetchall()
        finally:
            cursor.close()
            raw.rollback()
    return list(_pg_full_reads(document[0]["Plan"], tables, leading))


def booking_store(engine: sa.Engine) -> LeadStore:
    """The site's store with the bookings plugged in as ``plugin(settings)`` makes them by
    default: the caps on, bookings expiring, no daily limit, no calendar, no desk, no links."""
    defaults = BookingSettings()
    caps = PendingCaps(defaults.max_pending_per_email, defaults.max_pending_per_network)
    plugin = BookingsPlugin(caps=caps, pending_expiry_days=defaults.pending_expiry_days)
    return LeadStore(engine, Plugins((plugin,)))


def site_intake(store: LeadStore, emailjs_base: str) -> LeadIntake:
    """A ``LeadIntake`` as a backend worker's (``runtime.intake``), EmailJS at ``emailjs_base``
    (None: not configured), the rate limit out of the way."""
    client = EmailJSClient(
        api_base=emailjs_base, service_id="service_probe", public_key="public_probe",
        private_key="private_probe", timeout_s=10,
    )  # fmt: skip
    delivery = Delivery(store, client, TEMPLATES, "hola@agencia.test", "probe", RetryPolicy())
    limiter = RateLimiter(storage_for(None), per_ip=1_000_000, window_s=600)
    return LeadIntake(store, delivery, limiter, network_key="probe")


def worker_monitor(intake: LeadIntake) -> Monitor:
    """A worker's monitor (``runtime.build_monitor``'s defaults; no alert webhook)."""
    return Monitor(
        delivery=intake.delivery,
        webhook_url="",
        canary_every=dt.timedelta(minutes=5),
        retention_months=12,
        site_url="http://localhost",
        queued_alert_after=dt.timedelta(minutes=30),
    )


@contextlib.asynccontextmanager
async def fake_emailjs_on_loopback():
    """The load test's EmailJS fake on a free loopback port; its API base."""
    with tempfile.TemporaryDirectory(prefix="booking-plans-") as folder:
        runner = web.AppRunner(
            fake_emailjs.make_app(Path(folder) / "sends.jsonl", fake_emailjs.Faults())
        )
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            await runner.cleanup()


async def book_once(intake: LeadIntake, n: int, slot: tuple[str, str]) -> tuple[str, list[Sent]]:
    """One booking of ``slot`` through the intake, as a visitor's submission; its outcome
    and every statement it sent."""
    # An address of its own: the load test's (``loadtest+run-n@``) are one mailbox, which the
    # caps would refuse past its second pending booking.
    fields = booking_fields("probe", n, slot) | {"email": f"probe.{uuid.uuid4().hex}@example.com"}
    with captured(intake.store.engine) as sent:
        outcome = await intake.submit(LeadKind.BOOKING, fields, f"198.51.100.{n % 250 + 1}")
    return str(outcome.result), sent


async def one_round(intake: LeadIntake, monitor: Monitor) -> list[Sent]:
    """What a worker's loops send in one poll: the monitor's tick (with the bookings'
    watchers) and the retry loop's."""
    with captured(intake.store.engine) as sent:
        await monitor.tick()
        await intake.delivery.retry_due()
    return sent


def periodic(engine: sa.Engine) -> list[Sent]:
    """What the bookings' watchers send when their turn comes (one worker every few
    minutes: expiry, moves to tell; every poll with a visitor template: the reminders)."""
    now, calendar = utcnow(), default_calendar()
    with captured(engine) as sent:
        slots.expire_pending(engine, now, calendar, BookingSettings().pending_expiry_days)
        slots.expired_untold(engine)
        reschedule.moves_untold(engine, now - MOVE_TOLD_GRACE)
        reminders.due(engine, now, reminders.plan(24.0))
    return sent


def refusal(engine: sa.Engine, empty: bool) -> str | None:
    """Why the probe must not write into this database (None: it may)."""
    with engine.connect() as connection:
        seeded = connection.execute(
            sa.select(LeadMonitor.state).where(LeadMonitor.name == MARKER)
        ).scalar()
        leads = connection.execute(sa.select(sa.func.count()).select_from(Lead)).scalar()
    if empty:
        return None if not leads else f"--empty, but it holds {leads} leads"
    return None if seeded else "it was not seeded by scripts/seed_leads.py (no seed_leads row)"


def _short(statement: str) -> str:
    return " ".join(statement.split())[:160]


def report(engine: sa.Engine, title: str, sent: list[Sent]) -> float:
    """Print each statement of ``sent``, its plan and time; the database's total ms."""
    print(
        f"\n## {title}: {len(sent)} statements, {sum(max(s.ms, 0) for s in sent):.1f} ms in the driver"
    )
    total = 0.0
    for number, one in enumerate(sent, 1):
        took = f"{one.ms:.2f} ms" if one.ms >= 0 else "failed"
        print(f"\n{number}. [{took}] {_short(one.statement)}")
        if not explainable(one):
            continue
        lines = plan(engine, one, analyze=engine.dialect.name == "postgresql")
        for line in lines:
            print(f"     {line}")
            if found := re.search(r"Execution Time: ([\d.]+) ms", line):
                total += float(found.group(1))
        if scans := unindexed(lines):
            print(f"   ** reads without an index: {'; '.join(scans)}")
    print(f"\n{title}: {total:.2f} ms of execution in the database (the plans' sum)")
    return total


async def probe(url: str, empty: bool, rounds: int) -> int:
    """Book once (and ``rounds`` times more), run a worker's round, print the plans."""
    engine = sa.create_engine(url)
    try:
        if why := refusal(engine, empty):
            print(f"Refused: {why}.", file=sys.stderr)
            return 2
        store = booking_store(engine)
        plan_slots = SlotPlan()

        def free_slot() -> tuple[str, str]:
            """The load test's next slot no booking holds (the probe's earlier runs took some)."""
            while True:
                day, time = plan_slots.take()
                if (
                    time
                    not in slots.taken(engine, [dt.date.fromisoformat(day)])[
                        dt.date.fromisoformat(day)
                    ]
                ):
                    return day, time

        async with fake_emailjs_on_loopback() as emailjs_base:
            intake = site_intake(store, emailjs_base)
            monitor = worker_monitor(intake)
            await one_round(intake, monitor)  # The day's jobs claimed: a poll like the others.
            outcome, booking = await book_once(intake, 1, free_slot())
            for n in range(rounds):
                await book_once(intake, n + 2, free_slot())
            poll = await one_round(intake, monitor)
        jobs = periodic(engine)
        print(f"One booking: {outcome}")
        report(engine, "A booking", booking)
        report(engine, "A worker's poll (monitor tick, retry loop)", poll)
        report(engine, "The bookings' jobs (expiry, moves, reminders)", jobs)
    finally:
        engine.dispose()
    return 0


def main() -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True, help="a throwaway database, seeded or empty")
    parser.add_argument("--empty", action="store_true", help="the database holds no lead")
    parser.add_argument("--rounds", type=int, default=0, help="bookings more before the poll")
    args = parser.parse_args()
    return asyncio.run(probe(args.url, args.empty, args.rounds))


if __name__ == "__main__":
    sys.exit(main())

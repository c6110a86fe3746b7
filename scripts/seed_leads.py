"""`make seed-leads`: a year of an agency's leads in the running `make stack`'s database.

    make stack                          # the database starts empty on each `up`
    make seed-leads                     # 30,000 leads (SEED_LEADS=N for another count)
    make loadtest LOADTEST_ARGS="--stack --server nginx"

What it writes (``seed``; ``year`` makes the rows, the same for a test's few thousand):

- ``leads`` over the last ``YEAR_DAYS`` days (within the 12 months' retention: the daily
  purge deletes none), weekdays busier than weekends and the year growing: the Home hero
  form (``contact``) about half, the quote form two in five, bookings the rest; almost all
  delivered (``sent``, one ``lead_attempts`` row each, a retry before it for a few), some
  spam in the last ``LEADS_SPAM_KEEP_DAYS`` (the purge would have deleted older spam),
  shown to the owner already; none waiting (the retry loop and the alerts find nothing
  to do, as on a healthy site);
- a ``bookings`` row per booking lead, in every state: past meetings attended or no-show
  (and declined, cancelled, expired, a few stored without their slot), future ones pending
  (asked in the last hours) or confirmed, with their ``booking_history`` and reminders
  already claimed (no e-mail goes out for a seeded booking);
- ``lead_webhooks`` (``lead.created`` and each booking change, delivered) for a CRM
  endpoint the agency used and has since removed (``lead_webhook_endpoints``: ``removed``,
  so a new lead queues nothing for it: the stack runs without webhook URLs), the desk's
  pipeline stages of some leads, today's auto-reply allowances, and the funnel's daily
  rows (``report_*``: page views, referrers, campaigns, bots, forms started);
- a ``lead_monitor`` row ``seed_leads`` (its ``state``: the count): a second seed is
  refused (``AlreadySeeded``), as is a concurrent one (its primary key).

**The load test's slots stay free.** Its bookers ask for every slot of the working days
from two days ahead (``scripts/loadtest/bookers.py``, ``SlotPlan``). A seeded booking
that holds its slot (pending or confirmed) is on a day before the plan's first (today,
tomorrow); a recent booking for a later day was declined or cancelled (no slot held).

**Only the stack's database** (``refusal``): the URL must be ``.stack/env``'s, on loopback,
and the server's ``data_directory`` the one ``make stack`` created for ``STACK_PORT``
(``scripts/stack.py``: ``/tmp/agency-stack-<port>/postgres/data``). Anything else, a
deployment's database first of all, is refused with the reason and nothing is written.

It inserts ``CHUNK`` rows per executemany, in one transaction, then (PostgreSQL) ``VACUUM
ANALYZE`` and ``CHECKPOINT`` (``--no-settle``: not): 30,000 leads take about 10 s.
"""

import argparse
import datetime as dt
import itertools
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agency_site.bookings.models import (  # noqa: E402
    Attendance,
    Booking,
    BookingChange,
    BookingStatus,
    SlotLost,
    slot_key,
)
from agency_site.desk.models import DeskLeadStage  # noqa: E402
from agency_site.forms.kinds import LeadKind  # noqa: E402
from agency_site.leads.models import (  # noqa: E402
    AttemptOutcome,
    Lead,
    LeadAttempt,
    LeadAutoreply,
    LeadMonitor,
    LeadWebhook,
    LeadWebhookEndpoint,
    email_key,
    mailbox_digest,
)
from agency_site.leads.statuses import LeadStatus, SpamReason  # noqa: E402
from agency_site.leads.webhooks.queue import REMOVED, SENT, endpoint_key  # noqa: E402
from agency_site.report import tables as report  # noqa: E402
from agency_site.rules import AGENCY_TIME_ZONE, TIME_SLOTS  # noqa: E402
from agency_site.working_calendar import WorkingCalendar, default_calendar  # noqa: E402
from scripts.loadtest.bookers import SlotPlan  # noqa: E402

DEFAULT_COUNT = 30_000
# The leads' days back from now: within the 12 months' retention (the purge deletes none).
YEAR_DAYS = 360
# Spam is kept LEADS_SPAM_KEEP_DAYS after the owner saw it (default 7): only recent spam is left.
SPAM_DAYS = 6
SPAM_SHARE = 0.15  # Of the leads of those days.
KINDS = ((LeadKind.HERO, 0.53), (LeadKind.QUOTE, 0.40), (LeadKind.BOOKING, 0.07))
RETRIED_SHARE = 0.03  # Delivered after one failed attempt.
CATALAN_SHARE = 0.2
RETURNING_SHARE = 0.05  # A lead from an address that sent one before.
STAGED_SHARE = 0.15  # Leads the agency moved in the desk's pipeline.
MARKER = "seed_leads"  # The lead_monitor row of a seeded database.
CHUNK = 500  # Rows per INSERT.
# A CRM the agency used this year, since removed from LEADS_WEBHOOK_URLS.
OLD_ENDPOINT = endpoint_key("https://crm.example.com/hooks/agency")
SOURCES = (
    {"page": "/", "landing": "/", "referrer": "google.com"},
    {"page": "/contact", "landing": "/services/seo", "referrer": "google.com"},
    {"page": "/schedule", "landing": "/schedule"},
    {"page": "/", "landing": "/", "utm_source": "newsletter", "utm_medium": "email"},
    {"page": "/contact", "landing": "/blog", "referrer": "instagram.com"},
)
PAGES = ("/", "/about", "/contact", "/schedule", "/services/seo", "/services/branding",
         "/services/social-media", "/case-studies", "/blog", "/portfolio")  # fmt: skip
REFERRERS = ("google.com", "instagram.com", "linkedin.com", "facebook.com", "bing.com")
BOTS = ("Googlebot", "bingbot", "AhrefsBot", "GPTBot")


class AlreadySeeded(Exception):
    """The database was seeded before (its ``seed_leads`` row)."""


@dataclass
class Year:
    """The rows of a seeded year, by table (``year``)."""

    rows: dict[sa.Table, list[dict[str, Any]]] = field(default_factory=dict)

    def add(self, table: sa.Table, **row: Any) -> None:
        self.rows.setdefault(table, []).append(row)

    def count(self, table: sa.Table) -> int:
        return len(self.rows.get(table, ()))


def _arrivals(rng: random.Random, count: int, now: dt.datetime) -> list[dt.datetime]:
    """``count`` arrival times over the last ``YEAR_DAYS`` days, oldest first: weekdays
    three times as busy as weekends, the last month 1.5 times the first, daytime hours."""
    tz = ZoneInfo(AGENCY_TIME_ZONE)
    today = now.astimezone(tz).date()
    days = [today - dt.timedelta(days=back) for back in range(YEAR_DAYS, -1, -1)]
    weights = [
        (1.0 if day.weekday() < 5 else 0.35) * (1.0 + 0.5 * n / YEAR_DAYS)
        for n, day in enumerate(days)
    ]
    hours, hour_weights = list(range(24)), [0.2] * 7 + [1.0] * 15 + [0.5] * 2
    arrivals = []
    for day in rng.choices(days, weights, k=count):
        moment = dt.datetime.combine(day, dt.time(rng.choices(hours, hour_weights)[0]), tz)
        moment = (moment + dt.timedelta(seconds=rng.randrange(3600))).astimezone(dt.UTC)
        if moment > now - dt.timedelta(minutes=1):  # Today, later than now: earlier today.
            since_midnight = now.astimezone(tz) - dt.datetime.combine(today, dt.time(), tz)
            moment = now - dt.timedelta(
                seconds=rng.uniform(60, max(61, since_midnight.total_seconds()))
            )
        arrivals.append(moment)
    return sorted(arrivals)


def _fields(rng: random.Random, kind: LeadKind, n: int, email: str) -> dict[str, Any]:
    if kind is LeadKind.HERO:
        return {"email": email}
    person = {"name": f"Cliente {n}", "email": email, "phone": f"+34 6{n % 10**8:08d}"}
    if kind is LeadKind.QUOTE:
        service = rng.choice(("seo", "branding", "social-media", "web"))
        return person | {"service": service, "pack": "", "message": f"Presupuesto {n}."}
    return person | {"message": ""}  # A booking's date and time are set with its slot.


class _Slots:
    """The active slots (pending or confirmed bookings) given out so far: one each."""

    def __init__(self, calendar: WorkingCalendar) -> None:
        self.calendar = calendar
        self.held: set[str] = set()

    def free(self, day: dt.date, after: dt.datetime | None = None) -> list[str]:
        """The day's slots not held (and starting after ``after``), in order."""
        if self.calendar.closure(day) is not None:
            return []
        tz = ZoneInfo(AGENCY_TIME_ZONE)
        return [
            slot
            for slot in TIME_SLOTS
            if slot_key(day, slot) not in self.held
            and (after is None or dt.datetime.combine(day, dt.time.fromisoformat(slot), tz) > after)
        ]


def _booking(
    year: Year,
    rng: random.Random,
    slots: _Slots,
    lead: dict[str, Any],
    now: dt.datetime,
    plan_start: dt.date,
) -> None:
    """The booking of ``lead`` (its date and time written into its fields), its history and
    webhooks: a state that fits when it was asked and for when."""
    tz = ZoneInfo(AGENCY_TIME_ZONE)
    created: dt.datetime = lead["created_at"]
    local_now = now.astimezone(tz)
    asked = slots.calendar.next_working_day(
        created.astimezone(tz).date() + dt.timedelta(days=rng.randint(2, 21))
    )
    state, time, lost, day = BookingStatus.DECLINED, rng.choice(TIME_SLOTS), None, asked
    if asked < local_now.date():  # A past meeting.
        free = slots.free(asked)
        draw = rng.random()
        if draw < 0.03 or not free:
            lost = SlotLost.TAKEN  # Drained after its slot went: declined by the agency.
        elif draw < 0.73:
            state, time = BookingStatus.CONFIRMED, rng.choice(free)
        else:
            state = rng.choice(
                (BookingStatus.DECLINED, BookingStatus.CANCELLED, BookingStatus.EXPIRED)
            )
    else:
        # A future meeting: only before the load test's first day may it hold a slot.
        days = [local_now.date() + dt.timedelta(days=n) for n in range(7)]
        near = [(d, s) for d in days if d < plan_start for s in slots.free(d, local_now)]
        if near and rng.random() < 0.8:
            day, time = near[0]
            recent = now - created < dt.timedelta(hours=20)
            state = BookingStatus.PENDING if recent else BookingStatus.CONFIRMED
        else:
            state = rng.choice((BookingStatus.DECLINED, BookingStatus.CANCELLED))
    active = state in (BookingStatus.PENDING, BookingStatus.CONFIRMED)
    if active:
        slots.held.add(slot_key(day, time))
    lead["fields"] |= {"date": day.isoformat(), "time": time}
    start = dt.datetime.combine(day, dt.time.fromisoformat(time), tz).astimezone(dt.UTC)
    decided = (
        None
        if state is BookingStatus.PENDING
        else min(created + dt.timedelta(hours=rng.uniform(0.5, 20)), now, start)
    )
    attendance = None
    if state is BookingStatus.CONFIRMED and start + dt.timedelta(hours=1) < now:
        attendance = Attendance.NO_SHOW if rng.random() < 0.15 else Attendance.ATTENDED
    year.add(
        Booking.__table__,
        lead_id=lead["id"],
        date=day,
        time=time,
        state=state,
        active_slot=slot_key(day, time) if active else None,
        created_at=created,
        decided_at=decided,
        reminded_at=None,
        slot_lost=lost is not None,
        slot_lost_reason=lost,
        # A pending booking keeps its request's network digest (the caps count it).
        network=f"{rng.getrandbits(256):064x}" if state is BookingStatus.PENDING else None,
        mailbox=mailbox_digest(lead["fields"]["email"]),
        expiry_told_at=decided if state is BookingStatus.EXPIRED else None,
        link_key=f"{rng.getrandbits(96):024x}",
        sequence=0,
        reschedules=0,
        moved_from=None,
        moved_at=None,
        visitor_told_sequence=0,
        agency_told_sequence=0,
        # Claimed: no reminder goes out for a seeded booking.
        reminder_sequence=0,
        second_reminder_sequence=0,
        attendance=attendance,
        attendance_at=start + dt.timedelta(hours=2) if attendance else None,
    )
    events = [("requested", created)]
    if decided is not None:
        events.append((str(state), decided))
    if attendance is not None:
        events.append((str(attendance), start + dt.timedelta(hours=2)))
    for event, at in events:
        year.add(
            BookingChange.__table__,
            lead_id=lead["id"],
            at=at,
            event=event,
            date=day,
            time=time,
            moved_from=None,
            slot_lost=lost is not None,
        )
        _webhook(year, lead, f"booking.{event}", at)


def _webhook(year: Year, lead: dict[str, Any], event: str, at: dt.datetime) -> None:
    """``event`` of ``lead`` delivered to the old CRM endpoint two seconds after ``at``."""
    year.add(
        LeadWebhook.__table__,
        lead_id=lead["id"],
        event=event,
        message_id=f"msg_{lead['idempotency_key']}_{event.replace('.', '_')}",
        endpoint=OLD_ENDPOINT,
        data=None,
        created_at=at,
        status=SENT,
        attempts=1,
        next_attempt_at=at,
        claim_token=None,
        claimed_until=None,
        last_error=None,
        sent_at=at + dt.timedelta(seconds=2),
        remote_id=f"crm-{lead['id']}",
    )


def _funnel(year: Year, rng: random.Random, now: dt.datetime) -> None:
    """The report's daily counts of the year: views by page, language and device,
    referrers, campaigns, bots and forms started."""
    today = now.astimezone(ZoneInfo(AGENCY_TIME_ZONE)).date()
    for back in range(YEAR_DAYS, -1, -1):
        day = today - dt.timedelta(days=back)
        for page, language, device in rng.sample(
            list(itertools.product(PAGES, ("es", "ca"), ("mobile", "desktop", "tablet"))), 24
        ):
            year.add(
                report.page_views,
                day=day,
                page=page,
                language=language,
                device=device,
                views=rng.randint(1, 400),
            )
        for domain in rng.sample(REFERRERS, 3):
            year.add(report.referrers, day=day, domain=domain, views=rng.randint(1, 200))
        year.add(
            report.campaigns,
            day=day,
            utm_source="newsletter",
            utm_medium="email",
            utm_campaign=f"{day:%Y-%m}",
            views=rng.randint(0, 80),
        )
        for bot in BOTS:
            year.add(report.bots, day=day, bot=bot, hits=rng.randint(5, 500))
        for form in LeadKind:
            year.add(report.forms_started, day=day, form=str(form), started=rng.randint(5, 150))


def year(
    count: int, now: dt.datetime, *, first_id: int = 1, random_seed: int = 45, plan_start: dt.date
) -> Year:
    """The rows of ``count`` leads of a year up to ``now`` (ids from ``first_id``) and what
    goes with them; the same for the same arguments. No booking holding a slot is on or
    after ``plan_start`` (the load test's first day)."""
    rng = random.Random(random_seed)
    rows = Year()
    slots = _Slots(default_calendar())
    kinds, shares = zip(*KINDS, strict=True)
    emails: list[str] = []
    today = now.astimezone(ZoneInfo(AGENCY_TIME_ZONE)).date()
    rows.add(
        LeadWebhookEndpoint.__table__,
        endpoint=OLD_ENDPOINT,
        state=REMOVED,
        failing_since=None,
        last_error=None,
        changed_at=now - dt.timedelta(days=30),
    )
    for n, created in enumerate(_arrivals(rng, count, now)):
        lead_id = first_id + n
        kind = rng.choices(kinds, shares)[0]
        if emails and rng.random() < RETURNING_SHARE:
            email = rng.choice(emails)
        else:
            email = f"cliente{lead_id}@example.com"
            emails.append(email)
        spam = now - created < dt.timedelta(days=SPAM_DAYS) and rng.random() < SPAM_SHARE
        retried = not spam and rng.random() < RETRIED_SHARE
        sent_at = created + dt.timedelta(seconds=rng.uniform(0.3, 2.0))
        if retried:
            sent_at += dt.timedelta(seconds=rng.uniform(30, 600))
        sent_at = min(sent_at, now)
        lead = {
            "id": lead_id,
            "kind": str(kind),
            "fields": _fields(rng, kind, lead_id, email),
            "created_at": created,
            "status": LeadStatus.SPAM if spam else LeadStatus.SENT,
            "attempts": 0 if spam else 1 + retried,
            "unconfirmed_sends": 0,
            "last_error": "HTTP 500: Internal Server Error" if retried else None,
            "next_attempt_at": None if spam else created + dt.timedelta(minutes=2),
            "sent_at": None if spam else sent_at,
            "claim_token": None,
            "claimed_until": None,
            "held_config": None,
            "idempotency_key": f"seed-{random_seed}-{lead_id}",
            "email_norm": email_key(email),
            "autoreply": kind is LeadKind.BOOKING and not spam,
            "source": rng.choice(SOURCES),
            "language": "ca" if rng.random() < CATALAN_SHARE else "es",
            "spam_reason": rng.choice(list(SpamReason)) if spam else None,
            # Shown to the owner (the digest, the desk) within hours: none left unshown.
            "spam_listed_at": min(created + dt.timedelta(hours=6), now) if spam else None,
            "spam_confirmed_at": None,
        }
        if kind is LeadKind.BOOKING:
            if spam:  # Held nothing: its slot is asked for but no booking row exists.
                lead["fields"] |= {"date": today.isoformat(), "time": TIME_SLOTS[0]}
            else:
                _booking(rows, rng, slots, lead, now, plan_start)
        rows.add(Lead.__table__, **lead)
        if spam:
            continue
        if retried:
            rows.add(
                LeadAttempt.__table__,
                lead_id=lead_id,
                at=created + dt.timedelta(seconds=1),
                outcome=AttemptOutcome.RETRY,
                answer="HTTP 500: Internal Server Error",
            )
        rows.add(
            LeadAttempt.__table__,
            lead_id=lead_id,
            at=sent_at,
            outcome=AttemptOutcome.SENT,
            answer="OK",
        )
        _webhook(rows, lead, "lead.created", created)
        if lead["autoreply"] and created.astimezone(ZoneInfo(AGENCY_TIME_ZONE)).date() == today:
            mailbox = mailbox_digest(email)
            if not any(
                row["email_hash"] == mailbox for row in rows.rows.get(LeadAutoreply.__table__, ())
            ):
                rows.add(LeadAutoreply.__table__, email_hash=mailbox, day=today)
        if now - created > dt.timedelta(days=1) and rng.random() < STAGED_SHARE:
            rows.add(
                DeskLeadStage.__table__,
                lead_id=lead_id,
                stage=rng.choice(("contacted", "won", "lost")),
                changed_at=created + dt.timedelta(days=1),
                person_id=None,
            )
    _funnel(rows, rng, now)
    return rows


def _chunks(items: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]


def seed(
    engine: sa.Engine,
    count: int,
    now: dt.datetime | None = None,
    *,
    random_seed: int = 45,
    settle: bool = True,
) -> dict[str, int]:
    """Write a year of ``count`` leads (``year``) into ``engine``'s migrated database, in one
    transaction; the rows written by table. ``AlreadySeeded`` when it was seeded before
    (nothing written). On PostgreSQL, with ``settle``, the database is then as a year of
    leads written one by one leaves it: its tables vacuumed and analyzed, the new pages
    written out (``CHECKPOINT``). Without: what autovacuum and the next checkpoint do
    after a bulk insert happens during whatever runs next (``--no-settle``)."""
    now = now or dt.datetime.now(dt.UTC)
    plan_start = dt.date.fromisoformat(
        SlotPlan(now.astimezone(ZoneInfo(AGENCY_TIME_ZONE))).take()[0]
    )
    monitor = LeadMonitor.__table__
    with engine.begin() as connection:
        marked = connection.execute(
            sa.select(monitor.c.state).where(monitor.c.name == MARKER)
        ).scalar()
        if marked is not None:
            raise AlreadySeeded(f"this database was seeded already ({marked} leads)")
        # The marker first: a second seed running meanwhile fails on its primary key.
        connection.execute(
            sa.insert(monitor).values(name=MARKER, state=str(count), due_at=None, changed_at=now)
        )
        first_id = (connection.execute(sa.select(sa.func.max(Lead.id))).scalar() or 0) + 1
        rows = year(count, now, first_id=first_id, random_seed=random_seed, plan_start=plan_start)
        # Parents first: the foreign keys of bookings, attempts, history, stages.
        order = [Lead.__table__, *(t for t in rows.rows if t is not Lead.__table__)]
        for table in order:
            for chunk in _chunks(rows.rows.get(table, [])):
                connection.execute(sa.insert(table), chunk)
        if connection.dialect.name == "postgresql":
            # The ids were given: the sequence hands out the next ones after them.
            connection.execute(
                sa.text("SELECT setval(pg_get_serial_sequence('leads', 'id'), max(id)) FROM leads")
            )
    if settle and engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            for table in order:
                connection.execute(sa.text(f"VACUUM ANALYZE {table.name}"))
            connection.execute(sa.text("CHECKPOINT"))
    return {table.name: rows.count(table) for table in order}


def refusal(url: str, stack_data_dir: Path) -> str | None:
    """Why ``url`` is not a database ``seed`` may write (None: it may): it must be a
    PostgreSQL on loopback whose server keeps its data in ``stack_data_dir`` (the folder
    ``make stack`` created for its cluster)."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() != "postgresql":
        return f"{parsed.get_backend_name()} is not the stack's PostgreSQL"
    if parsed.host not in ("127.0.0.1", "localhost", "::1"):
        return f"{parsed.host} is not this machine's loopback"
    engine = sa.create_engine(parsed, connect_args={"connect_timeout": 5})
    try:
        with engine.connect() as connection:
            data_dir = connection.execute(sa.text("SHOW data_directory")).scalar()
    except sa.exc.SQLAlchemyError as error:
        return f"its server cannot be asked where it keeps its data ({type(error).__name__})"
    finally:
        engine.dispose()
    if Path(str(data_dir)).resolve() != stack_data_dir.resolve():
        return f"its server keeps its data in {data_dir}, not in the stack's {stack_data_dir}"
    return None


def stack_url(state_dir: Path) -> str:
    """The database URL ``make stack`` wrote into ``.stack/env`` (SystemExit when none)."""
    env = state_dir / "env"
    if not env.exists():
        raise SystemExit("No stack is running (.stack/env is missing): `make stack` first.")
    for line in env.read_text().splitlines():
        name, _, value = line.partition("=")
        if name == "REFLEX_DB_URL":
            return value
    raise SystemExit(f"{env} names no REFLEX_DB_URL: start the stack again.")


def main(argv: list[str] | None = None) -> int:
    """Entry point: seed the running stack's database."""
    from scripts import stack

    parser = argparse.ArgumentParser(
        prog="scripts/seed_leads.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--count", type=int, default=int(os.environ.get("SEED_LEADS", DEFAULT_COUNT))
    )
    parser.add_argument("--port", type=int, default=int(os.environ.get("STACK_PORT", "8080")))
    parser.add_argument(
        "--no-settle",
        dest="settle",
        action="store_false",
        help="no VACUUM ANALYZE nor CHECKPOINT after the insert (to measure their absence)",
    )
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count (SEED_LEADS) must be at least 1")
    url = stack_url(stack.STATE_DIR)
    if why := refusal(url, stack.postgres_dir(args.port) / "data"):
        print(f"Refused: not the database of `make stack` on STACK_PORT={args.port}: {why}.",
              file=sys.stderr)  # fmt: skip
        return 2
    engine = sa.create_engine(url)
    started = time.monotonic()
    try:
        written = seed(engine, args.count, settle=args.settle)
    except AlreadySeeded as error:
        print(
            f"Refused: {error}; `make stack-down`, `make stack` for an empty one.", file=sys.stderr
        )
        return 3
    finally:
        engine.dispose()
    took = time.monotonic() - started
    settled = " (then VACUUM ANALYZE, CHECKPOINT)" if args.settle else " (not settled)"
    print(f"Seeded in {took:.1f} s{settled}:")
    for table, rows in written.items():
        print(f"  {table:24} {rows:7,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

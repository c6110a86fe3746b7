"""The pending caps hold on every path that claims a slot (issue 43, item 1), on SQLite and
PostgreSQL: the intake's insert, the visitor's release after a solved challenge, the
spool's drain, simultaneous requests, while the database is thought down; a mailbox as
the auto-reply allowance counts it (Gmail's dots, ``+tags``), a network per IPv4 /24 or
IPv6 /48. A release refused for its slot offers other hours, and the visitor's corrected
resend releases the one lead. The owner's release (the desk's seam) says what it did."""

import datetime as dt
import threading
import time
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from limits.aio.storage import MemoryStorage
from pytest_httpserver import HTTPServer
from sqlmodel import Session, col, select

from agency_site.bookings import reschedule, slots
from agency_site.bookings.caps import PendingCaps
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.forms.declarations import (
    CHALLENGE_FIELD,
    FORM_TOKEN_FIELD,
    IDEMPOTENCY_FIELD,
)
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result
from agency_site.leads.intake import LeadIntake
from agency_site.leads.models import mailbox_digest
from agency_site.leads.ratelimit import RateLimiter, network_digest
from agency_site.leads.spam.screen import SpamScreen
from agency_site.leads.spool import Spool, SpooledLead
from agency_site.leads.spool_drain import SpoolDrain
from agency_site.leads.statuses import LeadStatus, SpamReason
from agency_site.leads.store import LeadStore
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_busy_bookings import busy_at
from tests.emailjs_fake import accept_sends, make_client, sent_payloads
from tests.lead_store import (
    BOOKING_FIELDS,
    add_held_booking,
    bookings_of,
    make_delivery,
    new_engine,
    plugged,
)
from tests.leads.test_durable import down_engine
from tests.leads.test_intake import booking_form, make_intake, submit
from tests.leads.test_spam import Clock, tokens_at
from tests.leads.test_spam_challenge import challenges, solve
from tests.run_async import run

# The open slots of a working day, in order.
TIMES = ("09:00", "10:00", "11:00", "12:00", "15:00", "16:00", "17:00", "18:00")
IP = "203.0.113.7"


def capped(store: LeadStore, per_email: int = 2, per_network: int = 6) -> None:
    bookings_of(store).caps = PendingCaps(per_email, per_network)


def screened(
    store: LeadStore,
    clock: Clock | None = None,
    *,
    per_ip: int = 100,
    emailjs: HTTPServer | None = None,
    spool: Spool | None = None,
) -> LeadIntake:
    """An intake with the spam screen on (the time trap, the challenges) as the site runs."""
    screen = SpamScreen(tokens=tokens_at(clock or Clock()), challenges=challenges())
    client = make_client(emailjs) if emailjs is not None else None
    limiter = RateLimiter(MemoryStorage(), per_ip=per_ip, window_s=600)
    return LeadIntake(store, make_delivery(store, client), limiter, 8.0, spool, screen=screen)


def key() -> str:
    return uuid.uuid4().hex


def bot_books(intake: LeadIntake, form: dict, ip: str = IP) -> Result:
    """A script posting a booking with no form token (soft-flagged: challenged), solving the
    challenge it gets and sending the same submission again, as the widget does."""
    form = {IDEMPOTENCY_FIELD: key(), **form}
    first = submit(intake, LeadKind.BOOKING, form, ip)
    if first.result is not Result.CHALLENGE:
        return first.result
    solved = form | {CHALLENGE_FIELD: solve(first.challenge)}
    return submit(intake, LeadKind.BOOKING, solved, ip).result


def held(store: LeadStore) -> list[Booking]:
    """The pending bookings holding a slot."""
    with Session(store.engine) as session:
        query = select(Booking).where(
            Booking.state == BookingStatus.PENDING, col(Booking.active_slot).is_not(None)
        )
        return list(session.exec(query))


# --- The challenge path ------------------------------------------------------------------


def test_one_address_holds_two_pending_bookings_through_the_challenge_path(
    store: LeadStore,
) -> None:
    """The probe of issue 43: six bookings of one address, each soft-flagged, challenged,
    solved and sent again (before: all six held their slots, with no network kept)."""
    capped(store)
    intake = screened(store)
    results = [bot_books(intake, booking_form(time=time)) for time in TIMES[:6]]
    assert results == [Result.QUEUED] * 2 + [Result.INVALID] * 4
    assert len(held(store)) == 2
    # Released with the solving request's network: the per-network cap counts them.
    assert all(booking.network and len(booking.network) == 64 for booking in held(store))
    # The refused ones stay in quarantine: nothing lost, nothing held.
    assert [lead.status for lead in store.all()].count(LeadStatus.SPAM) == 4


def test_one_network_holds_six_pending_bookings_through_the_challenge_path(
    store: LeadStore,
) -> None:
    capped(store)
    intake = screened(store)
    results = [
        bot_books(intake, booking_form(time=time, email=f"p{n}@example.com"), f"198.51.100.{n}")
        for n, time in enumerate(TIMES)
    ]
    assert results == [Result.QUEUED] * 6 + [Result.INVALID] * 2
    assert len(held(store)) == 6


# --- Mailboxes and networks ---------------------------------------------------------------


def test_gmail_dots_and_tags_are_one_mailbox(store: LeadStore) -> None:
    """As the auto-reply allowance counts them: a new spelling is no new mailbox."""
    capped(store)
    intake = screened(store)
    spellings = ("a.na+1@gmail.com", "an.a@googlemail.com", "ANA+reserva@gmail.com")
    outcomes = [
        bot_books(intake, booking_form(time=time, email=email), f"192.0.2.{n}")
        for n, (time, email) in enumerate(zip(TIMES, spellings, strict=False))
    ]
    assert outcomes == [Result.QUEUED, Result.QUEUED, Result.INVALID]
    assert len(held(store)) == 2


def test_the_addresses_of_one_ipv6_48_are_one_network(store: LeadStore) -> None:
    """A subscriber's /48 holds 65,536 /64s: each request from a new one is no new network."""
    capped(store, per_email=0, per_network=6)
    intake = screened(store)
    results = [
        bot_books(intake, booking_form(time=time, email=f"p{n}@example.com"), f"2001:db8:7:{n}::1")
        for n, time in enumerate(TIMES[:7])
    ]
    assert results == [Result.QUEUED] * 6 + [Result.INVALID]
    other = booking_form(time=TIMES[7], email="q@example.com")
    assert bot_books(intake, other, "2001:db8:8::1") is Result.QUEUED


# --- Concurrent requests ------------------------------------------------------------------


def race(db_url: str, forms: list[tuple[dict, str]], per_email: int, per_network: int) -> int:
    """Every (form, address) sent at the same moment, each by a worker of its own (its own
    engine and intake); how many bookings hold a slot after."""
    engines = [new_engine(db_url) for _ in forms]
    start = threading.Barrier(len(forms))

    def request(engine, form: dict, ip: str) -> None:
        store = plugged(engine, caps=PendingCaps(per_email, per_network))
        limiter = RateLimiter(MemoryStorage(), per_ip=100, window_s=600)
        intake = LeadIntake(store, make_delivery(store, None), limiter, 30.0)
        start.wait()
        run(intake.submit(LeadKind.BOOKING, form, ip))

    threads = [
        threading.Thread(target=request, args=(engine, form, ip))
        for engine, (form, ip) in zip(engines, forms, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    count = len(held(LeadStore(engines[0])))
    for engine in engines:
        engine.dispose()
    return count


def test_simultaneous_requests_cannot_pass_the_caps(db_url: str) -> None:
    """Eight requests at once, each for a free slot: the counts cannot all be read before
    any insert (PostgreSQL: the mailbox's and the network's advisory locks)."""
    one_address = [(booking_form(time=time), f"192.0.2.{n}") for n, time in enumerate(TIMES)]
    assert race(db_url, one_address, per_email=2, per_network=0) == 2
    day = dt.date.fromisoformat(booking_form()["date"]) + dt.timedelta(days=7)
    one_network = [
        (booking_form(time=time, email=f"p{n}@example.com", date=day.isoformat()), f"10.1.2.{n}")
        for n, time in enumerate(TIMES)
    ]
    assert race(db_url, one_network, per_email=0, per_network=3) == 2 + 3


# --- While the database is thought down, and the spool's drain ----------------------------


def test_the_caps_hold_while_the_database_is_thought_down(store: LeadStore) -> None:
    """A worker that saw a store fail tries once and does not wait: the caps are still
    counted, in that one try's transaction (before: skipped altogether, every booking
    held)."""
    capped(store)
    intake = make_intake(store, None, per_ip=100)
    results = []
    for time_ in TIMES[:4]:
        intake.down.until = time.monotonic() + 60
        results.append(submit(intake, LeadKind.BOOKING, booking_form(time=time_)).result)
    assert results == [Result.QUEUED] * 2 + [Result.INVALID] * 2
    assert len(held(store)) == 2


def test_a_drained_booking_over_a_cap_holds_no_slot_and_says_why(
    store: LeadStore, tmp_path: Path
) -> None:
    """Spooled while the database was down (the visitor told "received"): stored, never
    lost, but holding no slot past the cap, the reason kept for the agency."""
    capped(store)
    spool = Spool(tmp_path / "spool", "w1")
    down = LeadStore(down_engine(store.engine.dialect.name, tmp_path))
    offline = LeadIntake(
        down, make_delivery(down, None), RateLimiter(MemoryStorage(), 100, 600), 4.0, spool
    )
    answers = [submit(offline, LeadKind.BOOKING, booking_form(time=t), IP) for t in TIMES[:3]]
    assert [a.result for a in answers] == [Result.QUEUED] * 3
    lines = list(spool.leads())
    up = LeadIntake(
        store, make_delivery(store, None), RateLimiter(MemoryStorage(), 100, 600), 4.0, spool
    )
    assert SpoolDrain.of(up).drain() == 3
    assert len(store.all()) == 3 and len(held(store)) == 2
    # The network's digest, never the address nor the network itself.
    assert {line.network for line in lines} == {network_digest(IP)}
    assert not any(b"203.0.113" in line.line() for line in lines)
    with Session(store.engine) as session:
        [lost] = session.exec(select(Booking).where(col(Booking.slot_lost)))
    assert (lost.active_slot, lost.slot_lost_reason) == (None, "email_cap")
    assert lost.time == TIMES[2]


def test_a_spooled_booking_is_drained_with_the_network_of_its_request(
    store: LeadStore, tmp_path: Path
) -> None:
    capped(store, per_email=0, per_network=2)
    spool = Spool(tmp_path / "spool", "w1")
    day = dt.date.fromisoformat(booking_form()["date"])
    for n, time_ in enumerate(TIMES[:3]):
        fields = booking_form(time=time_, email=f"p{n}@example.com")
        fields = {k: fields[k] for k in ("name", "email", "phone", "date", "time", "message")}
        spool.append(
            SpooledLead(
                key(),
                LeadKind.BOOKING,
                fields,
                dt.datetime.now(dt.UTC),
                network=network_digest("2001:db8:5:1::1"),
            )
        )
    intake = LeadIntake(
        store, make_delivery(store, None), RateLimiter(MemoryStorage(), 100, 600), 4.0, spool
    )
    assert SpoolDrain.of(intake).drain() == 3
    assert len(held(store)) == 2
    assert [b.slot_lost_reason for b in slots_of(store, day)] == [None, None, "network_cap"]


def test_a_booking_holding_no_slot_claims_one_by_moving_only_within_the_caps(
    store: LeadStore, tmp_path: Path
) -> None:
    """A drained booking over its mailbox's cap holds no slot; its visitor's manage page
    moving it to a free hour would claim one: refused while the mailbox is at its cap, done
    once one of its pending bookings is answered."""
    capped(store)
    spool = Spool(tmp_path / "spool", "w1")
    day = dt.date.fromisoformat(booking_form()["date"])
    for time_ in TIMES[:3]:
        form = booking_form(time=time_)
        fields = {k: form[k] for k in ("name", "email", "phone", "date", "time", "message")}
        spool.append(SpooledLead(key(), LeadKind.BOOKING, fields, dt.datetime.now(dt.UTC)))
    intake = LeadIntake(
        store, make_delivery(store, None), RateLimiter(MemoryStorage(), 100, 600), 4.0, spool
    )
    assert SpoolDrain.of(intake).drain() == 3
    first, _, lost = slots_of(store, day)
    assert lost.slot_lost_reason == "email_cap"
    rules = reschedule.MoveRules(notice=dt.timedelta(0), max_moves=3)

    def move_lost() -> reschedule.Moved | reschedule.MoveRefused:
        moved, _ = reschedule.move(
            store.engine,
            lost.lead_id,
            day,
            TIMES[5],
            version=0,
            now=dt.datetime.now(dt.UTC),
            rules=rules,
            calendar=WorkingCalendar(),
            pending_caps=bookings_of(store).caps,
        )
        return moved

    assert move_lost() is reschedule.Moved.SLOT_TAKEN
    assert len(held(store)) == 2
    slots.decide(store.engine, first.lead_id, BookingStatus.CONFIRMED)
    assert move_lost() is reschedule.Moved.DONE
    assert {b.time for b in held(store)} == {TIMES[1], TIMES[5]}


def slots_of(store: LeadStore, day: dt.date) -> list[Booking]:
    with Session(store.engine) as session:
        query = select(Booking).where(Booking.date == day).order_by(col(Booking.time))
        return list(session.exec(query))


# --- A refused release offers other hours; the corrected resend is the same lead ------------


@pytest.mark.parametrize("token", ["too_fast", "none"])
def test_a_quick_visitor_on_a_busy_hour_is_offered_other_hours_then_released_once(
    store: LeadStore, emailjs: HTTPServer, token: str
) -> None:
    """The probe of issue 43: a person filling the form under the time trap (autofill) asks
    for an hour the owner's calendar marks busy. Before: challenged, solved, released
    holding no slot and delivered, the visitor offered nothing. Now: the release is refused
    with the nearest free hours, the lead stays in quarantine; the visitor picks one and the
    page sends the changed submission (a new key, the old proof): the same lead is released
    with the new hour, delivered once."""
    accept_sends(emailjs)
    clock = Clock()
    intake = screened(store, clock, emailjs=emailjs)
    form = booking_form(time="10:00", **{IDEMPOTENCY_FIELD: key()})
    day = dt.date.fromisoformat(form["date"])
    bookings_of(store).busy = lambda: busy_at(day, "10:00")
    if token == "too_fast":
        form[FORM_TOKEN_FIELD] = intake.screen.tokens.issue()
        clock.now += 1
    challenged = submit(intake, LeadKind.BOOKING, form)
    assert challenged.result is Result.CHALLENGE
    proof = solve(challenged.challenge)

    refused = submit(intake, LeadKind.BOOKING, form | {CHALLENGE_FIELD: proof})
    assert refused.result is Result.INVALID and list(refused.errors) == ["time"]
    assert "09:00 del" in refused.errors["time"] and "11:00 del" in refused.errors["time"]
    [lead] = store.all()
    assert lead.status == LeadStatus.SPAM and held(store) == []
    assert sent_payloads(emailjs) == []  # Nothing reached the agency.
    # Sent again unchanged: refused again, nothing changes.
    assert (
        submit(intake, LeadKind.BOOKING, form | {CHALLENGE_FIELD: proof}).result is Result.INVALID
    )

    clock.now += 30  # The visitor reads, picks 11:00: the page makes a new key.
    corrected = form | {"time": "11:00", IDEMPOTENCY_FIELD: key(), CHALLENGE_FIELD: proof}
    assert submit(intake, LeadKind.BOOKING, corrected).result is Result.SENT
    assert submit(intake, LeadKind.BOOKING, corrected).result is Result.SENT  # The fallback.
    [lead] = store.all()  # One lead, never two.
    assert (lead.status, lead.fields["time"]) == (LeadStatus.SENT, "11:00")
    assert lead.idempotency_key == corrected[IDEMPOTENCY_FIELD]
    assert lead.spam_reason in (SpamReason.TOO_FAST, SpamReason.NO_TOKEN)
    [booking] = held(store)
    assert (booking.lead_id, booking.time, booking.slot_lost) == (lead.id, "11:00", False)
    [mail] = sent_payloads(emailjs)
    assert "11:00" in str(mail["template_params"])


@pytest.mark.parametrize("token", ["too_fast", "none"])
def test_a_solved_or_corrected_resend_while_the_database_is_down_is_drained_into_its_lead(
    store: LeadStore, tmp_path: Path, token: str
) -> None:
    """The database stops answering as the widget sends its proof (or the visitor's other
    hour): told "received" (spooled, never refused), and the drain releases the one lead in
    quarantine with what the visitor finally sent, its slot within the rules."""
    clock = Clock()
    intake = screened(store, clock, spool=Spool(tmp_path / "spool", "w1"))
    up, down = store.engine, down_engine(store.engine.dialect.name, tmp_path)

    def challenged(time_: str) -> tuple[dict, str]:
        form = booking_form(time=time_, email=f"{time_[:2]}@example.com")
        form[IDEMPOTENCY_FIELD] = key()
        if token == "too_fast":
            form[FORM_TOKEN_FIELD] = intake.screen.tokens.issue()
            clock.now += 1
        answer = submit(intake, LeadKind.BOOKING, form)
        assert answer.result is Result.CHALLENGE
        clock.now += 30
        return form, solve(answer.challenge)

    solved_form, solved_proof = challenged("09:00")  # Solved as the database goes down.
    busy_form, busy_proof = challenged("10:00")  # Refused (busy), corrected as it goes down.
    day = dt.date.fromisoformat(busy_form["date"])
    bookings_of(store).busy = lambda: busy_at(day, "10:00")
    refused = submit(intake, LeadKind.BOOKING, busy_form | {CHALLENGE_FIELD: busy_proof})
    assert refused.result is Result.INVALID
    corrected = busy_form | {"time": "11:00", IDEMPOTENCY_FIELD: key(), CHALLENGE_FIELD: busy_proof}

    store.engine = down
    assert submit(
        intake, LeadKind.BOOKING, solved_form | {CHALLENGE_FIELD: solved_proof}
    ).result is (Result.QUEUED)
    assert submit(intake, LeadKind.BOOKING, corrected).result is Result.QUEUED
    store.engine = up
    assert SpoolDrain.of(intake).drain() == 2
    leads = {lead.fields["email"]: lead for lead in store.all()}
    assert len(leads) == 2  # One lead each, never two.
    assert {email: lead.status for email, lead in leads.items()} == {
        "09@example.com": LeadStatus.QUEUED,
        "10@example.com": LeadStatus.QUEUED,
    }
    moved = leads["10@example.com"]
    assert (moved.fields["time"], moved.idempotency_key) == ("11:00", corrected[IDEMPOTENCY_FIELD])
    assert sorted(booking.time for booking in held(store)) == ["09:00", "11:00"]
    down.dispose()


def test_a_proof_stands_for_its_own_quarantined_lead_only(store: LeadStore) -> None:
    """Once its lead left quarantine, an old proof passes nothing: not the rate limit, not
    a missing token."""
    intake = screened(store, per_ip=3)
    form = booking_form(time="09:00", **{IDEMPOTENCY_FIELD: key()})
    proof = solve(submit(intake, LeadKind.BOOKING, form).challenge)
    assert submit(intake, LeadKind.BOOKING, form | {CHALLENGE_FIELD: proof}).result is Result.QUEUED
    for time_ in TIMES[1:4]:
        again = booking_form(time=time_, **{IDEMPOTENCY_FIELD: key(), CHALLENGE_FIELD: proof})
        assert submit(intake, LeadKind.BOOKING, again).result is Result.CHALLENGE
    assert len(held(store)) == 1


# --- The owner's release: the desk's seam ----------------------------------------------------


def quarantined(store: LeadStore, intake: LeadIntake, time_: str, email: str) -> int:
    form = booking_form(time=time_, email=email, **{IDEMPOTENCY_FIELD: key()})
    assert submit(intake, LeadKind.BOOKING, form).result is Result.CHALLENGE
    lead = store.by_key(form[IDEMPOTENCY_FIELD])
    assert lead is not None and lead.id is not None
    return lead.id


def test_the_owner_s_release_says_slot_held_slot_gone_or_not_in_quarantine(
    store: LeadStore,
) -> None:
    capped(store, per_email=1)
    intake = screened(store)
    first = quarantined(store, intake, "09:00", "ana@example.com")
    second = quarantined(store, intake, "10:00", "ana@example.com")
    taken = quarantined(store, intake, "11:00", "bea@example.com")
    busy = quarantined(store, intake, "12:00", "eva@example.com")
    day = dt.date.fromisoformat(booking_form()["date"])
    other = BOOKING_FIELDS | {"date": day.isoformat(), "time": "11:00", "email": "x@example.com"}
    add_held_booking(store, other)
    bookings_of(store).busy = lambda: busy_at(day, "12:00")

    held_now = store.release_spam(first)
    assert held_now and held_now.lost is None
    # The owner decided: the visitor's cap (one per mailbox) does not apply.
    assert store.release_spam(second).lost is None
    gone = store.release_spam(taken)
    assert gone and gone.lost == "taken"
    assert store.release_spam(busy).lost == "busy"
    again = store.release_spam(first)
    assert not again and again.lost is None  # Not in quarantine any more.
    assert not store.release_spam(10**6)
    assert [slots.get(store.engine, i).slot_lost_reason for i in (first, second, taken, busy)] == [
        None,
        None,
        "taken",
        "busy",
    ]


# --- A solved challenge still costs its rate-limit hit ----------------------------------------


def test_a_solved_challenge_passes_the_rate_limit_only_up_to_a_ceiling(store: LeadStore) -> None:
    """Past the limit a solved submission goes through, until the address has sent as many
    solved ones as the limit allows (before: every solved one passed, without end)."""
    clock = Clock()
    intake = screened(store, clock, per_ip=2)
    token = intake.screen.tokens.issue()
    clock.now += 10
    outcomes = []
    for n in range(8):
        form = {"email": f"p{n}@example.com", IDEMPOTENCY_FIELD: key(), FORM_TOKEN_FIELD: token}
        answer = run(intake.submit(LeadKind.HERO, form, IP))
        if answer.result is Result.CHALLENGE:
            answer = run(
                intake.submit(LeadKind.HERO, form | {CHALLENGE_FIELD: solve(answer.challenge)}, IP)
            )
        outcomes.append(answer.result)
    # Two within the limit, two solved past it, then none however solved.
    assert outcomes == [Result.QUEUED] * 4 + [Result.RATE_LIMITED] * 4
    assert len(store.all()) == 4


def test_the_migration_gives_every_booking_its_mailbox_so_the_old_ones_count(tmp_path) -> None:
    """5d2c8e7f1a64 on a SQLite file holding a pending booking: its mailbox is filled from
    its lead's address, so it counts toward the cap at once; then back down."""
    from alembic.config import Config

    from agency_site.leads import migrations
    from alembic import command

    url = f"sqlite:///{tmp_path / 'old.db'}"
    config = Config(str(migrations.ALEMBIC_INI))
    config.set_main_option("script_location", str(migrations.ALEMBIC_DIR))
    config.set_main_option("sqlalchemy.url", url)
    command.upgrade(config, "b8d2f4a6c913")
    engine = new_engine(url)
    day = dt.date.fromisoformat(booking_form()["date"])
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO leads (id, kind, fields, created_at, status, attempts) VALUES "
            """(1, 'booking', '{"email": "A.na+old@gmail.com"}', '2026-11-20 10:00:00', 'sent', 1)"""
        )
        connection.exec_driver_sql(
            "INSERT INTO bookings (lead_id, date, time, state, active_slot, created_at) "
            f"VALUES (1, '{day}', '09:00', 'pending', '{day}T09:00', '2026-11-20 10:00:00')"
        )
    migrations.upgrade(engine)
    store = plugged(engine, caps=PendingCaps(1, 0))
    [old] = held(store)
    assert old.mailbox == mailbox_digest("ana@gmail.com") and old.slot_lost_reason is None
    refused = submit(
        make_intake(store, None), LeadKind.BOOKING, booking_form(email="ana@gmail.com")
    )
    assert refused.result is Result.INVALID and list(refused.errors) == ["email"]
    command.downgrade(config, "b8d2f4a6c913")
    with engine.connect() as connection:
        columns = {c["name"] for c in sa.inspect(connection).get_columns("bookings")}
    assert "mailbox" not in columns and "slot_lost_reason" not in columns and "network" in columns
    engine.dispose()


def test_the_network_digests_are_keyed_by_the_site_s_secret_shared_by_every_host(
    tmp_path: Path,
) -> None:
    """The site secret's key for the digests (derived from BOOKING_LINK_SECRET's newest:
    every host compares the same digests); without the setting, this host's kept secret's;
    a /24 is never digested unkeyed, nor with the secret itself."""
    from agency_site.leads.ratelimit import network_key
    from agency_site.leads.site_secret import NETWORK_DIGEST, derived
    from tests.bookings.test_link_secret import settings_with

    shared = settings_with(tmp_path, "n" * 43 + ",o" + "o" * 42)
    assert network_key(shared) == derived("n" * 43, NETWORK_DIGEST)
    kept = network_key(settings_with(tmp_path / "host"))
    assert len(kept) >= 32 and kept == network_key(settings_with(tmp_path / "host"))
    assert network_digest(IP, kept) != network_digest(IP)
    assert network_digest(IP, kept) != network_digest(IP, "n" * 43)

"""The machinery of ``test_lead_life``: a lead's whole life as a Hypothesis state machine.

Random sequences of visitors (every form, hostile text), duplicates, a database that goes
down and up, workers killed holding a claim, an EmailJS that answers 200, 500, 429 or
nothing, spool drains, retry rounds, the operator's erase and the monitor's purge, the
booking links, visitors moving their bookings, the reminders rounds (one worker slow to
claim what it found), the webhook rounds to a receiver that is down now and then or loses
its answers, and a clock that moves (across Madrid's DST changes) drive the REAL lead core
on a real database; a small model says what must hold after every step. The spam screen is
on as the site runs it (the time trap's token, the ALTCHA challenge, the pending caps per
mailbox and network): visitors fill the form at a person's pace, too fast (autofill) or
with no token; a challenged visitor's widget solves it (or never does), and after a release
refused for its slot the visitor picks another hour; the owner releases quarantined leads
(``not-spam``); the owner's calendar gains and loses busy hours.

The known holes each invariant catches are named where it is checked (``hole (x)``), so a
failure says which promise broke. ``LEAD_LIFE_CHECKS`` (comma-separated check names, see
``CHECKS``) makes only those checks fail and counts the others: to look for one hole
while another is still open.
"""

import asyncio
import contextlib
import csv
import datetime as dt
import io
import ipaddress
import json
import os
import socket
import sys
import types
import unicodedata
import uuid
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from unittest import mock

import httpx
import sqlalchemy as sa
from hypothesis import currently_in_test_context, event
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from limits.aio.storage import MemoryStorage
from pytest_httpserver import HTTPServer
from sqlmodel import Session, SQLModel, col, select
from standardwebhooks import Webhook
from werkzeug import Request, Response

from agency_site import locale, paths
from agency_site.bookings import reminders, reschedule, slots
from agency_site.bookings.busy_times import BusyTimes, Interval
from agency_site.bookings.caps import PendingCaps
from agency_site.bookings.links import LinkSigner, VerifiedLink
from agency_site.bookings.mails import agency_links, agency_params
from agency_site.bookings.models import Booking, BookingStatus, slot_key
from agency_site.bookings.pages import create_app
from agency_site.emailjs import EmailJSClient
from agency_site.forms.declarations import (
    CHALLENGE_FIELD,
    FORM_TOKEN_FIELD,
    HONEYPOT_FIELD,
    LANGUAGE_FIELD,
)
from agency_site.forms.email import date_es
from agency_site.forms.kinds import LeadKind
from agency_site.forms.outcome import Result, Submission
from agency_site.leads import cli, database
from agency_site.leads.delivery import Delivery, RetryPolicy
from agency_site.leads.health import LeadsHealth, leads_api
from agency_site.leads.intake import LeadIntake
from agency_site.leads.lease import new_claim_token
from agency_site.leads.models import Lead, LeadWebhook, utcnow
from agency_site.leads.monitor import Monitor
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.rgpd import mark_spam_listed, retention_cutoff, spam_purge_after
from agency_site.leads.spam.challenge import Challenges
from agency_site.leads.spam.form_token import FormTokens
from agency_site.leads.spam.screen import SpamScreen
from agency_site.leads.spool import Spool
from agency_site.leads.spool_drain import SpoolDrain
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks import queue as webhook_queue
from agency_site.leads.webhooks.channel import WebhookChannel, WebhookPolicy
from agency_site.report.started import StartedCounter
from agency_site.site_api import create_app as site_api_app
from agency_site.working_calendar import agency_now, default_calendar
from scripts.local_servers import free_port
from tests.bookings.test_booking_pages import Client, desk_for
from tests.bookings.test_bookings import SECRET
from tests.emailjs_fake import accept_sends, refuse_sends, sent_payloads
from tests.lead_store import AGENCY_INBOX, TEMPLATES, new_engine, plugged
from tests.leads.test_spam_challenge import solve
from tests.run_async import run

RETENTION_MONTHS = 12
LEASE = dt.timedelta(minutes=2)
# A failed lead is due again after a minute: a round tries each due lead once.
POLICY = RetryPolicy(base=dt.timedelta(minutes=1), lease=LEASE, pause_s=0)
API = "https://api.test"
ACCEPTED = (Result.SENT, Result.QUEUED)
# The visitors' reminders: a day before, and two hours before.
REMINDERS = reminders.plan(24, 2)
# A visitor may move a booking up to two hours before it, three times.
MOVES = reschedule.MoveRules(notice=dt.timedelta(hours=2), max_moves=3)
# Where each example's clock starts: now, and a few hours before each DST change of Madrid.
CLOCK_STARTS = (
    None,
    dt.datetime(2026, 3, 28, 22, 0, tzinfo=dt.UTC),  # 23:00 CET; at 01:00 UTC 02:00 is 03:00.
    dt.datetime(2026, 10, 24, 22, 0, tzinfo=dt.UTC),  # 00:00 CEST; at 01:00 UTC 03:00 is 02:00.
)
CHECKS = (
    "kept",  # Every accepted lead is stored or spooled exactly once.
    "round",  # A retry round gets past every due lead (none left due after it).
    "delivered",  # At the end every stored lead is sent or marked for the owner.
    "drain",  # With the database up a drain empties the spool.
    "erased",  # An erased address never reappears.
    "slots",  # No slot has two active bookings.
    "links",  # A link acts only on its own booking.
    "purge",  # Nothing older than the retention period remains after a purge.
    "refused",  # A valid lead is never refused while the spool can take it.
    "reminders",  # A reminder: for a confirmed booking's current time, once per version.
    "webhooks",  # Each lead reaches the receiver once per webhook-id; erasure follows it.
    "caps",  # No mailbox or network holds more pending bookings than its cap by a claim.
    "busy",  # No booking claims an hour the owner's calendar is busy for.
    "one",  # A challenged submission, however corrected, is one lead; released, as sent.
    "owner",  # The owner's release says what it did: slot held, slot gone (why), not spam.
)
# The pending caps (BOOKING_MAX_PENDING_PER_EMAIL, _PER_NETWORK) as the site's defaults.
CAPS = PendingCaps(per_email=2, per_network=6)
# Where visitors send from: two of one IPv4 /24, two of one IPv6 /48 (other /64s), others.
ADDRESSES_IP = (
    "203.0.113.7",
    "203.0.113.99",
    "198.51.100.4",
    "2001:db8:1:1::1",
    "2001:db8:1:2::2",
    "2001:db8:2::3",
)
# How fast a visitor sends the form after its token: a person's pace, under the time trap
# (autofill), or with no token at all (it never arrived).
PACES = ("person", "person", "person", "person", "quick", "none")
# The webhook secret, and a schedule that tries a failed message again at the next round
# (the clock moves by days: no endpoint is paused here, pausing has its own tests).
HOOK_SECRET = "whsec_" + "c2ltdWxhdGlvbi1vZi1hLWxlYWQncy1saWZlLTMyYg=="
HOOK_POLICY = WebhookPolicy(
    schedule=(dt.timedelta(0),), jitter=0, timeout_s=1.0, pause_after=dt.timedelta(days=10**5)
)


def person(address: str) -> str:
    """Who an address belongs to: the model's own caseless form (NFC, trimmed, folded)."""
    return unicodedata.normalize("NFC", address.strip()).casefold()


def mailbox(address: str) -> str:
    """The mailbox an address reaches, in the model: no ``+tag``, Gmail ignores dots."""
    local, _, domain = person(address).rpartition("@")
    local = local.split("+", 1)[0]
    if domain in ("gmail.com", "googlemail.com"):
        local, domain = local.replace(".", ""), "gmail.com"
    return f"{local}@{domain}"


def network(ip: str) -> str:
    """The network an address counts in, in the model: its /24, or IPv6 /48."""
    address = ipaddress.ip_address(ip)
    return str(ipaddress.ip_network(f"{ip}/{24 if address.version == 4 else 48}", strict=False))


# An index into a list of the moment: half the time its first (the newest lead, the
# oldest e-mail...), else any.
picks = st.one_of(st.just(0), st.integers(0, 99))


# --- The clock ------------------------------------------------------------------------------


class Clock:
    """Moves the app's clock: every ``agency_site`` module reading ``dt.datetime.now`` sees
    the real time plus ``offset`` (the table's timestamps, 'today' in Madrid, the slots)."""

    def __init__(self) -> None:
        self.offset = dt.timedelta(0)
        clock = self
        real = dt.datetime

        class Shifted(real):
            @classmethod
            def now(cls, tz=None):  # type: ignore[override]
                return real.now(tz) + clock.offset

        self.shim = types.ModuleType("datetime")
        self.shim.__dict__.update(dt.__dict__)
        self.shim.datetime = Shifted

    def install(self, monkeypatch) -> None:
        for name, module in list(sys.modules.items()):
            if name.startswith("agency_site") and getattr(module, "dt", None) is dt:
                monkeypatch.setattr(module, "dt", self.shim)

    def start_at(self, moment: dt.datetime | None) -> None:
        self.offset = dt.timedelta(0) if moment is None else moment - dt.datetime.now(dt.UTC)

    def move(self, by: dt.timedelta) -> None:
        self.offset += by


# --- What visitors type -----------------------------------------------------------------------

# Pieces of text a visitor (or a crafted websocket event) may send: plain words, combining
# marks, bidi controls, lone surrogates, letters that grow when case-folded, emoji.
PIECES = (
    "Ana",
    "García",
    " ",
    "O'Brien",
    "e\u0301",  # e + combining acute.
    "\u0308",  # A combining diaeresis on its own.
    "\u202e",  # RIGHT-TO-LEFT OVERRIDE.
    "\u2066",  # LEFT-TO-RIGHT ISOLATE.
    "\u200f",  # RIGHT-TO-LEFT MARK.
    "\ud800",  # A lone high surrogate (JSON "\ud800" from the websocket).
    "\udfff",  # A lone low surrogate.
    "ß",
    "ﬃ",
    "ΐ",
    "李",
    "\U0001f600",
)
texts = st.one_of(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join),
    st.text(st.characters(codec=None, exclude_categories=()), min_size=2, max_size=12),
)
names = texts.map(lambda text: f"Vi {text}")
# Addresses: a few people (one with two spellings), and long ones that grow when
# case-folded (ß -> ss, ﬃ -> ffi, ΐ -> three code points): some pass the 254-character
# limit of the form and fold to more than the table's 320.
PLAIN_ADDRESSES = (
    "ana@example.com",
    "Ana@Example.com",
    "bea@example.org",
    "straße@example.com",
    "STRASSE@example.com",
    "l.u.z+citas@gmail.com",  # Three spellings of one Gmail mailbox.
    "luz@googlemail.com",
    "Luz+otra@gmail.com",
    "ﬃ@example.es",
    # Within the form's 254 octets, folded to 335 characters (ΐ folds to three).
    "ΐ" * 60 + "@" + ".".join(["ΐ" * 6] * 8) + ".es",
)
LONG_FOLDING = PLAIN_ADDRESSES[-1]
long_addresses = st.builds(
    lambda local, n, letter, size, labels: (
        local * n + "@" + ".".join([letter * size] * labels) + ".es"
    ),
    st.sampled_from(("ß", "ﬃ", "ΐ")),
    st.integers(20, 64),
    st.sampled_from(("ß", "ΐ")),
    st.integers(4, 20),
    st.integers(1, 9),
)
addresses = st.one_of(st.sampled_from(PLAIN_ADDRESSES), long_addresses)


@dataclass(frozen=True)
class Visit:
    """What a visitor types into a form (the slot and the pack by their index among the
    ones open at that moment, the slot ``days`` days ahead or more); printed as is in a
    failing sequence."""

    kind: LeadKind
    address: str
    name: str
    message: str
    slot: int
    pack: int
    language: str
    honeypot: bool
    days: int = 0
    pace: str = "person"  # PACES.
    ip: int = 0  # ADDRESSES_IP's.


visits = st.builds(
    Visit,
    # Bookings twice as often: slots, links and drains meet there.
    kind=st.sampled_from([LeadKind.HERO, LeadKind.BOOKING, LeadKind.BOOKING, LeadKind.QUOTE]),
    address=addresses,
    name=names,
    message=st.one_of(st.just(""), texts),
    slot=st.integers(0, 2),
    pack=st.integers(0, 20),
    language=st.sampled_from(["es", "ca"]),
    honeypot=st.integers(0, 9).map(lambda n: n == 0),  # A browser's autofill, now and then.
    # Most want the first free slots; some book days ahead (their reminders go out).
    days=st.sampled_from([0, 0, 0, 1, 3]),
    pace=st.sampled_from(PACES),
    ip=st.integers(0, len(ADDRESSES_IP) - 1),
)


@dataclass
class Submitted:
    """A submission the visitor was told was received."""

    key: str
    kind: LeadKind
    data: dict[str, str]
    who: str  # ``person`` of its address.
    tag: str  # Its phone number, unique: tells its e-mails and pages apart.


@dataclass
class LinkTaken:
    """A booking link as its e-mail carried it, and whose booking it was for."""

    action: str
    token: str
    owner: str  # The idempotency key of the lead it was made for.
    lead_id: int  # That lead's id when the e-mail went out.
    used: bool = False


@dataclass
class Challenged:
    """A submission answered with a challenge (stored in quarantine), and what its page
    did since: the widget's proof, the keys it sent it under (a new one per change)."""

    first_key: str  # Its lead's key until it is released (then ``key``'s).
    kind: LeadKind
    data: dict[str, str]  # The form as last sent.
    ip: str
    challenge: str
    tag: str
    key: str = ""  # The page's key now.
    keys: set[str] = field(default_factory=set)  # Every key the page sent it under.
    proof: str | None = None
    refused: bool = False  # Its release was refused for its slot: another hour is picked.
    done: bool = False  # Released (accepted) by the visitor's page.


class Receiver:
    """The agency's webhook endpoint, a real local server: it checks each signature (not
    the timestamp's age: the simulation's clock moves), keeps each message once by its
    ``webhook-id`` as the Standard Webhooks specification tells receivers to, and answers
    as the simulation says: ``ok``; ``down`` (500, nothing kept); ``lost`` (kept, then 500:
    its answer lost, the site sends it again)."""

    PATH = "/hooks/leads"

    def __init__(self) -> None:
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.server.start()
        self.server.expect_request(self.PATH, method="POST").respond_with_handler(self.handle)
        self.signer = Webhook(HOOK_SECRET)
        self.reset()

    def reset(self) -> None:
        self.mode = "ok"
        self.kept: dict[str, dict] = {}  # Each message once, by its webhook-id.
        self.order: list[str] = []  # The webhook-ids in the order first kept.
        self.tries: Counter = Counter()  # Deliveries per webhook-id (a lost answer: more).
        self.wrong: list[str] = []  # Bad signatures, an id reused for another message.
        self.server.clear_log()

    @property
    def url(self) -> str:
        return self.server.url_for(self.PATH)

    def handle(self, request: Request) -> Response:
        body = request.get_data(as_text=True)
        msg_id = request.headers.get("webhook-id", "")
        stamp = dt.datetime.fromtimestamp(int(request.headers.get("webhook-timestamp", 0)), dt.UTC)
        expected = self.signer.sign(msg_id, stamp, body)
        if expected not in request.headers.get("webhook-signature", "").split(" "):
            self.wrong.append(f"{msg_id}: bad signature")
            return Response("bad signature", status=400)
        if self.mode == "down":
            return Response("down", status=500)
        payload = json.loads(body)
        self.tries[msg_id] += 1
        if msg_id not in self.kept:
            self.kept[msg_id] = payload
            self.order.append(msg_id)
        else:
            first = self.kept[msg_id]
            if (first["type"], first["data"].get("lead_id")) != (
                payload["type"],
                payload["data"].get("lead_id"),
            ):
                self.wrong.append(f"{msg_id}: was {first['type']}, now {payload['type']}")
        return Response("", status=500 if self.mode == "lost" else 204)

    def close(self) -> None:
        self.server.clear()
        self.server.stop()


@dataclass
class World:
    """The real pieces, shared by every example of one test (one database)."""

    url: str
    folder: Path
    emailjs: HTTPServer
    engine: sa.Engine = field(init=False)
    down: sa.Engine = field(init=False)
    counts: Counter = field(default_factory=Counter)
    clock: Clock = field(default_factory=Clock)
    receiver: Receiver = field(default_factory=Receiver)

    def __post_init__(self) -> None:
        self.dialect = "postgresql" if self.url.startswith("postgresql") else "sqlite"
        self.engine = new_engine(self.url)
        if self.dialect == "postgresql":
            port = free_port()  # A port nobody listens on.
            down_url = f"postgresql+psycopg://agency:x@127.0.0.1:{port}/agency"
            self.down = database.create_engine(down_url, connect_timeout_s=1, statement_timeout_s=1)
        else:  # A SQLite file in a folder that does not exist cannot be opened.
            self.down = sa.create_engine(f"sqlite:///{self.folder / 'missing' / 'leads.db'}")
        self.silent: socket.socket | None = None
        selected = os.environ.get("LEAD_LIFE_CHECKS", "").strip()
        self.fatal = set(selected.split(",")) if selected else set(CHECKS)

    def reset(self) -> None:
        """Empty every table, the spool and the fake's log: a new example starts clean."""
        with self.engine.begin() as connection:
            for table in reversed(SQLModel.metadata.sorted_tables):
                connection.execute(table.delete())
        for path in (self.folder / "spool").glob("*"):
            path.unlink()
        (self.folder / "erasures.log").unlink(missing_ok=True)
        self.emailjs.clear_log()
        accept_sends(self.emailjs)
        self.receiver.reset()
        if self.silent is not None:
            self.silent.close()
        # EmailJS that takes the connection and never answers: a read timeout.
        self.silent = socket.socket()
        self.silent.bind(("127.0.0.1", 0))
        self.silent.listen(64)

    def client(self, silent: bool = False) -> EmailJSClient:
        base = self.emailjs.url_for("").rstrip("/")
        if silent:
            assert self.silent is not None
            base = f"http://127.0.0.1:{self.silent.getsockname()[1]}"
        return EmailJSClient(base, "service_test", "public_test", "private_test", timeout_s=0.3)

    def close(self) -> None:
        if self.silent is not None:
            self.silent.close()
        self.receiver.close()
        self.engine.dispose()
        self.down.dispose()

    def report(self) -> str:
        """What the runs covered: each rule and check, how many times."""
        rows = sorted(self.counts.items())
        return "\n".join(f"  {name:40} {count:7}" for name, count in rows)


def _aware(moment: dt.datetime | None) -> dt.datetime | None:
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment


def machine(world: World) -> type[RuleBasedStateMachine]:
    """The state machine of one database's world."""

    class LeadLife(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            world.reset()
            # The bookings plugged in as the site runs them, their e-mail carrying the links,
            # with the pending caps and the owner's busy times (``self.busy``).
            self.busy: set[tuple[dt.date, str]] = set()
            self.store = plugged(
                world.engine,
                agency_email=lambda engine, lead_id: agency_params(
                    engine, partial(agency_links, API, LinkSigner(SECRET), engine), lead_id
                ),
                caps=CAPS,
                busy=self.busy_times,
            )
            self.good = world.client()
            self.delivery = Delivery(self.store, self.good, TEMPLATES, AGENCY_INBOX, "a", POLICY)
            limiter = RateLimiter(MemoryStorage(), per_ip=1_000_000, window_s=600)
            self.spool = Spool(world.folder / "spool", "w1")
            # A submission's deadline of 5 s (30 s in production): the spool keeps a quarter
            # of it, time enough on a shared, loaded machine (at 1.5 s a CI run refused one).
            # The spam screen as the site runs it: the time trap's tokens (on a clock of the
            # visitors' own: ``token_now``) and the challenges.
            self.token_now = 1_800_000_000.0
            tokens = FormTokens((SECRET,), dt.timedelta(seconds=3), clock=lambda: self.token_now)
            challenges = Challenges((SECRET,), 20, dt.timedelta(hours=2))
            screen = SpamScreen(tokens=tokens, challenges=challenges)
            self.intake = LeadIntake(
                self.store, self.delivery, limiter, 5.0, self.spool, screen=screen
            )
            self.visitor_mails: list[tuple[str, dict[str, str]]] = []
            self.pages = Client(create_app(lambda: desk_for(self.store, 14, self.visitor_mails)))
            self.hooks = WebhookChannel(
                world.engine,
                (world.receiver.url,),
                (HOOK_SECRET,),
                plugins=self.store.plugins,
                policy=HOOK_POLICY,
            )
            self.hooks.register()
            # Per erasure: where the receiver's list of messages stood, the keys erased,
            # and the webhook-ids of theirs it kept (a lead.erased must name each).
            self.erasures: list[tuple[int, set[str], set[str]]] = []
            self.up = True
            self.accepted: dict[str, Submitted] = {}
            self.gone: set[str] = set()  # Keys erased or purged.
            self.erased: set[str] = set()  # People erased (``person``).
            self.links: list[LinkTaken] = []
            self.mails_seen = 0
            self.serial = 0
            # The reminders a slow worker found due and has not claimed yet.
            self.found: list[reminders.Due] = []
            # Each reminder sent: (the lead's key, the booking's version, which reminder).
            self.reminded: set[tuple[str, int, reminders.Which]] = set()
            self.ok = True  # False while a step runs: teardown settles only a sound run.
            # The operator's export and find are looked at after an erase or a drain (the
            # moments an erased lead could come back; the table is checked every step).
            self.operator_looks = False
            self.challenged: list[Challenged] = []
            self.ip_of: dict[str, str] = {}  # The address each key was sent from.
            # Leads the owner released (their slot claimed by the owner's decision: no caps).
            self.by_owner: set[int] = set()
            self.step_name = ""
            self.holding: dict[int, str | None] = {}  # Each booking's slot after the last step.

        @initialize(start=st.sampled_from(CLOCK_STARTS))
        def clock_starts(self, start: dt.datetime | None) -> None:
            """Today, or a few hours before Madrid's clocks change."""
            world.clock.start_at(start)
            self.count(f"clock starts {start:%Y-%m-%d}" if start else "clock starts today")

        # --- bookkeeping ---------------------------------------------------------------

        def count(self, name: str) -> None:
            world.counts[name] += 1
            if currently_in_test_context():  # Not in a replayed sequence.
                event(name)

        def check(self, name: str, holds: bool, message: str) -> None:
            """A promise: fails the run (when ``name`` is selected), else is counted."""
            world.counts[f"check {name}"] += 1
            if holds:
                return
            world.counts[f"VIOLATED {name}"] += 1
            if currently_in_test_context():
                event(f"violated {name}")
            if name in world.fatal:
                raise AssertionError(f"[{name}] {message}")

        def step(self, name: str) -> None:
            self.ok = False
            self.step_name = name
            self.count(f"rule {name}")

        def busy_times(self) -> BusyTimes:
            """The owner's calendar now: busy for the consultation at each of ``busy``."""
            return BusyTimes(
                tuple(
                    Interval(start, start + dt.timedelta(minutes=60))
                    for day, time in sorted(self.busy)
                    for start in [slots.slot_start(day, time)]
                )
            )

        def now(self) -> dt.datetime:
            return utcnow()

        def rows(self) -> list[Lead]:
            return LeadStore(world.engine).all()

        def live(self) -> dict[str, Submitted]:
            return {k: s for k, s in self.accepted.items() if k not in self.gone}

        def spooled(self) -> Counter:
            return Counter(lead.key for lead in self.spool.leads())

        # --- visitors ------------------------------------------------------------------

        def open_slots(self, later: dt.timedelta = dt.timedelta(0)) -> list[tuple[dt.date, str]]:
            """The first three bookable slots (``later`` than now): visitors often want the
            same one."""
            now, calendar = agency_now(), default_calendar()
            found: list[tuple[dt.date, str]] = []
            for days in range(0, 10):
                day = (now + later).date() + dt.timedelta(days=days)
                found += [(day, slot) for slot in calendar.open_slots(day, now)]
                if len(found) >= 3:
                    break
            return found[:3]

        def form(self, visit: Visit) -> dict[str, str]:
            """The form data a visit posts."""
            from agency_site.forms.declarations import pack_options, service_options

            self.serial += 1
            address = visit.address
            if person(address) in self.erased:  # Erased people do not come back here.
                address = f"fresh{self.serial}@example.net"
            tag = f"+34 6{self.serial:08d}"
            form: dict[str, str]
            if visit.kind is LeadKind.HERO:
                form = {"email": address}
            elif visit.kind is LeadKind.BOOKING:
                open_slots = self.open_slots(dt.timedelta(days=visit.days))
                date, time = open_slots[visit.slot % len(open_slots)]
                form = {
                    "name": visit.name,
                    "email": address,
                    "phone": tag,
                    "date": date.isoformat(),
                    "time": time,
                    "message": visit.message,
                }
            else:
                services = [option.value for option in service_options()]
                service = services[visit.slot % len(services)]
                packs = ["", *(o.value for o in pack_options() if o.group == service)]
                form = {
                    "name": visit.name,
                    "email": address,
                    "phone": tag,
                    "service": service,
                    "pack": packs[visit.pack % len(packs)],
                    "message": visit.message or "Hola",
                }
            form[LANGUAGE_FIELD] = visit.language
            if visit.honeypot:
                form[HONEYPOT_FIELD] = "https://example.com"
            if visit.pace != "none":  # Fetched at the first focus, then typed.
                form[FORM_TOKEN_FIELD] = self.intake.screen.tokens.issue()
            self.token_now += 1 if visit.pace == "quick" else 10
            return form

        def send(
            self, kind: LeadKind, form: dict[str, str], key: str, ip: str = ADDRESSES_IP[0]
        ) -> Submission:
            submission = run(self.intake.submit(kind, form, ip, idempotency_key=key))
            self.ip_of.setdefault(key, ip)
            self.count(f"told {submission.result}")
            # A lead the spool could have taken is never refused (the visitor must write).
            self.check(
                "refused",
                submission.result is not Result.STORE_FAILED,
                f"a {kind} lead was refused (store_failed) while the spool can take it "
                f"(database {'up' if self.up else 'down'}): {form!r}",
            )
            return submission

        @rule(visit=visits)
        def submit(self, visit: Visit) -> None:
            """A visitor sends a form (contact/hero, booking or quote)."""
            self.visit(visit)

        @rule(visit=visits.map(lambda visit: replace(visit, kind=LeadKind.BOOKING)))
        def book(self, visit: Visit) -> None:
            """A visitor books (a rule of its own: visitors are most of the steps)."""
            self.visit(visit)

        @rule(
            address=st.sampled_from(PLAIN_ADDRESSES[:8]),
            slot=st.integers(0, 2),
            days=st.sampled_from([0, 1, 3]),
            language=st.sampled_from(["es", "ca"]),
            answer=st.sampled_from([None, BookingStatus.CONFIRMED, BookingStatus.DECLINED]),
        )
        def book_plainly(
            self, address: str, slot: int, days: int, language: str, answer: BookingStatus | None
        ) -> None:
            """A visitor with a plain name books (most do), and the owner may answer at once
            (``answer``): bookings to move, cancel and remind."""
            fields = {"name": "Vi Ana", "message": "", "pack": 0, "honeypot": False}
            key = self.visit(
                Visit(LeadKind.BOOKING, address, slot=slot, days=days, language=language, **fields)
            )
            lead_id = self.stored_as(key) if self.up else None
            if answer is not None and lead_id is not None:
                decision, _ = slots.decide(world.engine, lead_id, answer)
                self.count(f"answer {decision}")

        def visit(self, visit: Visit) -> str:
            """Send ``visit``'s form; its idempotency key."""
            kind = visit.kind
            self.step(f"submit {kind}")
            form = self.form(visit)
            key = uuid.uuid4().hex
            ip = ADDRESSES_IP[visit.ip % len(ADDRESSES_IP)]
            answer = self.send(kind, form, key, ip)
            tag = form.get("phone", "")
            if answer.result in ACCEPTED:
                self.accepted[key] = Submitted(key, kind, form, person(form["email"]), tag)
                self.told_received(key)
            elif answer.result is Result.CHALLENGE:
                self.challenged.append(
                    Challenged(key, kind, form, ip, answer.challenge, tag, key, {key})
                )
            self.take_links()
            return key

        @precondition(lambda self: self.live())
        @rule(which=picks)
        def submit_again(self, which: int) -> None:
            """The same submission again (its idempotency key): the HTTP fallback, a retry."""
            self.step("submit again")
            keys = list(self.live())
            key = keys[which % len(keys)]
            submitted = self.accepted[key]
            self.send(submitted.kind, submitted.data, key, self.ip_of.get(key, ADDRESSES_IP[0]))
            self.take_links()

        # --- the challenged: the widget, the visitor, the owner -------------------------

        def waiting(self) -> list[Challenged]:
            """Challenged submissions the visitor's page has not had released yet."""
            return [c for c in self.challenged if not c.done]

        @precondition(lambda self: self.waiting())
        @rule(which=picks, another_hour=st.booleans(), slot=st.integers(0, 2))
        def widget_solves(self, which: int, another_hour: bool, slot: int) -> None:
            """A challenged visitor's widget solves it and the page sends the submission
            again with the proof; after a release refused for its slot the visitor may pick
            another hour first (``another_hour``): the page makes a new key for the changed
            submission and keeps the proof."""
            waiting = self.waiting()
            challenged = waiting[which % len(waiting)]
            changes = another_hour and challenged.refused and challenged.kind is LeadKind.BOOKING
            self.step("widget solves, another hour" if changes else "widget solves")
            self.solve(challenged, changes, slot)

        def solve(self, challenged: Challenged, another_hour: bool, slot: int) -> None:
            """The widget's proof sent (after another hour picked, when ``another_hour``)."""
            changes = another_hour and challenged.refused and challenged.kind is LeadKind.BOOKING
            if challenged.proof is None:
                challenged.proof = solve(challenged.challenge)
            if changes:
                date, time = self.open_slots()[slot % 3]
                challenged.data = challenged.data | {"date": date.isoformat(), "time": time}
                challenged.key = uuid.uuid4().hex
                challenged.keys.add(challenged.key)
            form = challenged.data | {CHALLENGE_FIELD: challenged.proof}
            answer = self.send(challenged.kind, form, challenged.key, challenged.ip)
            if answer.result in ACCEPTED:
                challenged.done = True
                who = person(form["email"])
                self.accepted[challenged.key] = Submitted(
                    challenged.key, challenged.kind, form, who, challenged.tag
                )
                self.told_received(challenged.key)
            elif answer.result is Result.INVALID:
                self.count(f"release refused: {', '.join(answer.errors)}")
                challenged.refused = True
            self.take_links()

        @rule(
            address=st.sampled_from(PLAIN_ADDRESSES[:8]),
            slot=st.integers(0, 2),
            days=st.sampled_from([0, 0, 1, 3]),
            ip=st.integers(0, len(ADDRESSES_IP) - 1),
            pace=st.sampled_from(["quick", "none"]),
            widget=st.sampled_from(["solves", "solves", "never"]),
            another=st.integers(0, 2),
        )
        def quick_booking(
            self, address: str, slot: int, days: int, ip: int, pace: str, widget: str, another: int
        ) -> None:
            """A visitor books faster than the time trap allows (autofill) or with no token
            (its fetch failed): challenged; the widget solves it (or never does) and, after
            a release refused for its slot, the visitor picks another hour."""
            fields = {"name": "Vi Rápida", "message": "", "pack": 0, "honeypot": False}
            visit = Visit(LeadKind.BOOKING, address, slot=slot, days=days, language="es", **fields)
            key = self.visit(replace(visit, pace=pace, ip=ip))
            if widget == "solves":
                for challenged in self.waiting():
                    if challenged.first_key == key:
                        self.solve(challenged, False, another)
                        if challenged.refused:
                            self.solve(challenged, True, another)

        @rule(
            address=st.sampled_from(PLAIN_ADDRESSES[5:8]),
            ip=st.integers(0, len(ADDRESSES_IP) - 1),
            pace=st.sampled_from(PACES),
        )
        def one_visitor_books_four(self, address: str, ip: int, pace: str) -> None:
            """One visitor (a script, or a person in a hurry) books four hours on four days,
            its widget solving every challenge: the caps per mailbox and network apply on
            every path (the form, the release after a solved challenge)."""
            fields = {"name": "Vi Muchas", "message": "", "pack": 0, "honeypot": False}
            for days in (0, 1, 2, 3):
                visit = Visit(
                    LeadKind.BOOKING, address, slot=days % 3, days=days, language="es", **fields
                )
                key = self.visit(replace(visit, pace=pace, ip=ip))
                for challenged in self.waiting():
                    if challenged.first_key == key:
                        self.solve(challenged, False, 0)

        def told_received(self, key: str) -> None:
            """A booking the visitor was just told was received, not spooled (the database
            answered), holds the slot asked for: the form's and the release's rules are
            strict, a slot they cannot give is refused with other hours."""
            lead = LeadStore(world.engine).by_key(key)
            if lead is None or lead.kind != LeadKind.BOOKING or lead.id is None:
                return
            booking = self.booking_rows().get(lead.id)
            if booking is None or booking.state != BookingStatus.PENDING:
                return
            self.count("check told received")
            # Known hole (i): a quick visitor's booking of a busy hour, released by its
            # solved challenge, was stored holding no slot and the visitor told "sent".
            self.check(
                "busy",
                booking.active_slot is not None,
                f"booking {lead.id} ({booking.date} {booking.time}) told received holding "
                f"no slot ({self.step_name})",
            )

        @precondition(lambda self: self.up)
        @rule(which=picks)
        def owner_releases(self, which: int) -> None:
            """The owner says "not spam" of a quarantined lead (the desk, ``leads not-spam``):
            delivered as if it had just arrived, a booking's slot held if still free and not
            busy (the visitors' caps do not apply), else stored without it; the answer says
            which, or that it was not in quarantine."""
            self.step("owner releases")
            quarantined = [lead for lead in self.rows() if lead.status == LeadStatus.SPAM]
            if not quarantined:
                return
            lead = quarantined[which % len(quarantined)]
            assert lead.id is not None
            before = self.booking_rows()
            taken = {b.active_slot for b in before.values() if b.active_slot}
            released = self.store.release_spam(lead.id)
            self.check("owner", bool(released), f"lead {lead.id} in quarantine was not released")
            self.count(f"owner release: {released.lost or 'held'}")
            booking = self.booking_rows().get(lead.id)
            if lead.kind == LeadKind.BOOKING and booking is not None:
                day, time = booking.date, booking.time
                free = slot_key(day, time) not in taken and (day, time) not in self.busy
                self.check(
                    "owner",
                    (released.lost is None) == free == (booking.active_slot is not None),
                    f"lead {lead.id} released ({released.lost}) for {day} {time}, "
                    f"free {free}, holding {booking.active_slot}",
                )
                self.check(
                    "owner",
                    released.lost == booking.slot_lost_reason,
                    f"lead {lead.id}: released {released.lost}, kept {booking.slot_lost_reason}",
                )
                self.by_owner.add(lead.id)
            again = self.store.release_spam(lead.id)
            self.check("owner", not again, f"lead {lead.id} was released twice")
            key = lead.idempotency_key or ""
            email = str(lead.fields.get("email", ""))
            tag = str(lead.fields.get("phone", ""))
            self.accepted[key] = Submitted(
                key, LeadKind(lead.kind), dict(lead.fields), person(email), tag
            )
            for challenged in self.challenged:
                if key in challenged.keys:
                    challenged.done = True
            self.take_links()

        @rule(slot=st.integers(0, 2), days=st.sampled_from([0, 0, 1, 3]), busy=st.booleans())
        def owner_calendar_changes(self, slot: int, days: int, busy: bool) -> None:
            """A meeting appears in the owner's calendar (accepted), or goes (declined,
            cancelled): one of the first open hours ``days`` days ahead is busy or free."""
            self.step("owner calendar busy" if busy else "owner calendar free")
            day, time = self.open_slots(dt.timedelta(days=days))[slot % 3]
            (self.busy.add if busy else self.busy.discard)((day, time))

        @precondition(lambda self: self.up)
        @rule(share=st.sampled_from([1, 2]))
        def owner_shown_spam(self, share: int) -> None:
            """The daily spam digest gets through, or the owner opens the desk's spam page:
            every quarantined lead (``share`` 1), or every other one (a page of them), is
            marked shown; their ``LEADS_SPAM_KEEP_DAYS`` start now."""
            self.step("owner shown spam")
            quarantined = [lead.id for lead in self.rows() if lead.status == LeadStatus.SPAM]
            mark_spam_listed(world.engine, quarantined[::share], utcnow())

        @rule(count=st.sampled_from([20, 200]))
        def flood_of_gets(self, count: int) -> None:
            """Anyone asks for ``count`` form tokens and health pages, the database up or
            down: neither writes, neither marks the database down for the visitors' next
            submission, neither spools anything (issue 43, item 2)."""
            self.step("flood of token and health GETs" + ("" if self.up else " (down)"))
            down_until, spooled = self.intake.down.until, self.spooled()
            counter = StartedCounter(lambda: self.store.engine)
            forms = site_api_app(
                lambda: self.intake, api_url=API, site_url=API, allowed_origins=(API,),
                trusted_hops=0, max_body_bytes=10_000, on_token=counter.seen,
            )  # fmt: skip
            health = leads_api(LeadsHealth(lambda: self.store, lambda: True, lambda: LEASE))

            async def flood() -> None:
                for app, path in (
                    (forms, paths.FORM_TOKEN + "?form=quote"),
                    (health, paths.LEADS_HEALTH),
                ):
                    transport = httpx.ASGITransport(app=app)
                    async with httpx.AsyncClient(transport=transport, base_url=API) as client:
                        await asyncio.gather(
                            *(client.get(path, headers={"Origin": API}) for _ in range(count))
                        )

            run(flood())
            self.check(
                "quiet GETs",
                self.intake.down.until == down_until and self.spooled() == spooled,
                "a flood of token and health GETs marked the database down or spooled",
            )

        # --- the database, the provider, the workers ---------------------------------

        @precondition(lambda self: self.up)
        @rule()
        def database_down(self) -> None:
            self.step("database down")
            self.up = False
            self.store.engine = world.down

        @precondition(lambda self: not self.up)
        @rule()
        def database_up(self) -> None:
            self.step("database up")
            self.up = True
            self.store.engine = world.engine

        @rule(answer=st.sampled_from(["200", "500", "429", "nothing"]))
        def provider(self, answer: str) -> None:
            """EmailJS accepts, fails, limits, or takes the request and never answers."""
            self.step(f"provider {answer}")
            self.delivery.client = world.client(silent=answer == "nothing")
            if answer == "200":
                accept_sends(world.emailjs)
            elif answer != "nothing":
                refuse_sends(world.emailjs, int(answer))

        @precondition(lambda self: self.up)
        @rule()
        def worker_killed(self) -> None:
            """A worker claims a due lead and dies: its claim stays until the lease ends."""
            self.step("worker killed")
            self.store.claim_due(new_claim_token(), LEASE, 1)

        @rule(
            by=st.sampled_from(
                [
                    dt.timedelta(minutes=3),
                    dt.timedelta(minutes=11),
                    dt.timedelta(hours=2),
                    dt.timedelta(hours=5),
                    dt.timedelta(days=1),
                    dt.timedelta(days=3),
                    dt.timedelta(days=8),  # Past LEADS_SPAM_KEEP_DAYS, within the retention.
                    dt.timedelta(days=400),
                ]
            )
        )
        def clock_moves(self, by: dt.timedelta) -> None:
            self.step("clock moves")
            world.clock.move(by)

        # --- the backend's loops -------------------------------------------------------

        @rule()
        def drain(self) -> None:
            """The drain loop moves the spool into the database."""
            self.step("drain")
            self.operator_looks = True
            try:
                SpoolDrain.of(self.intake).drain()
            except Exception as error:
                if self.up:
                    # Known hole (c): a lead the database refuses for its content (an
                    # address folding to more than 320 characters, on PostgreSQL) was
                    # spooled as if the database were down, and every drain stops at it.
                    self.check("drain", False, f"the drain failed, database up: {error!r}")
                return
            if self.up:
                self.check("drain", not self.spooled(), "the spool is not empty after a drain")

        def due(self) -> set[int]:
            now = self.now()
            due = set()
            for lead in self.rows():
                if lead.status == LeadStatus.QUEUED and _aware(lead.next_attempt_at) <= now:
                    due.add(lead.id)
                if lead.status == LeadStatus.SENDING and _aware(lead.claimed_until) < now:
                    due.add(lead.id)
            return due

        @precondition(lambda self: self.up)
        @rule()
        def retry_round(self) -> None:
            """One round of the retry loop: every due lead is tried once."""
            self.step("retry round")
            due = self.due()
            try:
                run(self.delivery.retry_due(limit=len(due) + 5))
            except Exception as error:
                # Known hole (a): a lead with a lone surrogate cannot be encoded for
                # EmailJS; the round raises at it and stops, each round after its lease.
                self.check("round", False, f"the retry round raised: {error!r}")
            left = due & self.due()
            self.check("round", not left, f"leads {sorted(left)} still due after a round")
            self.take_links()

        # --- the webhooks ----------------------------------------------------------------

        @rule(answer=st.sampled_from(["ok", "ok", "down", "lost"]))
        def receiver_answers(self, answer: str) -> None:
            """The webhook receiver works, is down, or keeps a message and loses its answer."""
            self.step(f"receiver {answer}")
            world.receiver.mode = answer

        @precondition(lambda self: self.up)
        @rule()
        def webhook_round(self) -> None:
            """One round of the webhook loop: each due message tried, until one fails."""
            self.step("webhook round")
            delivered = self.send_webhooks()
            self.count(f"webhook round: {min(delivered, 3)}+ delivered ({world.receiver.mode})")

        def send_webhooks(self) -> int:
            async def round_() -> int:
                try:
                    return await self.hooks.round()
                finally:
                    await self.hooks.aclose()

            return run(round_())

        def webhooks_received_rightly(self) -> None:
            """Every message signed, one message per webhook-id; nothing of an erased lead
            sent after its erasure (but the lead.erased itself)."""
            receiver = world.receiver
            self.check("webhooks", not receiver.wrong, f"the receiver got {receiver.wrong}")
            for since, keys, _ in self.erasures:
                late = [
                    msg
                    for msg in receiver.order[since:]
                    if any(msg.startswith(f"msg_{key}_") for key in keys)
                ]
                self.check("webhooks", not late, f"erased leads' messages {late} sent after")

        def webhooks_settle(self) -> None:
            """The receiver works again and every message goes out: each stored lead (not
            spam) reached it once by its webhook-id, each erasure named what it had kept."""
            world.receiver.mode = "ok"
            for _ in range(10):
                self.send_webhooks()
                with Session(world.engine) as session:
                    query = select(LeadWebhook).where(
                        col(LeadWebhook.status).not_in(webhook_queue.DONE)
                    )
                    waiting = session.exec(query).all()
                if not waiting:
                    break
            self.check("webhooks", not waiting, f"webhooks never delivered: {waiting}")
            kept = world.receiver.kept
            missing = [
                lead.id
                for lead in self.rows()
                if lead.status != LeadStatus.SPAM
                and f"msg_{lead.idempotency_key}_lead_created" not in kept
            ]
            self.check("webhooks", not missing, f"leads {missing} never reached the receiver")
            told = set()
            for payload in kept.values():
                if payload["type"] == "lead.erased":
                    told |= set(payload["data"]["webhook_ids"])
                    self.count("webhook lead.erased received")
            for _, keys, theirs in self.erasures:
                self.check(
                    "webhooks",
                    theirs <= told,
                    f"erased leads {sorted(keys)}: no lead.erased names {sorted(theirs - told)}",
                )
            again = sum(count - 1 for count in world.receiver.tries.values())
            world.counts["webhook messages kept"] += len(kept)
            world.counts["webhook messages sent again (kept once)"] += again
            self.webhooks_received_rightly()

        # --- the operator and the monitor ----------------------------------------------

        def operator(self, *argv: str) -> str:
            out = io.StringIO()
            cli.run(
                list(argv),
                self.delivery,
                out,
                retention_months=RETENTION_MONTHS,
                export_dir=world.folder / "exports",
                erasure_log=world.folder / "erasures.log",
                spool_dir=world.folder / "spool",
                ask=lambda: "no",
            )
            return out.getvalue()

        @precondition(lambda self: self.up and self.accepted)
        @rule(which=picks, spelling=st.sampled_from(["as sent", "upper", "swapped"]))
        def erase(self, which: int, spelling: str) -> None:
            """The operator erases a person (as they write their address)."""
            self.step("erase")
            keys = list(reversed(self.accepted))  # The newest first.
            address = self.accepted[keys[which % len(keys)]].data["email"]
            variant = {"upper": address.upper(), "swapped": f" {address.swapcase()} "}.get(
                spelling, address
            )
            if person(variant) != person(address):
                variant = address
            who = person(address)
            keys = {k for k, s in self.accepted.items() if s.who == who and k not in self.gone}
            kept = world.receiver.kept
            theirs = {msg for msg in kept if any(msg.startswith(f"msg_{k}_") for k in keys)}
            self.operator("erase", "--email", variant, "--yes")
            self.erasures.append((len(world.receiver.order), keys, theirs))
            self.erased.add(who)
            self.operator_looks = True
            self.gone |= keys
            self.pages_closed()

        def pages_closed(self) -> None:
            """The pages of challenged submissions whose lead is gone (erased, purged) send
            nothing more: a widget answers within seconds, long before either (a page that
            did would be a new submission, of a person erased or not)."""
            for challenged in self.challenged:
                lead_gone = challenged.keys & self.gone
                if lead_gone or person(challenged.data["email"]) in self.erased:
                    challenged.done = True

        @precondition(lambda self: self.up)
        @rule()
        def purge(self) -> None:
            """The monitor's daily purge: people whose last lead is past the retention."""
            self.step("purge")
            cutoff = retention_cutoff(RETENTION_MONTHS)
            before = self.rows()
            newest: dict[str | None, dt.datetime] = {}
            for lead in before:
                moment = _aware(lead.created_at)
                newest[lead.email_norm] = max(newest.get(lead.email_norm, moment), moment)
            monitor = Monitor(self.delivery, "", dt.timedelta(hours=1), RETENTION_MONTHS, API)
            monitor.purge()
            after = self.rows()
            kept = {lead.id for lead in after}
            for lead in before:
                if lead.id not in kept:
                    # Spam goes LEADS_SPAM_KEEP_DAYS after the owner was shown it (the
                    # digest, the desk), whoever wrote since; never before it was shown.
                    due = spam_purge_after(lead, monitor.spam_keep_days)
                    spam = lead.status == LeadStatus.SPAM and due is not None and due <= utcnow()
                    self.check(
                        "purge",
                        spam or newest[lead.email_norm] < cutoff,
                        f"lead {lead.id} purged though its person wrote after {cutoff}",
                    )
                    # The retention period is the law's limit and holds for spam too: a
                    # quarantined lead never shown (its digest failing all along, health
                    # saying so) still goes when its person's newest lead is past it.
                    self.check(
                        "purge",
                        lead.status != LeadStatus.SPAM
                        or lead.spam_listed_at is not None
                        or lead.spam_confirmed_at is not None
                        or newest[lead.email_norm] < cutoff,
                        f"quarantined lead {lead.id} purged before the owner was shown it",
                    )
                    self.gone.add(lead.idempotency_key or "")
            self.pages_closed()
            for lead in after:
                old = _aware(lead.created_at) < cutoff and lead.status != LeadStatus.SENDING
                self.check(
                    "purge",
                    not (old and newest[lead.email_norm] < cutoff),
                    f"lead {lead.id} of {lead.created_at} outlived the purge (cutoff {cutoff})",
                )

        # --- the booking links -----------------------------------------------------------

        def take_links(self) -> None:
            """The agency's confirm/decline links of every booking e-mail sent since."""
            payloads = sent_payloads(world.emailjs)
            for payload in payloads[self.mails_seen :]:
                params = payload["template_params"]
                owner = next(
                    (s for s in self.accepted.values() if s.tag and s.tag == params.get("phone")),
                    None,
                )
                lead = owner and LeadStore(world.engine).by_key(owner.key)
                if owner is None or lead is None:
                    continue
                for action in ("confirm", "decline"):
                    if url := params.get(f"{action}_url"):
                        token = url.split("?t=", 1)[1]
                        self.links.append(LinkTaken(action, token, owner.key, lead.id))
            self.mails_seen = len(payloads)

        def bookings(self) -> dict[int, tuple[str, str | None]]:
            with world.engine.connect() as connection:
                rows = connection.execute(
                    sa.select(Booking.lead_id, Booking.state, Booking.active_slot)
                ).all()
            return {lead_id: (state, held) for lead_id, state, held in rows}

        @precondition(lambda self: self.up and self.links)
        @rule(which=picks)
        def follow_link(self, which: int) -> None:
            """Someone opens a booking link and presses its button."""
            self.step("follow link")
            # Links of bookings gone first (an old e-mail), then the unused ones, newest first.
            order = sorted(
                reversed(self.links),
                key=lambda link: (self.stored_as(link.owner) == link.lead_id, link.used),
            )
            self.use_link(order[which % len(order)])

        def stored_as(self, key: str) -> int | None:
            """The id of the lead stored with this idempotency key, if any."""
            lead = LeadStore(world.engine).by_key(key)
            return lead.id if lead else None

        def use_link(self, link: LinkTaken) -> None:
            self.count(f"link {link.action}")
            lead = LeadStore(world.engine).by_key(link.owner)
            mine = lead is not None and lead.id == link.lead_id
            tag = self.accepted[link.owner].tag
            page = self.pages.get(f"{paths.booking_link(link.action)}?t={link.token}")
            # Known hole (b): on SQLite a new lead takes the id of the newest lead erased,
            # so the old booking's link opens the next person's booking.
            self.check(
                "links",
                page.status_code != 200 or (mine and tag in page.text),
                f"a {link.action} link of lead {link.lead_id} ({link.owner}) shows another "
                f"booking (its own {'exists' if mine else 'is gone'})",
            )
            before = self.bookings()
            answer = self.pages.post(paths.booking_link(link.action), {"t": link.token})
            after = self.bookings()
            changed = {i for i in before.keys() | after.keys() if before.get(i) != after.get(i)}
            self.check(
                "links",
                changed <= ({link.lead_id} if mine else set()),
                f"a {link.action} link of lead {link.lead_id} changed bookings {changed}",
            )
            self.check(
                "links",
                not (link.used and changed),
                f"a {link.action} link was used twice",
            )
            if answer.status_code == 200:
                link.used = True
                for template, params in self.visitor_mails:
                    if template == "visitor" and (url := params.get("cancel_url")):
                        token = url.split("?t=", 1)[1]
                        self.links.append(LinkTaken("cancel", token, link.owner, link.lead_id))
                self.visitor_mails.clear()

        # --- visitors moving their bookings, the reminders ------------------------------

        def booking_rows(self) -> dict[int, Booking]:
            with Session(world.engine) as session:
                return {booking.lead_id: booking for booking in session.exec(select(Booking))}

        @precondition(lambda self: self.up)
        @rule(which=picks, to=st.sampled_from([BookingStatus.CONFIRMED, BookingStatus.DECLINED]))
        def owner_answers(self, which: int, to: BookingStatus) -> None:
            """The owner confirms or declines a pending booking (as its e-mail's buttons)."""
            self.step(f"owner answers {to}")
            rows = self.booking_rows().values()
            pending = [b for b in rows if b.state == BookingStatus.PENDING]
            if pending:
                decision, _ = slots.decide(world.engine, pending[which % len(pending)].lead_id, to)
                self.count(f"answer {decision}")

        @precondition(lambda self: self.up)
        @rule(which=picks, slot=st.integers(0, 2), days=st.integers(0, 3), reconfirm=st.booleans())
        def visitor_moves(self, which: int, slot: int, days: int, reconfirm: bool) -> None:
            """A visitor moves their booking (pending or confirmed) to one of the first open
            slots ``days`` days later, as the manage page does (``reconfirm``: a moved
            confirmed booking is pending again)."""
            self.step("visitor moves")
            active = [b for b in self.booking_rows().values() if BookingStatus(b.state).active]
            if not active:
                return
            booking = active[which % len(active)]
            open_slots = self.open_slots(dt.timedelta(days=days))
            date, time = open_slots[slot % len(open_slots)]
            outcome, _ = reschedule.move(
                world.engine,
                booking.lead_id,
                date,
                time,
                version=booking.sequence,
                now=agency_now(),
                rules=replace(MOVES, reconfirm=reconfirm),
                calendar=default_calendar(),
                busy=self.busy_times(),
                pending_caps=CAPS,
            )
            self.count(f"move {outcome}")

        @precondition(lambda self: self.up)
        @rule(
            which=picks,
            reminder=st.sampled_from(REMINDERS),
            after=st.sampled_from(
                [dt.timedelta(0), dt.timedelta(minutes=7), dt.timedelta(hours=3)]
            ),
            monitor=st.booleans(),
        )
        def clock_to_a_reminder(
            self, which: int, reminder: reminders.Reminder, after: dt.timedelta, monitor: bool
        ) -> None:
            """Time passes until a confirmed meeting's reminder is due (and ``after`` more);
            ``monitor``: the monitor's reminders round runs then (else a worker is late)."""
            self.step("clock to a reminder")
            now = self.now()
            times = sorted(
                at
                for booking in self.booking_rows().values()
                if booking.state == BookingStatus.CONFIRMED
                and (at := slots.slot_start(booking.date, booking.time) - reminder.before) > now
            )
            if times:
                world.clock.move(times[which % len(times)] - now + after)
            if monitor:
                self.remind(slow=False)

        @precondition(lambda self: self.up)
        @rule()
        def reminders_found(self) -> None:
            """A worker's reminders round finds what is due, and is slow to claim it (the
            bookings may be moved, cancelled or declined meanwhile)."""
            self.step("reminders found")
            self.found = reminders.due(world.engine, self.now(), REMINDERS)

        @precondition(lambda self: self.up)
        @rule(slow=st.booleans())
        def reminders_round(self, slow: bool) -> None:
            """A reminders round of the monitor (``slow``: the worker that found reminders
            earlier goes on with what it found then)."""
            self.step("reminders round (slow)" if slow and self.found else "reminders round")
            self.remind(slow)

        def remind(self, slow: bool) -> None:
            before = self.booking_rows()
            sent: list[tuple[str, dict[str, str]]] = []
            desk = desk_for(self.store, 14, sent)
            if slow and self.found:
                found, self.found = self.found, []
                with mock.patch.object(reminders, "due", lambda *_: found):
                    run(reminders.send_due(desk, self.now(), REMINDERS))
            else:
                run(reminders.send_due(desk, self.now(), REMINDERS))
            self.reminded_rightly(before, sent)

        def reminded_rightly(
            self, before: dict[int, Booking], sent: list[tuple[str, dict[str, str]]]
        ) -> None:
            """Every reminder just sent is for a booking confirmed now, at its current time,
            claimed in this round for its current version, and the first of its kind."""
            after = self.booking_rows()
            for template, params in sent:
                self.count("reminder sent")
                token = params["cancel_url"].split("?t=", 1)[1]
                verified = LinkSigner(SECRET).verify(token, 10**10)
                assert isinstance(verified, VerifiedLink), verified
                booking = after.get(verified.lead_id)
                lead = LeadStore(world.engine).get(verified.lead_id)
                state = booking.state if booking else "gone"
                self.check(
                    "reminders",
                    template == "visitor" and state == BookingStatus.CONFIRMED,
                    f"a reminder went out for booking {verified.lead_id}, {state}",
                )
                if booking is None or lead is None:
                    continue
                with locale.active(lead.language):  # The e-mail's words: the visitor's.
                    when = (date_es(booking.date.isoformat()), booking.time)
                self.check(
                    "reminders",
                    (params["date_es"], params["time"]) == when,
                    f"booking {booking.lead_id}, now {booking.date} {booking.time}, was "
                    f"reminded of {params['date_es']} {params['time']}",
                )
                old = before.get(booking.lead_id)
                claimed = [
                    which
                    for which in reminders.Which
                    if getattr(booking, which.value) == booking.sequence
                    and (old is None or getattr(old, which.value) != booking.sequence)
                ]
                self.check(
                    "reminders",
                    bool(claimed),
                    f"booking {booking.lead_id} was reminded without claiming its version "
                    f"{booking.sequence}",
                )
                for which in claimed:
                    key = (lead.idempotency_key or "", booking.sequence, which)
                    self.check(
                        "reminders",
                        key not in self.reminded,
                        f"booking {booking.lead_id} got its {which.name} reminder of version "
                        f"{booking.sequence} twice",
                    )
                    self.reminded.add(key)
                # The visitor may cancel from the reminder (its manage link).
                if lead.idempotency_key in self.accepted:
                    self.links.append(
                        LinkTaken("cancel", token, lead.idempotency_key, booking.lead_id)
                    )

        # --- the promises --------------------------------------------------------------

        @invariant()
        def promises(self) -> None:
            rows = self.rows()
            spooled = self.spooled()
            stored = Counter(lead.idempotency_key for lead in rows)
            # Every accepted lead is stored or spooled, and stored once.
            for key, submitted in self.live().items():
                # Known hole (f): a form whose hidden honeypot field was filled (a
                # browser's autofill) is told "sent" and dropped.
                self.check(
                    "kept",
                    stored[key] == 1 or (stored[key] == 0 and spooled[key] >= 1),
                    f"accepted {submitted.kind} lead {key} is stored {stored[key]} times and "
                    f"spooled {spooled[key]} times: {submitted.data!r}",
                )
            self.erased_never_back(rows, spooled)
            self.one_booking_per_slot()
            self.claims_within_the_rules(rows)
            self.one_lead_per_challenge(stored)
            self.webhooks_received_rightly()
            self.ok = True

        # Steps in which the owner decides (a release from spam, a confirmation): the slot
        # is claimed by the owner, whatever the visitors' caps and the calendar say.
        OWNER_STEPS = ("owner releases", "owner answers confirmed", "follow link")

        def claims_within_the_rules(self, rows: list[Lead]) -> None:
            """Every slot claimed in the last step by a visitor's path (the form, the release
            after a solved challenge, the drain, a move) is not busy, and its mailbox and its
            network hold at most their caps of pending bookings with a slot after it."""
            bookings = self.booking_rows()
            before, self.holding = self.holding, {i: b.active_slot for i, b in bookings.items()}
            if self.step_name in self.OWNER_STEPS:
                return
            leads = {lead.id: lead for lead in rows}
            pending = [
                b for b in bookings.values() if b.state == BookingStatus.PENDING and b.active_slot
            ]

            def email(booking: Booking) -> str:
                lead = leads.get(booking.lead_id)
                return str(lead.fields.get("email", "")) if lead else ""

            def net(booking: Booking) -> str | None:
                lead = leads.get(booking.lead_id)
                ip = self.ip_of.get(lead.idempotency_key or "") if lead else None
                return network(ip) if ip and booking.lead_id not in self.by_owner else None

            for booking in bookings.values():
                if not booking.active_slot or booking.active_slot == before.get(booking.lead_id):
                    continue
                self.count("check claims")
                # Known hole (i): a quick visitor's booking of a busy hour, released from
                # quarantine by the solved challenge, was stored (slot_lost) and delivered.
                self.check(
                    "busy",
                    (booking.date, booking.time) not in self.busy,
                    f"booking {booking.lead_id} claimed {booking.active_slot}, busy then "
                    f"({self.step_name})",
                )
                if before.get(booking.lead_id) or booking.state != BookingStatus.PENDING:
                    continue  # It held a slot already: a move counts no new one.
                mine, where = mailbox(email(booking)), net(booking)
                same_mailbox = [b.lead_id for b in pending if mailbox(email(b)) == mine]
                # Known hole (h): a booking released by its solved challenge never met the
                # caps; nor one drained from the spool, or sent while the database was
                # thought down; Gmail's dots and +tags made new addresses.
                self.check(
                    "caps",
                    len(same_mailbox) <= CAPS.per_email,
                    f"{mine} holds {same_mailbox} pending after {self.step_name}",
                )
                if where is not None:
                    same_net = [b.lead_id for b in pending if net(b) == where]
                    self.check(
                        "caps",
                        len(same_net) <= CAPS.per_network,
                        f"{where} holds {same_net} pending after {self.step_name}",
                    )

        def one_lead_per_challenge(self, stored: Counter) -> None:
            """A challenged submission is one lead however often its page sent it again and
            under however many keys (the visitor's corrections); once released, with what
            the page sent last."""
            for challenged in self.challenged:
                count = sum(stored[key] for key in challenged.keys)
                gone = person(challenged.data["email"]) in self.erased or bool(
                    challenged.keys & self.gone
                )
                # Known hole (j): the corrected submission (another hour, a new key) was
                # stored as a second lead while the first stayed in quarantine.
                self.check(
                    "one",
                    count == 1 or (count == 0 and gone),
                    f"challenged submission {sorted(challenged.keys)} is {count} leads",
                )
                if challenged.done and count == 1 and stored[challenged.key] == 1:
                    lead = LeadStore(world.engine).by_key(challenged.key)
                    sent = {k: v for k, v in challenged.data.items() if k in ("date", "time")}
                    held = {k: str(lead.fields.get(k)) for k in sent} if lead else {}
                    self.check("one", held == sent, f"released {held}, the page sent {sent}")

        def erased_never_back(self, rows: list[Lead], spooled: Counter) -> None:
            if not self.erased:
                return
            self.count("check erased (table, spool)")
            # Known hole (d): the spool keeps an erased person's lead, and the next drain
            # stores it again.
            back = [lead.id for lead in rows if person(lead.fields.get("email", "")) in self.erased]
            self.check("erased", not back, f"erased people's leads {back} are in the table")
            in_spool = [
                lead.key
                for lead in self.spool.leads()
                if person(lead.fields["email"]) in self.erased
            ]
            self.check("erased", not in_spool, f"erased people's leads {in_spool} are spooled")
            if not self.up or not self.operator_looks:
                return
            self.operator_looks = False
            self.count("check erased (export, find)")
            export = list(csv.DictReader(io.StringIO(self.operator("export", "-o", "-"))))
            shown = [row["id"] for row in export if person(row["email"]) in self.erased]
            self.check("erased", not shown, f"the export shows erased people's leads {shown}")
            asked = {s.who: s.data["email"] for s in self.accepted.values() if s.who in self.erased}
            for address in asked.values():
                found = json.loads(self.operator("find", "--email", address))
                self.check("erased", not found, f"find shows an erased person: {found}")

        def one_booking_per_slot(self) -> None:
            with world.engine.connect() as connection:
                rows = connection.execute(
                    sa.select(
                        Booking.lead_id,
                        Booking.date,
                        Booking.time,
                        Booking.state,
                        Booking.active_slot,
                    )
                ).all()
            confirmed: Counter = Counter()
            for lead_id, date, time, state, held in rows:
                slot = slot_key(date, time)
                if state == BookingStatus.CONFIRMED:
                    confirmed[slot] += 1
                    # Known hole (e): a booking drained from the spool after its slot was
                    # taken holds no slot, and can still be confirmed.
                    self.check(
                        "slots",
                        held == slot,
                        f"booking {lead_id} is confirmed for {slot} without holding it",
                    )
            double = [slot for slot, count in confirmed.items() if count > 1]
            self.check("slots", not double, f"slots {double} have two confirmed bookings")

        def settle(self) -> None:
            """The database and EmailJS work again and time passes: every stored lead is
            delivered, or marked for the owner (rejected or held)."""
            self.count("settle")
            self.store.engine = world.engine
            self.up = True
            self.delivery.client = self.good
            accept_sends(world.emailjs)
            with contextlib.suppress(Exception):  # Checked by the drain rule.
                SpoolDrain.of(self.intake).drain()
            for _ in range(5):
                world.clock.move(dt.timedelta(days=1))
                if not self.due():
                    break
                try:
                    run(self.delivery.retry_due(limit=len(self.due()) + 5))
                except Exception as error:  # Known hole (a).
                    self.check("round", False, f"a retry round raised: {error!r}")
                    break
            # Sent, or set aside for the owner (rejected, held, or any other such status).
            waiting = [
                (lead.id, lead.status, lead.last_error)
                for lead in self.rows()
                if lead.status in (LeadStatus.QUEUED, LeadStatus.SENDING)
            ]
            # Known hole (a): the lead with a lone surrogate is never sent, nor set aside.
            self.check("delivered", not waiting, f"leads never delivered: {waiting}")
            # The agency answers its mail: every booking it was sent is confirmed, then every
            # other link (old ones too) is opened and pressed.
            self.take_links()
            for link in [link for link in self.links if link.action == "confirm"]:
                self.use_link(link)
                self.one_booking_per_slot()
            for link in [link for link in self.links if link.action != "confirm"]:
                self.use_link(link)
            self.webhooks_settle()

        def teardown(self) -> None:
            if self.ok:
                self.settle()

    return LeadLife

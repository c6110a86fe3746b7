"""A fuzz pass over every public endpoint of the backend (issue 43): Hypothesis drives the
real Starlette apps in process (httpx's ASGI transport), composed as ``site_api`` composes
them, on a SQLite file and on PostgreSQL, with requests of any method, path, query,
headers and body the endpoints take, near-valid ones among them (the forms' own fields, a
booking's signed links, the report's link). For every request:

- no 500 and no exception (httpx's transport raises what the app raises);
- **no database write without a valid submission**: every row of every table is the same
  after it, unless it was a form's POST the intake answered as stored (``sent``, ``queued``,
  or ``challenge``: quarantined for the visitor's proof of work) — and a GET writes nothing;
- every answer within its deadline (``DEADLINE_S``, an ``asyncio.timeout``: a hang fails,
  a slow answer does not).

The socket's events go through ``event_guard`` the same way: any JSON event is refused in
one short line or handed on, and a form's data that passes reaches the intake, which
answers without raising and writes only what it stores.
"""

import asyncio
import datetime as dt
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from limits.aio.storage import MemoryStorage
from starlette.applications import Starlette

from agency_site import client_errors, event_guard, paths
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import LinkAction, LinkSigner
from agency_site.bookings.pages import create_app as booking_app
from agency_site.forms.declarations import (
    BY_KIND,
    CHALLENGE_FIELD,
    FORM_TOKEN_FIELD,
    HONEYPOT_FIELD,
    IDEMPOTENCY_FIELD,
    LANGUAGE_FIELD,
)
from agency_site.forms.kinds import LeadKind
from agency_site.leads.health import LeadsHealth, leads_api
from agency_site.leads.intake import LeadIntake
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.spam.address_check import AddressScreen
from agency_site.leads.spam.challenge import Challenges
from agency_site.leads.spam.form_token import FormTokens
from agency_site.leads.spam.screen import SpamScreen
from agency_site.leads.spool import Spool
from agency_site.report.link import ReportLinks
from agency_site.report.started import StartedCounter
from agency_site.report.web import create_app as report_app
from agency_site.site_api import create_app as forms_app
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_bookings import SECRET, book
from tests.lead_store import BOOKING_FIELDS, make_delivery, new_engine, plugged
from tests.run_async import run

API = "https://api.agencia.test"
SITE = "https://agencia.test"
DEADLINE_S = 30.0  # A submission's own deadline is 5 s here; the rest answer at once.
# Examples per test and database (FUZZ_EXAMPLES=3000 --timeout=0 for a longer hunt).
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "250"))
# No "explain" phase: its reading of the source (ast) can crash CPython 3.11 on this
# file's deep strategies and hide the failing example.
FUZZ_PHASES = [phase for phase in Phase if phase is not Phase.explain]
HEALTH_TOKEN = "the-fuzzed-site-s-health-token"
DAY = WorkingCalendar().next_working_day(dt.date.today() + dt.timedelta(days=30))
STORED_ANSWERS = {"sent", "queued", "challenge"}


class Site:
    """The backend's ``/_site/`` endpoints over one database, as ``site_api`` builds them."""

    def __init__(self, db_url: str, folder: Path) -> None:
        self.engine = new_engine(db_url)
        self.store = plugged(self.engine)
        tokens = FormTokens(["a-secret-of-the-fuzzed-site-0123456789"], dt.timedelta(seconds=0))
        self.intake = LeadIntake(
            self.store,
            make_delivery(self.store, None),
            RateLimiter(MemoryStorage(), per_ip=10**6, window_s=60),
            deadline_s=5.0,
            spool=Spool(folder / "spool", "w1"),
            screen=SpamScreen(
                tokens=tokens,
                addresses=AddressScreen(None),
                challenges=Challenges(["a-secret-of-the-fuzzed-site-0123456789"], 10, HOUR),
            ),
        )
        self.tokens = tokens
        self.counter = StartedCounter(lambda: self.engine)
        self.signer = LinkSigner(SECRET)
        self.report_links = ReportLinks([SECRET], API, 60)
        self.booked = book(self.store, DAY, "10:00")
        every = sa.MetaData()
        every.reflect(self.engine)  # Every table the migrations made.
        self.tables = dict(every.tables)
        forms = forms_app(
            lambda: self.intake, api_url=API, site_url=SITE, allowed_origins=(SITE,),
            trusted_hops=1, max_body_bytes=32_768, body_timeout_s=2.0,
            get_tokens=lambda: tokens, on_token=self.counter.seen,
        )  # fmt: skip
        health = leads_api(
            LeadsHealth(lambda: self.store, lambda: False, lambda: HOUR, every_s=0),
            token=lambda: HEALTH_TOKEN,
        )
        desk = BookingDesk(
            engine=self.engine, signer=self.signer, send=_sent, calendar=WorkingCalendar(),
            api_url=API, site_url=SITE, agency_link_days=7,
        )  # fmt: skip
        errors = client_errors.create_app(allowed_origins=(SITE,), trusted_hops=1)
        self.app = Starlette(
            routes=[
                *forms.routes,
                *health.routes,
                *booking_app(lambda: desk, body_timeout_s=2.0).routes,
                *report_app(lambda: self.engine, lambda: self.report_links, SITE).routes,
                *errors.routes,
            ]
        )

    def snapshot(self) -> dict[str, str]:
        """A digest of every table's rows (all of them, in a stable order)."""
        digests = {}
        with self.engine.connect() as connection:
            for name, table in sorted(self.tables.items()):
                rows = sorted(repr(tuple(row)) for row in connection.execute(sa.select(table)))
                digests[name] = hashlib.sha256("\n".join(rows).encode()).hexdigest()
        return digests

    def link(self, action: LinkAction) -> str:
        from agency_site.bookings import slots

        key = slots.get(self.engine, self.booked).link_key
        return self.signer.token(action, self.booked, key)


HOUR = dt.timedelta(hours=1)


async def _sent(_template: str, _params: dict[str, str]) -> bool:
    return True


@pytest.fixture
def site(db_url: str, tmp_path: Path) -> Iterator[Site]:
    made = Site(db_url, tmp_path)
    yield made
    made.engine.dispose()


# --- What a request may be -----------------------------------------------------------------

printable = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
anything = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
header_values = st.one_of(
    printable, st.sampled_from([SITE, "https://evil.example", "null", "", "203.0.113.7"])
)
HEADER_NAMES = [
    "Origin", "Referer", "Accept", "Content-Type", "X-Forwarded-For", "Sec-Fetch-Mode",
    "Sec-Fetch-User", "Idempotency-Key", "Authorization", "Range", "If-None-Match",
]  # fmt: skip
headers = st.dictionaries(st.sampled_from(HEADER_NAMES), header_values, max_size=5)
well_formed = st.fixed_dictionaries(
    {},
    optional={
        "Accept": st.sampled_from(["application/json", "text/html", "*/*"]),
        "Content-Type": st.sampled_from(
            ["application/x-www-form-urlencoded", "application/json", "text/plain"]
        ),
        "Origin": st.sampled_from([SITE, "https://evil.example"]),
        "Authorization": st.sampled_from([f"Bearer {HEALTH_TOKEN}", "Bearer nope", "Basic x"]),
        "Sec-Fetch-Mode": st.just("navigate"),
        "Sec-Fetch-User": st.just("?1"),
    },
)

FIELD_NAMES = sorted(
    {name for form in BY_KIND.values() for name in form.names}
    | {FORM_TOKEN_FIELD, HONEYPOT_FIELD, IDEMPOTENCY_FIELD, LANGUAGE_FIELD, CHALLENGE_FIELD}
)
field_values = st.one_of(
    anything,
    st.sampled_from(["", "es", "ca", "ana@example.com", str(DAY), "10:00", "12:30", "9" * 40]),
)
kinds = st.one_of(st.sampled_from([str(kind) for kind in LeadKind]), printable)
form_fields = st.dictionaries(
    st.one_of(st.sampled_from(FIELD_NAMES), printable), field_values, max_size=12
)


@st.composite
def form_posts(draw) -> tuple[str, str, dict, bytes | dict]:
    """A form's POST: a known kind or not, near-valid fields or any bytes."""
    kind = draw(kinds)
    base: dict[str, str] = {}
    if kind == LeadKind.BOOKING and draw(st.booleans()):
        base = dict(BOOKING_FIELDS) | {
            "date": str(DAY),
            "time": draw(st.sampled_from(["10:00", "11:00", "16:00"])),
        }
    elif kind == LeadKind.HERO and draw(st.booleans()):
        base = {"email": "ana@example.com"}
    fields = base | draw(form_fields)
    if draw(st.booleans()):
        fields[FORM_TOKEN_FIELD] = draw(st.sampled_from(["", "forged", "x" * 300, "ISSUED"]))
    body: bytes | dict = fields if draw(st.integers(0, 4)) else draw(st.binary(max_size=300))
    # Mostly what the site's own pages send (so the intake is reached), else anything.
    chosen = {
        "Origin": SITE,
        "Content-Type": "application/x-www-form-urlencoded",
        "Accept": draw(st.sampled_from(["application/json", "text/html"])),
        "X-Forwarded-For": draw(st.sampled_from(["203.0.113.7", "2001:db8::1", "junk"])),
    }
    if not draw(st.integers(0, 3)):
        chosen = draw(well_formed) | draw(headers)
    elif draw(st.booleans()):
        chosen |= draw(headers)
    return "POST", paths.form_post(quote(kind, safe="")), chosen, body


@st.composite
def gets(draw) -> tuple[str, str, dict, bytes | dict]:
    """A GET of a page a visitor (or a bot) may ask for, with any query."""
    choice = draw(
        st.sampled_from(["form", "token", "health", "slots", "link", "calendar", "report"])
    )
    query: dict[str, str] = draw(st.dictionaries(printable, anything, max_size=3))
    if choice == "form":
        path = paths.form_post(quote(draw(kinds), safe=""))
        query |= draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "answer": st.sampled_from(["sent", "queued", "x"]),
                    "language": st.sampled_from(["es", "ca", "xx"]),
                    "service": anything,
                },
            )
        )
    elif choice == "token":
        path = paths.FORM_TOKEN
        query[paths.FORM_TOKEN_FORM] = draw(
            st.one_of(st.sampled_from([str(k) for k in LeadKind]), anything)
        )
    elif choice == "health":
        path = paths.LEADS_HEALTH
    elif choice == "slots":
        path = paths.FREE_SLOTS
        query["date"] = draw(
            st.one_of(
                st.dates().map(str),
                anything,
                st.sampled_from(["9999-12-31", "0001-01-01", str(DAY)]),
            )
        )
    elif choice in ("link", "calendar"):
        action = (
            draw(st.sampled_from([str(a) for a in LinkAction]) | printable)
            if choice == "link"
            else str(LinkAction.CALENDAR)
        )
        path = paths.booking_link(quote(action, safe=""))
        query["t"] = draw(st.one_of(anything, st.just("SIGNED")))
    else:
        month = draw(
            st.one_of(st.sampled_from(["2026-11", "0000-00", "9999-12", "2026-13"]), printable)
        )
        path = paths.report_page(quote(month, safe="") or "x")
        query["t"] = draw(st.one_of(anything, st.just("SIGNED")))
    target = f"{path}?{urlencode(query)}" if query else path
    return "GET", target, draw(well_formed) | draw(headers), b""


@st.composite
def other_posts(draw) -> tuple[str, str, dict, bytes | dict]:
    """The booking buttons, the move form, the browser's error reports."""
    path = draw(
        st.sampled_from(
            [
                paths.CLIENT_ERRORS,
                paths.booking_link("confirm"),
                paths.booking_link("decline"),
                paths.booking_link("cancel"),
                paths.booking_link("manage"),
                paths.booking_link("move"),
                paths.booking_link("nonsense"),
            ]
        )
    )
    body = draw(
        st.one_of(
            st.binary(max_size=300),
            st.dictionaries(
                st.sampled_from(["t", "date", "time", "x"]) | printable, anything, max_size=4
            ),
            st.builds(lambda info: json.dumps({"page": "/", "info": info}).encode(), anything),
        )
    )
    return "POST", path, draw(well_formed) | draw(headers), body


requests = st.one_of(form_posts(), form_posts(), gets(), other_posts())


async def send(site: Site, method: str, target: str, headers: dict, body) -> httpx.Response:
    """One request through the app, within ``DEADLINE_S``."""
    if "=SIGNED" in target:  # A real link, so the pages behind it are reached too.
        if target.startswith(paths.SITE_API_PREFIX + "/report/"):
            month = target.split("/")[-1].split("?")[0]
            try:
                token = site.report_links.token(dt.date.fromisoformat(f"{month}-01"))
            except ValueError:
                token = "x"
        else:
            action = target.split("/")[-1].split("?")[0]
            try:
                token = site.link(LinkAction(action))
            except ValueError:
                token = "x"
        target = target.replace("=SIGNED", f"={quote(token)}")
    if isinstance(body, dict) and body.get(FORM_TOKEN_FIELD) == "ISSUED":
        body = body | {FORM_TOKEN_FIELD: site.tokens.issue()}  # A real token: not suspect.
    transport = httpx.ASGITransport(app=site.app, client=("127.0.0.1", 40000))
    async with httpx.AsyncClient(transport=transport, base_url=API) as client:
        async with asyncio.timeout(DEADLINE_S):
            if isinstance(body, dict):
                return await client.request(method, target, headers=headers, data=body)
            return await client.request(method, target, headers=headers, content=body)


def stored(response: httpx.Response) -> bool:
    """Whether the intake answered a form's POST as a stored lead (or one quarantined)."""
    if response.status_code == 303:  # Post/Redirect/Get of a stored no-JavaScript lead.
        return True
    try:
        return response.json().get("result") in STORED_ANSWERS
    except (ValueError, AttributeError):
        return response.status_code == 202 or "altcha" in response.text.lower()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=FUZZ_PHASES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(request=requests)
def test_no_public_request_crashes_hangs_or_writes_without_a_valid_submission(
    site: Site, request: tuple[str, str, dict, Any]
) -> None:
    method, target, headers, body = request
    before = site.snapshot()
    response = run(send(site, method, target, headers, body))
    route = target.split("?")[0].removeprefix(paths.SITE_API_PREFIX).split("/")[1:3]
    event(f"{method} /{'/'.join(route)[:30]} -> {response.status_code}")
    assert response.status_code < 500 or (
        target.startswith(paths.LEADS_HEALTH) and response.status_code == 503
    ), (response.status_code, response.text[:300])
    after = site.snapshot()
    if after != before:
        changed = sorted(name for name in after if after[name] != before.get(name))
        form_post = method == "POST" and target.startswith(paths.SITE_API_PREFIX + "/forms/")
        assert form_post and stored(response), (changed, response.status_code, response.text[:300])


# --- The socket's events ---------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | anything,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(anything, children, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def socket_events(draw) -> Any:
    kind = draw(st.sampled_from([str(k) for k in LeadKind]))
    name = f"reflex___state____state.x.{kind}_form_state.submit"
    form_data = draw(
        st.one_of(
            json_values,
            form_fields,
            st.builds(
                lambda fields: {"__reflex_form_data__": [[k, v] for k, v in fields.items()]},
                form_fields,
            ),
        )
    )
    return draw(
        st.one_of(
            json_values,
            st.just({"name": name, "payload": {"form_data": form_data}, "router_data": {}}),
            st.builds(
                lambda info, stack: {
                    "name": event_guard.FRONTEND_EXCEPTION,
                    "payload": {"info": info, "component_stack": stack},
                },
                anything,
                json_values,
            ),
        )
    )


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    phases=FUZZ_PHASES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=socket_events())
def test_any_socket_event_is_refused_in_a_line_or_reaches_the_intake_safely(
    site: Site, data: Any
) -> None:
    names = {f"reflex___state____state.x.{kind}_form_state.submit": kind for kind in LeadKind}
    problem = event_guard.event_problem(data, names)
    if problem:
        assert len(problem) < 120 and "\n" not in problem
        return
    if not (isinstance(data, dict) and data.get("name") in names):
        return  # Reflex's business (an error report is logged in a bounded line).
    form = data["payload"]["form_data"]
    if "__reflex_form_data__" in form:
        form = dict(form["__reflex_form_data__"])
    before = site.snapshot()

    async def submit():
        async with asyncio.timeout(DEADLINE_S):
            return await site.intake.submit(names[data["name"]], form, "203.0.113.5")

    answer = run(submit())
    event(f"submitted: {answer.result}")
    if site.snapshot() != before:
        assert str(answer.result) in STORED_ANSWERS, answer

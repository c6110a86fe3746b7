"""The owner's calendars fetched over real HTTP (pytest-httpserver, and a trickling server of
our own): the conditional GET (ETag / Last-Modified, 304), the last good copy kept on disk
(its busy intervals only) and through a restart, a feed that fails never blocking anything,
the owner alerted once after a while and when it is back, a stale copy shown on the health
page, a series taking too much told once, a slow server never holding up the monitor."""

import asyncio
import datetime as dt
import hashlib
import json
import logging
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from agency_site.bookings.busy_feed import ALERTED, BusyFeed
from agency_site.bookings.busy_fetch import feed_urls
from agency_site.bookings.busy_times import NOTHING_BUSY, BusyRules, owner_addresses
from agency_site.content.owner_alerts import ALERTS
from tests.run_async import run

FEEDS = Path(__file__).parent / "feeds"
WEEKLY = (FEEDS / "weekly.ics").read_bytes()
OUTLOOK = (FEEDS / "outlook.ics").read_bytes()
ETAG = '"v1-weekly"'
LAST_MODIFIED = "Wed, 25 Nov 2026 08:00:00 GMT"
NOW = dt.datetime(2026, 3, 1, 9, tzinfo=dt.UTC)
TUESDAY = dt.date(2026, 3, 10)  # The weekly meeting at 10:00.
PATH = "/calendar/ical/agency.example.es/private-0123abcd/basic.ics"


def serve(server: HTTPServer, body: bytes = WEEKLY, etag: str = ETAG) -> list[Request]:
    """Serve ``body`` as a calendar with its ETag and Last-Modified, answering 304 to a GET
    that already has them; the requests it got."""
    requests: list[Request] = []

    def handler(request: Request) -> Response:
        requests.append(request)
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        headers = {"ETag": etag, "Last-Modified": LAST_MODIFIED}
        return Response(body, headers=headers, content_type="text/calendar; charset=utf-8")

    server.clear_all_handlers()
    server.expect_request(PATH).respond_with_handler(handler)
    return requests


def fail(server: HTTPServer, status: int = 503, body: bytes = b"Service Unavailable") -> None:
    server.clear_all_handlers()
    server.expect_request(PATH).respond_with_data(body, status=status)


def new_feed(server: HTTPServer, folder: Path, **options) -> BusyFeed:
    return BusyFeed(urls=(server.url_for(PATH),), folder=folder, **options)


class Alerts(list):
    """The owner's alerts, as the monitor's webhook would get them."""

    async def __call__(self, text: str) -> bool:
        self.append(text)
        return True


def test_the_first_fetch_takes_the_calendar_and_keeps_it(httpserver, tmp_path) -> None:
    serve(httpserver)
    feed = new_feed(httpserver, tmp_path)
    assert feed.busy() is NOTHING_BUSY  # Nothing yet: every slot, as without a calendar.
    assert run(feed.refresh(NOW)) is True
    assert feed.busy().blocks(TUESDAY, "10:00") and not feed.busy().blocks(TUESDAY, "11:00")
    files = sorted(path.name for path in tmp_path.iterdir())
    assert len(files) == 1 and Path(files[0]).suffix == ".json"  # Its busy intervals only.
    assert all("private" not in f and "example" not in f for f in files)  # Secret address.
    assert all((tmp_path / f).stat().st_mode & 0o077 == 0 for f in files)


def test_an_unchanged_calendar_is_a_304_and_changes_nothing(httpserver, tmp_path) -> None:
    requests = serve(httpserver)
    feed = new_feed(httpserver, tmp_path)
    run(feed.refresh(NOW))
    before = feed.busy()
    assert run(feed.refresh(NOW + feed.refresh_every)) is False
    assert [r.headers.get("If-None-Match") for r in requests] == [None, ETAG]
    assert requests[1].headers.get("If-Modified-Since") == LAST_MODIFIED
    assert feed.busy() == before and feed.copies[0].failing_since is None


def test_a_calendar_is_fetched_only_when_due(httpserver, tmp_path) -> None:
    requests = serve(httpserver)
    feed = new_feed(httpserver, tmp_path, refresh_every=dt.timedelta(minutes=10))
    run(feed.refresh(NOW))
    run(feed.refresh(NOW + dt.timedelta(minutes=9)))
    assert len(requests) == 1
    run(feed.refresh(NOW + dt.timedelta(minutes=10)))
    assert len(requests) == 2


def test_a_changed_calendar_replaces_the_old_one(httpserver, tmp_path) -> None:
    serve(httpserver)
    feed = new_feed(httpserver, tmp_path)
    run(feed.refresh(NOW))
    serve(httpserver, OUTLOOK, etag='"v2-outlook"')
    assert run(feed.refresh(NOW + feed.refresh_every)) is True
    assert not feed.busy().blocks(TUESDAY, "10:00")
    assert feed.busy().blocks(dt.date(2026, 6, 1), "10:00")


def test_a_restart_keeps_the_last_good_copy_without_fetching(httpserver, tmp_path) -> None:
    serve(httpserver)
    run(new_feed(httpserver, tmp_path).refresh(NOW))
    fail(httpserver, 500)
    restarted = new_feed(httpserver, tmp_path)
    restarted.load(today=NOW.date())
    assert restarted.busy().blocks(TUESDAY, "10:00")
    assert restarted.copies[0].good_at == NOW  # When it was last fetched, kept too.
    # Only the intervals were kept: its next GET takes the whole calendar again, once.
    requests = serve(httpserver)
    assert run(restarted.refresh(NOW)) is True
    assert requests[0].headers.get("If-None-Match") is None
    assert run(restarted.refresh(NOW + restarted.refresh_every)) is False
    assert requests[1].headers.get("If-None-Match") == ETAG


@pytest.mark.parametrize(
    "failure",
    ["http_error", "not_a_calendar", "unreachable"],
)
def test_a_feed_that_fails_keeps_its_last_good_copy(httpserver, tmp_path, failure) -> None:
    serve(httpserver)
    feed = new_feed(httpserver, tmp_path)
    run(feed.refresh(NOW))
    if failure == "http_error":
        fail(httpserver, 503)
    elif failure == "not_a_calendar":  # A login page answered 200.
        fail(httpserver, 200, b"<!doctype html><title>Sign in</title>")
    else:
        feed.copies[0].url = "http://127.0.0.1:9/calendar.ics"  # Nobody listens there.
    assert run(feed.refresh(NOW + feed.refresh_every)) is False
    assert feed.busy().blocks(TUESDAY, "10:00")
    assert feed.copies[0].failing_since == NOW  # Failing since its last good fetch.
    assert feed.copies[0].problem


def test_a_feed_never_fetched_blocks_nothing(httpserver, tmp_path) -> None:
    fail(httpserver, 404)
    feed = new_feed(httpserver, tmp_path)
    run(feed.refresh(NOW))
    assert feed.busy() is not None and not feed.busy().intervals
    assert feed.copies[0].failing_since == NOW


def test_the_owner_is_alerted_once_after_a_while_and_once_when_it_is_back(
    httpserver, tmp_path, caplog
) -> None:
    serve(httpserver)
    feed = new_feed(httpserver, tmp_path, alert_after=dt.timedelta(hours=2))
    alerts = Alerts()
    run(feed.watch(alerts, NOW))
    fail(httpserver, 503)
    step = feed.refresh_every
    run(feed.watch(alerts, NOW + step))
    run(feed.watch(alerts, NOW + dt.timedelta(hours=1)))
    assert alerts == []  # Not yet: a calendar service has its bad minutes.
    assert "could not be fetched" in caplog.text  # A warning at the first failure.
    caplog.clear()
    run(feed.watch(alerts, NOW + dt.timedelta(hours=2)))
    assert len(alerts) == 1 and "HTTP 503" in alerts[0] and "calendar 1 (localhost)" in alerts[0]
    ours = [r for r in caplog.records if r.name.startswith("agency_site")]
    assert "private" not in alerts[0]  # Never the secret address...
    assert not any("private" in r.getMessage() for r in ours)  # ...in alerts or logs.
    assert [r.levelno for r in ours] == [logging.ERROR]
    # Another worker of this host, or later rounds: not again.
    other = new_feed(httpserver, tmp_path, alert_after=dt.timedelta(hours=2))
    other.copies[0].failing_since = NOW
    run(other.watch(alerts, NOW + dt.timedelta(hours=3)))
    run(feed.watch(alerts, NOW + dt.timedelta(hours=3)))
    assert len(alerts) == 1 and (tmp_path / ALERTED).exists()
    serve(httpserver)
    run(feed.watch(alerts, NOW + dt.timedelta(hours=4)))
    assert alerts[1:] == [ALERTS.busy_feed_recovered] and not (tmp_path / ALERTED).exists()
    run(feed.watch(alerts, NOW + dt.timedelta(hours=5)))
    assert len(alerts) == 2


def test_the_addresses_of_the_setting(caplog) -> None:
    text = "https://a.test/x.ics, webcal://p.test/y.ics\nhttp://c.test/z.ics ftp://no.test/w"
    with caplog.at_level(logging.ERROR):
        assert feed_urls(text) == (
            "https://a.test/x.ics",
            "https://p.test/y.ics",
            "http://c.test/z.ics",
        )
    assert "Address 4" in caplog.text and "no.test" not in caplog.text
    assert feed_urls("") == ()


def test_without_a_calendar_the_plugin_has_no_feed_and_nothing_is_busy(monkeypatch) -> None:
    from agency_site.bookings import busy_feed
    from agency_site.bookings.plugin import plugin
    from agency_site.settings import load_settings

    monkeypatch.delenv("BOOKING_BUSY_ICS_URLS", raising=False)
    busy_feed.shared.cache_clear()
    try:
        bookings = plugin(load_settings())
    finally:
        busy_feed.shared.cache_clear()
    assert bookings.owner_calendars is None and bookings.busy() is NOTHING_BUSY


def test_the_monitor_s_round_fetches_the_owner_s_calendars(httpserver, tmp_path) -> None:
    """The bookings plugin hands the monitor a watcher that fetches (in the background
    loop, never in a visitor's request) and the plugin's checks see the result."""
    from types import SimpleNamespace

    from agency_site.bookings.plugin import BookingsPlugin

    endless = WEEKLY.replace(b";UNTIL=20260428T090000Z", b"")  # Every Tuesday from now on.
    requests = serve(httpserver, endless)
    feed = new_feed(httpserver, tmp_path)
    bookings = BookingsPlugin(busy=feed.busy, owner_calendars=feed)
    monitor = SimpleNamespace(alert=Alerts())
    watchers = bookings.watchers(monitor)
    assert len(watchers) == len(BookingsPlugin().watchers(monitor)) + 1

    async def round_and_fetch() -> None:
        await watchers[-1]()  # Returns at once: the fetch runs in a task of its own...
        assert feed.running is not None
        await feed.running  # ...done here (at the real time: the window starts today).

    run(round_and_fetch())
    today = dt.date.today()
    tuesday = today + dt.timedelta(days=7 + (1 - today.weekday()) % 7)
    assert len(requests) == 1 and bookings.busy().blocks(tuesday, "10:00")
    assert not bookings.busy().blocks(tuesday, "11:00")


def test_the_health_page_shows_the_owner_s_calendars_failing_too_long(
    httpserver, tmp_path, db_url
) -> None:
    """Through the plugins' ``health`` hook: by number and host with the problem and since
    when, never the secret address; the page's status is the leads' (the form works)."""
    import httpx

    from agency_site.bookings.plugin import BookingsPlugin
    from agency_site.leads.health import LeadsHealth
    from agency_site.leads.plugins import Plugins
    from agency_site.leads.store import LeadStore
    from tests.lead_store import new_engine
    from tests.leads.health_page import get_health

    serve(httpserver)
    feed = new_feed(httpserver, tmp_path, alert_after=dt.timedelta(hours=1))
    now = dt.datetime.now(dt.UTC)  # The page asks at the real time.
    run(feed.refresh(now - dt.timedelta(minutes=30)))
    engine = new_engine(db_url)
    store = LeadStore(engine, Plugins((BookingsPlugin(busy=feed.busy, owner_calendars=feed),)))
    checks = LeadsHealth(lambda: store, lambda: True, lambda: dt.timedelta(hours=1), every_s=0)

    def health() -> httpx.Response:  # The page's details, as the owner reads them.
        return get_health(checks)

    assert "notes" not in health().json()  # Fetched fine: nothing to say.
    fail(httpserver, 503)
    run(feed.refresh(now - dt.timedelta(minutes=15)))
    assert "notes" not in health().json()  # Failing since its last good fetch, 30 min ago.
    since = now - dt.timedelta(hours=2)
    feed.copies[0].failing_since = since
    answer = health()
    assert answer.status_code == 200 and answer.json()["status"] == "ok"
    assert answer.json()["notes"] == {
        "owner_calendars_failing": [
            {
                "calendar": "calendar 1 (localhost)",
                "problem": "HTTP 503",
                "since": since.isoformat(),
            }
        ]
    }
    assert "private" not in answer.text  # Never the secret address.
    serve(httpserver)
    run(feed.refresh(now))
    assert "notes" not in health().json()  # Back.
    engine.dispose()


def test_the_settings_place_the_copies_beside_the_spool_and_set_the_rules(
    monkeypatch, tmp_path
) -> None:
    """In the data folder the site may write (the generated units: DEPLOY_DATA_DIR)."""
    from agency_site.bookings.busy_feed import FOLDER_NAME, from_settings
    from agency_site.settings import load_settings

    monkeypatch.setenv("LEADS_SPOOL_DIR", str(tmp_path / "spool"))
    monkeypatch.setenv("BOOKING_BUSY_ICS_URLS", "webcal://calendar.test/secret.ics")
    monkeypatch.setenv("BOOKING_BUSY_ALL_DAY_BLOCKS", "true")
    monkeypatch.setenv("BOOKING_BUFFER_MINUTES", "15")
    monkeypatch.setenv("BOOKING_BUSY_REFRESH_MINUTES", "5")
    feed = from_settings(load_settings())
    assert feed.folder == tmp_path / FOLDER_NAME
    assert feed.urls == ("https://calendar.test/secret.ics",)
    assert feed.rules.all_day_blocks and feed.rules.buffer == dt.timedelta(minutes=15)
    assert feed.refresh_every == dt.timedelta(minutes=5)
    assert "calendar.test" not in repr(load_settings().booking)  # A secret.


# --- Only the busy intervals on disk (issue 43) -------------------------------------------

PRIVATE = b"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Google Inc//Google Calendar 70.9054//EN
X-WR-TIMEZONE:Europe/Madrid
BEGIN:VEVENT
UID:consulta-medica@google.com
DTSTAMP:20260220T090000Z
SUMMARY:Consulta cardiologia Dr. Puig
DESCRIPTION:Llevar el informe de la prueba de esfuerzo
LOCATION:Hospital de Santa Maria\\, Lleida
DTSTART;TZID=Europe/Madrid:20260310T100000
DTEND;TZID=Europe/Madrid:20260310T110000
ORGANIZER;CN=Hola:mailto:hola@impulsodigital.es
ATTENDEE;CN=Cliente Secreto;PARTSTAT=ACCEPTED:mailto:cliente.secreto@example.com
END:VEVENT
END:VCALENDAR
"""
OWNER_RULES = BusyRules(owner=owner_addresses("hola@impulsodigital.es"))
# What must never be written down: the event's words and its people.
SECRETS = (b"cardiologia", b"Puig", b"esfuerzo", b"Santa Maria", b"cliente.secreto", b"Secreto")


def kept_bytes(folder: Path) -> bytes:
    return b"".join(path.read_bytes() for path in folder.rglob("*") if path.is_file())


def test_only_the_busy_intervals_are_kept_on_disk(httpserver, tmp_path) -> None:
    serve(httpserver, PRIVATE)
    feed = new_feed(httpserver, tmp_path, rules=OWNER_RULES)
    assert run(feed.refresh(NOW)) is True
    assert feed.busy().blocks(TUESDAY, "10:00")
    kept = kept_bytes(tmp_path)
    assert not [secret for secret in SECRETS if secret in kept]
    (path,) = tmp_path.iterdir()
    data = json.loads(path.read_text())
    assert set(data) == {"version", "good_at", "intervals"}
    ((start, end, series),) = data["intervals"]
    assert (start, end) == ("2026-03-10T10:00:00+01:00", "2026-03-10T11:00:00+01:00")
    assert series == hashlib.sha256(b"consulta-medica@google.com").hexdigest()[:12]


def old_copy(folder: Path, url: str, body: bytes) -> Path:
    """A copy as the site kept it before: the whole calendar and its GET's data."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / hashlib.sha256(url.encode()).hexdigest()[:24]
    stem.with_suffix(".ics").write_bytes(body)
    meta = {"etag": ETAG, "last_modified": LAST_MODIFIED, "good_at": NOW.isoformat()}
    stem.with_suffix(".json").write_text(json.dumps(meta))
    return stem


def test_a_kept_copy_of_the_older_kind_becomes_intervals_on_first_read(
    httpserver, tmp_path
) -> None:
    stem = old_copy(tmp_path, httpserver.url_for(PATH), PRIVATE)
    feed = new_feed(httpserver, tmp_path, rules=OWNER_RULES)
    feed.load(today=NOW.date())
    assert feed.busy().blocks(TUESDAY, "10:00") and feed.copies[0].good_at == NOW
    assert not stem.with_suffix(".ics").exists()
    assert json.loads(stem.with_suffix(".json").read_text())["version"] == 2
    assert not [secret for secret in SECRETS if secret in kept_bytes(tmp_path)]
    again = new_feed(httpserver, tmp_path, rules=OWNER_RULES)  # The next worker, or start.
    again.load(today=NOW.date())
    assert again.busy() == feed.busy()


@pytest.mark.parametrize(
    ("body", "meta"),
    [
        (b"<!doctype html><title>Sign in</title>", None),  # No calendar was kept.
        (WEEKLY, "{not json"),  # Its data cut short.
        (None, json.dumps({"version": 2, "good_at": None, "intervals": [["x", "y", "z"]]})),
    ],
    ids=["not-a-calendar", "damaged-data", "damaged-intervals"],
)
def test_a_kept_copy_that_cannot_be_read_is_dropped_and_fetched_again(
    httpserver, tmp_path, caplog, body, meta
) -> None:
    stem = old_copy(tmp_path, httpserver.url_for(PATH), body or WEEKLY)
    if body is None:
        stem.with_suffix(".ics").unlink()
    if meta is not None:
        stem.with_suffix(".json").write_text(meta)
    feed = new_feed(httpserver, tmp_path)
    feed.load(today=NOW.date())  # No crash...
    assert feed.busy().intervals == () and "cannot be used" in caplog.text
    assert list(tmp_path.iterdir()) == []  # ...and nothing of it left.
    serve(httpserver)
    assert run(feed.refresh(NOW)) is True and feed.busy().blocks(TUESDAY, "10:00")


def test_the_copies_of_calendars_no_longer_configured_are_deleted(httpserver, tmp_path) -> None:
    gone = old_copy(tmp_path, "https://calendar.test/removed.ics", WEEKLY)
    (tmp_path / ALERTED).touch()
    feed = new_feed(httpserver, tmp_path)
    feed.load(today=NOW.date())
    assert not gone.with_suffix(".ics").exists() and not gone.with_suffix(".json").exists()
    assert (tmp_path / ALERTED).exists()  # Markers stay.


# --- A stale copy: still blocking, shown on the health page (issue 43) --------------------


def test_a_stale_copy_keeps_blocking_and_is_shown_as_calendar_stale(
    httpserver, tmp_path, db_url
) -> None:
    """After BOOKING_BUSY_STALE_HOURS without a good fetch the copy still blocks (hiding an
    hour that has freed is safer than offering one the owner is busy for) and the health
    page says so, even after a restart, until a fetch succeeds."""
    from agency_site.bookings.plugin import BookingsPlugin

    endless = WEEKLY.replace(b";UNTIL=20260428T090000Z", b"")
    serve(httpserver, endless)
    options = {"alert_after": dt.timedelta(hours=2), "stale_after": dt.timedelta(hours=24)}
    feed = new_feed(httpserver, tmp_path, **options)
    now = dt.datetime.now(dt.UTC)
    today = dt.date.today()
    tuesday = today + dt.timedelta(days=7 + (1 - today.weekday()) % 7)
    run(feed.refresh(now - dt.timedelta(hours=30)))
    fail(httpserver, 503)
    run(feed.refresh(now - dt.timedelta(hours=1)))
    bookings = BookingsPlugin(busy=feed.busy, owner_calendars=feed)
    notes = bookings.health(now)
    assert bookings.health_problem(now) == "calendar_stale"  # The page's status says it.
    assert notes["calendar_stale"] == [
        {
            "calendar": "calendar 1 (localhost)",
            "fetched_at": (now - dt.timedelta(hours=30)).isoformat(),
        }
    ]
    assert notes["owner_calendars_failing"][0]["problem"] == "HTTP 503"
    assert bookings.busy().blocks(tuesday, "10:00")  # Still blocking.
    restarted = new_feed(httpserver, tmp_path, **options)
    restarted.load()
    assert BookingsPlugin(owner_calendars=restarted).health(now)["calendar_stale"]
    assert restarted.busy().blocks(tuesday, "10:00")
    serve(httpserver, endless)
    run(feed.refresh(now))
    assert bookings.health(now) == {}  # Fetched again: nothing to say.
    assert bookings.health_problem(now) is None
    assert "calendar_stale" not in BookingsPlugin(owner_calendars=feed).health(
        now + dt.timedelta(hours=23)
    )


# --- A series that takes too much: the owner asked once (issue 43) ------------------------

FLOOD = b"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Google Inc//Google Calendar 70.9054//EN
BEGIN:VEVENT
UID:flood-0001@spam.example
DTSTAMP:20260220T090000Z
SUMMARY:Oferta irresistible para Hola
DTSTART;TZID=Europe/Madrid:20260302T080000
DTEND;TZID=Europe/Madrid:20260302T200000
RRULE:FREQ=DAILY
ORGANIZER:mailto:hola@impulsodigital.es
END:VEVENT
BEGIN:VEVENT
UID:weekly@agencia.test
DTSTAMP:20260220T090000Z
SUMMARY:Reunion semanal
DTSTART;TZID=Europe/Madrid:20260303T090000
DTEND;TZID=Europe/Madrid:20260303T130000
RRULE:FREQ=WEEKLY
END:VEVENT
END:VCALENDAR
"""


def test_a_series_blocking_too_much_is_told_to_the_owner_once(httpserver, tmp_path, caplog) -> None:
    """Told by digest and first slot, never by its title; once per series and host."""
    serve(httpserver, FLOOD)
    feed = new_feed(httpserver, tmp_path, rules=OWNER_RULES)
    alerts = Alerts()
    run(feed.watch(alerts, NOW))
    digest = hashlib.sha256(b"flood-0001@spam.example").hexdigest()[:12]
    (told,) = alerts
    assert digest in told and "calendar 1 (localhost)" in told and "09:00" in told
    assert "lunes, 2 de marzo de 2026" in told
    assert "Oferta" not in told and "irresistible" not in told
    ours = [r for r in caplog.records if r.name.startswith("agency_site")]
    assert [digest in r.getMessage() for r in ours] == [True]
    assert not any("Oferta" in r.getMessage() or "flood-0001" in r.getMessage() for r in ours)
    run(feed.watch(alerts, NOW + feed.refresh_every))  # Later rounds...
    other = new_feed(httpserver, tmp_path, rules=OWNER_RULES)  # ...another worker of the host.
    run(other.watch(alerts, NOW + 2 * feed.refresh_every))
    assert len(alerts) == 1
    assert {path.name for path in tmp_path.iterdir() if path.name.startswith(".wide-")} == {
        f".wide-{digest}"
    }


# --- A trickling server never holds up the monitor (issue 43) -----------------------------


class Trickle(socketserver.ThreadingTCPServer):
    """A calendar server on loopback that answers 200 and then one byte a second, for as
    long as it is left running; ``sent``: the bytes of body it sent."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.sent = 0
        self.hung_up = threading.Event()
        super().__init__(("127.0.0.1", 0), TrickleHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/calendar.ics"


class TrickleHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        server: Trickle = self.server  # type: ignore[assignment]
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/calendar\r\nContent-Length: 100000\r\n\r\n"
        try:
            self.wfile.write(head)
            while not server.stop.is_set():
                self.wfile.write(b"B")
                self.wfile.flush()
                server.sent += 1
                server.stop.wait(1)
        except OSError:  # The client gave up: what the deadline is for.
            server.hung_up.set()


@pytest.fixture
def trickle() -> Iterator[Trickle]:
    server = Trickle()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_a_trickling_calendar_server_never_holds_up_the_monitor(
    trickle: Trickle, tmp_path, db_url
) -> None:
    """A real server sending a byte a second: the monitor's rounds (the purge, the alerts,
    every other watcher) all complete while the fetch is still trickling; the fetch ends at
    its deadline as a failure, its last good copy kept."""
    from agency_site.bookings.plugin import BookingsPlugin
    from agency_site.leads.monitor import Monitor
    from agency_site.leads.plugins import LeadPlugin, Plugins
    from agency_site.leads.store import LeadStore
    from tests.lead_store import make_delivery, new_engine

    events: list[str] = []

    class Recorder(LeadPlugin):
        """A plugin whose watcher runs after the bookings' in each round."""

        def watchers(self, monitor):
            async def record() -> None:
                events.append("other watcher")

            return [record]

    feed = BusyFeed(urls=(trickle.url,), folder=tmp_path, deadline=dt.timedelta(seconds=3))
    engine = new_engine(db_url)
    plugins = Plugins((BookingsPlugin(busy=feed.busy, owner_calendars=feed), Recorder()))
    store = LeadStore(engine, plugins)
    monitor = Monitor(
        delivery=make_delivery(store, None),
        webhook_url="",
        canary_every=dt.timedelta(minutes=15),
        retention_months=12,
        site_url="https://www.agencia.test",
    )

    async def rounds() -> None:
        for _ in range(3):
            await asyncio.wait_for(monitor.tick(), timeout=30)  # Generous: never the fetch.
            events.append("round done")
        assert feed.running is not None
        await asyncio.wait_for(asyncio.shield(feed.running), timeout=60)
        events.append("fetch ended")

    try:
        run(rounds())
    finally:
        engine.dispose()
    assert events == ["other watcher", "round done"] * 3 + ["fetch ended"]
    (copy,) = feed.copies
    assert copy.problem == "no whole answer within 3 s" and copy.failing_since is not None
    assert trickle.sent >= 1 and not trickle.stop.is_set()  # It was still trickling.
    assert trickle.hung_up.wait(10)  # We hung up on it.

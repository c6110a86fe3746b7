"""The owner's calendars fetched over real HTTP (pytest-httpserver): the conditional GET
(ETag / Last-Modified, 304), the last good copy kept on disk and through a restart, a feed
that fails never blocking anything, the owner alerted once after a while and when it is back."""

import datetime as dt
import logging
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from agency_site.bookings.busy_feed import ALERTED, BusyFeed, feed_urls
from agency_site.bookings.busy_times import NOTHING_BUSY
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
    assert len(files) == 2 and {Path(f).suffix for f in files} == {".ics", ".json"}
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
    # And its next GET is conditional on what the kept copy came with.
    requests = serve(httpserver)
    assert run(restarted.refresh(NOW)) is False
    assert requests[0].headers.get("If-None-Match") == ETAG


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
    run(watchers[-1]())  # At the real time: the window starts today.
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

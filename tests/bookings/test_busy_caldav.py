"""The owner's CalDAV calendar (``busy_caldav.py``) against a REAL CalDAV server: Radicale,
started on loopback with a throwaway storage folder and a login, the month of
``feeds/month.ics`` put into one of its calendars with the ``caldav`` client, then read
back through the feed as the site reads it: the same busy times as the iCal file, the
login passed, a failure kept as the last good copy."""

import asyncio
import datetime as dt
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import caldav
import icalendar
import pytest

from agency_site.bookings import busy_caldav
from agency_site.bookings.busy_feed import BusyFeed
from agency_site.bookings.busy_fetch import booking_window
from agency_site.bookings.busy_times import BusyRules, BusyTimes
from scripts.local_servers import free_port
from tests.bookings.test_busy_times import FEEDS, MONTH
from tests.run_async import run

USER, PASSWORD = "owner", "a long test password"
NOW = dt.datetime(2026, 3, 1, 9, tzinfo=dt.UTC)
TODAY = dt.date(2026, 3, 1)


@pytest.fixture(scope="module")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Radicale server on a free loopback port (htpasswd login, its own storage); its
    base address. Stopped by its pid."""
    folder = tmp_path_factory.mktemp("radicale")
    users = folder / "users"
    users.write_text(f"{USER}:{PASSWORD}\n")
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "radicale",
            "--config",
            "",
            "--server-hosts",
            f"127.0.0.1:{port}",
            "--storage-filesystem-folder",
            str(folder / "collections"),
            "--auth-type",
            "htpasswd",
            "--auth-htpasswd-filename",
            str(users),
            "--auth-htpasswd-encryption",
            "plain",
            "--rights-type",
            "owner_only",
            "--web-type",
            "none",
            "--logging-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    message = f"Radicale did not start: {server.stderr.read()!r}"
                    raise RuntimeError(message) from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(folder, ignore_errors=True)


def resources(text: bytes) -> list[str]:
    """A calendar file as CalDAV stores it: one resource per UID, with the time zones."""
    calendar = icalendar.Calendar.from_ical(text)
    zones = calendar.walk("VTIMEZONE")
    by_uid: dict[str, list[icalendar.Event]] = {}
    for event in calendar.walk("VEVENT"):
        by_uid.setdefault(str(event["UID"]), []).append(event)
    out = []
    for events in by_uid.values():
        resource = icalendar.Calendar()
        resource.add("prodid", "-//tests//caldav//ES")
        resource.add("version", "2.0")
        for component in [*zones, *events]:
            resource.add_component(component)
        out.append(resource.to_ical().decode())
    return out


@pytest.fixture(scope="module")
def calendar_url(radicale: str) -> str:
    """The owner's calendar on the server, holding the month of ``feeds/month.ics``."""
    with caldav.DAVClient(
        url=f"{radicale}/{USER}/", username=USER, password=PASSWORD, enable_rfc6764=False
    ) as client:
        calendar = client.principal().make_calendar(name="Agencia", cal_id="agencia")
        for text in resources((FEEDS / "month.ics").read_bytes()):
            calendar.save_event(text)
        return str(calendar.url)


def caldav_feed(folder: Path, url: str, password: str = PASSWORD, **options) -> BusyFeed:
    account = busy_caldav.CalDavAccount(url, USER, password)
    return BusyFeed((), folder, pulled=((url, busy_caldav.pull(account, 5)),), **options)


def ics_busy(rules: BusyRules) -> BusyTimes:
    """The busy times of the same month read from the iCal file, as the iCal feed does."""
    _, intervals = BusyFeed((), Path("."), rules).read((FEEDS / "month.ics").read_bytes(), TODAY)
    return BusyTimes(tuple(intervals))


@pytest.mark.parametrize(
    "rules",
    [BusyRules(), BusyRules(all_day_blocks=True, buffer=dt.timedelta(minutes=15))],
    ids=["default", "all-day-and-buffer"],
)
def test_the_caldav_calendar_gives_the_busy_times_of_its_ical_file(
    calendar_url: str, tmp_path: Path, rules: BusyRules
) -> None:
    """The moved, deleted and cancelled occurrences, the transparent and all-day events,
    UTC and floating times, the change to summer time: slot by slot, as from the file."""
    feed = caldav_feed(tmp_path, calendar_url, rules=rules)
    assert run(feed.refresh(NOW)) is True
    (copy,) = feed.copies
    assert copy.failing_since is None and copy.calendar is not None
    expected = ics_busy(rules)
    for day in MONTH:
        assert feed.busy().busy_slots(day) == expected.busy_slots(day), day
    # Each occurrence keeps its series (for the series blocking too much), as in the file.
    _, from_file = BusyFeed((), Path("."), rules).read((FEEDS / "month.ics").read_bytes(), TODAY)
    assert {i.series for i in copy.intervals} == {i.series for i in from_file}
    assert len({i.series for i in copy.intervals}) < len(copy.intervals)
    assert sum(len(feed.busy().busy_slots(day)) for day in MONTH) >= 17
    assert copy.name == "calendar 1 (127.0.0.1)"


def test_a_wrong_login_or_a_server_down_keeps_the_last_good_copy(
    calendar_url: str, tmp_path: Path
) -> None:
    refused = caldav_feed(tmp_path / "refused", calendar_url, password="wrong")
    run(refused.refresh(NOW))
    (copy,) = refused.copies
    assert copy.failing_since == NOW and copy.calendar is None
    assert "Error" in copy.problem and PASSWORD not in copy.problem
    assert not refused.busy().intervals  # Never fetched: nothing busy, the form as without.

    feed = caldav_feed(tmp_path / "kept", calendar_url)
    run(feed.refresh(NOW))
    busy = feed.busy()
    assert busy.intervals
    # The server goes away: its port refuses connections from now on.
    port = int(calendar_url.split(":")[2].split("/")[0])
    gone = calendar_url.replace(f":{port}/", f":{free_port()}/")
    feed.copies[0].pull = busy_caldav.pull(busy_caldav.CalDavAccount(gone, USER, PASSWORD), 2)
    later = NOW + dt.timedelta(hours=1)
    run(feed.refresh(later))
    assert feed.copies[0].failing_since == NOW and feed.busy() == busy
    # A restart takes the copy kept on disk.
    again = caldav_feed(tmp_path / "kept", calendar_url)
    again.load(TODAY)
    assert again.busy() == busy


def test_the_settings_add_the_caldav_calendar_to_the_feed(monkeypatch, tmp_path) -> None:
    from agency_site.bookings.busy_feed import from_settings
    from agency_site.settings import load_settings

    monkeypatch.delenv("BOOKING_BUSY_ICS_URLS", raising=False)
    monkeypatch.setenv("LEADS_SPOOL_DIR", str(tmp_path / "spool"))
    monkeypatch.setenv("BOOKING_BUSY_CALDAV_URL", "https://cloud.example.es/dav/owner/personal/")
    monkeypatch.setenv("BOOKING_BUSY_CALDAV_USERNAME", USER)
    monkeypatch.setenv("BOOKING_BUSY_CALDAV_PASSWORD", PASSWORD)
    feed = from_settings(load_settings())
    (copy,) = feed.copies
    assert copy.pull is not None and copy.name == "calendar 1 (cloud.example.es)"
    assert PASSWORD not in repr(feed) and PASSWORD not in repr(load_settings())
    monkeypatch.delenv("BOOKING_BUSY_CALDAV_URL")
    assert from_settings(load_settings()).copies == []  # Unset: no calendar, as today.


def test_the_window_asked_is_the_booking_window(tmp_path: Path) -> None:
    asked = []

    async def pull(start: dt.datetime, end: dt.datetime) -> bytes:
        asked.append((start, end))
        return b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//ES\r\nEND:VCALENDAR\r\n"

    feed = BusyFeed((), tmp_path, pulled=(("https://x.test/c/", pull),))
    assert run(feed.refresh(NOW)) is True
    assert asked == [booking_window(TODAY)] and feed.copies[0].failing_since is None


def test_a_pull_that_never_ends_fails_at_the_deadline(tmp_path: Path) -> None:
    """The whole pull is under the feed's deadline (the asynchronous client is cancelled
    where it waits): a CalDAV server that never finishes is a failure, not a stall."""

    async def pull(start: dt.datetime, end: dt.datetime) -> bytes:
        await asyncio.sleep(3600)
        return b""

    feed = BusyFeed(
        (), tmp_path, pulled=(("https://x.test/c/", pull),), deadline=dt.timedelta(seconds=0.5)
    )
    assert run(asyncio.wait_for(feed.refresh(NOW), timeout=30)) is False
    assert feed.copies[0].problem == "no whole answer within 0.5 s"

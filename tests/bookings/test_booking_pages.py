"""The booking links' pages on a real database: a GET only shows, the button's POST acts
once; expired, tampered and replayed links get clear pages; the calendar file; free slots."""

import base64
import dataclasses
import datetime as dt
import hashlib
import hmac

import httpx
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from itsdangerous import URLSafeTimedSerializer

from agency_site import paths
from agency_site.bookings import slots
from agency_site.bookings.busy_times import BusyTimes, Interval, slot_start
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import LinkAction, LinkSigner, VerifiedLink
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.bookings.pages import create_app
from agency_site.content.bookings import COPY
from agency_site.leads.store import LeadStore
from agency_site.rules import TIME_SLOTS
from agency_site.working_calendar import WorkingCalendar, agency_now
from tests.bookings.test_bookings import SECRET, book
from tests.lead_store import BOOKING_FIELDS, add_held_booking
from tests.run_async import run


class Client:
    """Sync requests to an ASGI app, in process."""

    def __init__(self, app) -> None:
        self.app = app

    def _send(self, method: str, path: str, **options) -> httpx.Response:
        async def request() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="https://api.test") as c:
                return await c.request(method, path, **options)

        return run(request())

    def get(self, path: str) -> httpx.Response:
        return self._send("GET", path)

    def post(self, path: str, data: dict[str, str]) -> httpx.Response:
        return self._send("POST", path, data=data)


FUTURE = dt.date.today() + dt.timedelta(days=60)
DAY = WorkingCalendar().next_working_day(FUTURE)


@pytest.fixture
def sent() -> list[tuple[str, dict[str, str]]]:
    return []


@pytest.fixture
def client(store: LeadStore, sent) -> Client:
    return Client(create_app(lambda: desk_for(store, 14, sent)))


def url(store: LeadStore, action: LinkAction, lead_id: int) -> str:
    """The page of a fresh ``action`` link to booking ``lead_id``, with its key."""
    key = slots.get(store.engine, lead_id).link_key
    return f"{paths.booking_link(str(action))}?t={LinkSigner(SECRET).token(action, lead_id, key)}"


def test_a_get_shows_the_booking_and_changes_nothing(client: Client, store: LeadStore) -> None:
    lead_id = book(store, DAY, "10:00")
    for _ in range(3):  # A link scanner, a preview, the agency.
        answer = client.get(url(store, LinkAction.CONFIRM, lead_id))
        assert answer.status_code == 200
        assert COPY.confirm.button in answer.text and "Ana García" in answer.text
        assert 'name="robots" content="noindex"' in answer.text and "<script" not in answer.text
    assert slots.get(store.engine, lead_id).state == BookingStatus.PENDING


def test_the_button_confirms_once_and_tells_the_visitor(client, store, sent) -> None:
    lead_id = book(store, DAY, "10:00")
    link = url(store, LinkAction.CONFIRM, lead_id)
    token = link.split("?t=")[1]
    answer = client.post(paths.booking_link("confirm"), data={"t": token})
    assert answer.status_code == 200 and COPY.confirm.done in answer.text
    assert slots.get(store.engine, lead_id).state == BookingStatus.CONFIRMED
    ((template, params),) = sent
    assert template == "visitor" and params["to_email"] == "ana@example.com"
    assert params["ics_url"].startswith("https://api.agencia.test/_site/bookings/calendar?t=")
    assert params["cancel_url"] and params["google_url"] and params["time"] == "10:00"
    replay = client.post(paths.booking_link("confirm"), data={"t": token})
    assert replay.status_code == 409 and COPY.states.confirmed in replay.text
    assert len(sent) == 1


def tampered(token: str) -> str:
    """``token`` with one character of its signature changed: never the token itself (the
    last two characters replaced by "xx" were already "xx" once in a while; and the last
    character of a base64 signature carries bits the decoder ignores)."""
    at = len(token) - 10
    return token[:at] + ("A" if token[at] != "A" else "B") + token[at + 1 :]


def test_bad_links_get_clear_pages(client: Client, store: LeadStore) -> None:
    lead_id = book(store, DAY, "11:00")
    token = url(store, LinkAction.DECLINE, lead_id).split("?t=")[1]
    changed = client.get(paths.booking_link("decline") + "?t=" + tampered(token))
    assert changed.status_code == 400 and COPY.problems.tampered in changed.text
    wrong_action = client.get(paths.booking_link("confirm") + "?t=" + token)
    assert wrong_action.status_code == 400
    expired = Client(create_app(lambda: desk_for(store, link_days=-1))).get(
        url(store, LinkAction.DECLINE, lead_id)
    )
    assert expired.status_code == 410 and COPY.problems.expired in expired.text
    assert client.get(paths.booking_link("nothing") + "?t=x").status_code == 404
    assert client.get(paths.booking_link("confirm")).status_code == 400
    assert slots.get(store.engine, lead_id).state == BookingStatus.PENDING


def desk_for(store: LeadStore, link_days: int, sent: list | None = None) -> BookingDesk:
    async def send(template: str, params: dict[str, str]) -> bool:
        if sent is not None:
            sent.append((template, params))
        return True

    return BookingDesk(
        engine=store.engine,
        signer=LinkSigner(SECRET),
        send=send,
        calendar=WorkingCalendar(),
        api_url="https://api.agencia.test",
        site_url="https://agencia.test",
        agency_link_days=link_days,
    )


def test_a_decline_frees_the_slot_and_a_cancel_tells_the_agency(client, store, sent) -> None:
    first = book(store, DAY, "12:00")
    token = url(store, LinkAction.DECLINE, first).split("?t=")[1]
    assert client.post(paths.booking_link("decline"), data={"t": token}).status_code == 200
    assert sent[-1][1]["book_again_url"] == "https://agencia.test/schedule"
    second = book(store, DAY, "12:00")  # The slot is free again.
    token = url(store, LinkAction.CANCEL, second).split("?t=")[1]
    assert client.post(paths.booking_link("cancel"), data={"t": token}).status_code == 200
    assert [template for template, _ in sent[-2:]] == ["visitor", "agency"]
    confirm = client.get(url(store, LinkAction.CONFIRM, second))
    assert confirm.status_code == 409 and COPY.states.cancelled in confirm.text


def test_the_calendar_file_of_a_confirmed_booking(client, store) -> None:
    lead_id = book(store, DAY, "16:00")
    slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)
    answer = client.get(url(store, LinkAction.CALENDAR, lead_id))
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/calendar")
    assert f"DTSTART;TZID=Europe/Madrid:{DAY:%Y%m%d}T160000" in answer.text
    assert "STATUS:CONFIRMED" in answer.text


def test_the_free_slots_of_a_day(client, store) -> None:
    book(store, DAY, "09:00")
    answer = client.get(paths.FREE_SLOTS + f"?date={DAY.isoformat()}").json()
    assert answer["date"] == DAY.isoformat() and not answer["full"]
    assert "09:00" not in answer["free"] and "10:00" in answer["free"]
    assert answer["taken"] == ["09:00"]
    assert client.get(paths.FREE_SLOTS + "?date=mañana").status_code == 400


# --- The free slots tell no more of the owner's calendar than the form needs (issue 43) ---

# The owner busy at every hour, from a year ago to two years ahead.
ALWAYS_BUSY = BusyTimes(
    (
        Interval(
            slot_start(dt.date.today() - dt.timedelta(days=400), "00:00"),
            slot_start(dt.date.today() + dt.timedelta(days=800), "00:00"),
        ),
    )
)
SHOWN_DAYS = 60  # BOOKING_BUSY_SHOWN_DAYS's default.


def busy_client(store: LeadStore, shown_days: int | None = SHOWN_DAYS) -> Client:
    """The booking endpoints with the owner always busy (``shown_days``: None, the busy
    slots of every day are told)."""
    desk = dataclasses.replace(desk_for(store, 14), busy=lambda: ALWAYS_BUSY)
    if shown_days is not None:
        desk = dataclasses.replace(desk, busy_shown_days=shown_days)
    return Client(create_app(lambda: desk))


def free_slots(client: Client, day: dt.date) -> httpx.Response:
    return client.get(paths.FREE_SLOTS + f"?date={day.isoformat()}")


def test_the_free_slots_answer_only_the_days_the_form_takes(store: LeadStore) -> None:
    """Today to a year ahead (``leads/validation.py``): any other date is refused at once,
    no database read (a bot walking the calendar gets nothing but 400s)."""
    from agency_site.working_calendar import one_year_after

    client = busy_client(store, shown_days=None)
    today = agency_now().date()
    for day in (today - dt.timedelta(days=1), one_year_after(today) + dt.timedelta(days=1)):
        answer = free_slots(client, day)
        assert answer.status_code == 400 and answer.json() == {"error": "date"}
    assert free_slots(client, today).status_code == 200
    assert free_slots(client, one_year_after(today)).status_code == 200


def test_a_closed_day_tells_nothing_of_the_owner_s_calendar(store: LeadStore) -> None:
    """A weekend day, when no consultation can be booked: no busy slot named."""
    client = busy_client(store, shown_days=None)
    saturday = WorkingCalendar().next_working_day(FUTURE)
    saturday += dt.timedelta(days=(5 - saturday.weekday()) % 7)
    answer = free_slots(client, saturday).json()
    assert answer == {"date": saturday.isoformat(), "free": [], "taken": [], "full": False}


def test_the_owner_s_busy_slots_are_told_for_the_coming_weeks_only(store: LeadStore) -> None:
    """Within BOOKING_BUSY_SHOWN_DAYS the busy slots are hidden with the held ones; further
    ahead only the held ones are (a busy one is refused when booked, with the nearest free
    ones): the owner's calendar cannot be read a year ahead."""
    client = busy_client(store)
    near = WorkingCalendar().next_working_day(agency_now().date() + dt.timedelta(days=20))
    far = WorkingCalendar().next_working_day(agency_now().date() + dt.timedelta(days=200))
    book(store, far, "12:00")
    answer = free_slots(client, near).json()
    assert answer["free"] == [] and answer["taken"] == list(TIME_SLOTS)
    answer = free_slots(client, far).json()
    assert answer["taken"] == ["12:00"]
    assert answer["free"] == [slot for slot in TIME_SLOTS if slot != "12:00"]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(offset=st.integers(-400, 800))
def test_no_date_reveals_a_busy_slot_beyond_what_the_form_needs(
    store: LeadStore, offset: int
) -> None:
    """For any date: a 400 outside the form's dates; inside, busy slots named only within
    the shown days and only among the day's open slots."""
    from agency_site.working_calendar import one_year_after

    client = busy_client(store)
    now = agency_now()
    day = now.date() + dt.timedelta(days=offset)
    answer = free_slots(client, day)
    if not now.date() <= day <= one_year_after(now.date()):
        assert answer.status_code == 400
        return
    taken = answer.json()["taken"]
    open_slots = WorkingCalendar().open_slots(day, now)
    assert set(taken) <= set(open_slots)
    if offset >= SHOWN_DAYS:
        assert taken == []


# --- A link opens its own booking, never the next one with the same id -------------------

BRUNO = {"name": "Bruno Soler", "email": "bruno@example.com", "phone": "+34 611 22 33 44"}


def book_bruno(store: LeadStore, day: dt.date, time: str) -> int:
    fields = BOOKING_FIELDS | BRUNO | {"date": str(day), "time": time, "message": "De Bruno"}
    return add_held_booking(store, fields)


def rewind_ids(store: LeadStore, to: int) -> None:
    """Leave the next lead id at ``to``: what restoring a backup taken before it did."""
    with store.engine.begin() as connection:
        if connection.dialect.name == "sqlite":
            connection.exec_driver_sql(f"UPDATE sqlite_sequence SET seq = {to - 1}")
        else:
            connection.exec_driver_sql(
                f"SELECT setval(pg_get_serial_sequence('leads', 'id'), {to}, false)"
            )


def assert_not_opened(client: Client, store: LeadStore, link: str, bruno: int) -> None:
    """An old link to Ana's erased booking: Bruno's data not shown, his booking untouched."""
    action = link.split("?")[0]
    shown = client.get(link)
    acted = client.post(action, data={"t": link.split("?t=")[1]})
    for answer in (shown, acted):
        assert answer.status_code in (404, 410)
        assert not any(value in answer.text for value in (*BRUNO.values(), "De Bruno"))
    assert slots.get(store.engine, bruno).state == BookingStatus.PENDING


def test_an_old_link_never_opens_the_next_booking(client: Client, store: LeadStore) -> None:
    ana = book(store, DAY, "10:00")
    links = [url(store, action, ana) for action in (LinkAction.CANCEL, LinkAction.DECLINE)]
    assert store.erase_email(BOOKING_FIELDS["email"]) == 1  # Ana, the newest lead, erased.
    bruno = book_bruno(store, DAY, "10:00")
    assert bruno != ana  # Ids are never handed out again (SQLite: AUTOINCREMENT).
    for link in links:
        assert_not_opened(client, store, link, bruno)


def test_after_a_restore_reused_ids_the_key_refuses_the_old_link(
    client: Client, store: LeadStore
) -> None:
    ana = book(store, DAY, "11:00")
    links = [url(store, action, ana) for action in (LinkAction.CANCEL, LinkAction.CONFIRM)]
    store.erase_email(BOOKING_FIELDS["email"])
    rewind_ids(store, ana)
    bruno = book_bruno(store, DAY, "11:00")
    assert bruno == ana  # The id is Ana's again: only the key tells the bookings apart.
    for link in links:
        assert_not_opened(client, store, link, bruno)
    stale = client.get(links[0])
    assert stale.status_code == 410 and COPY.problems.stale in stale.text
    assert client.get(url(store, LinkAction.CANCEL, bruno)).status_code == 200  # His own works.


def test_a_link_made_before_keys_opens_only_a_booking_made_before_them(
    client: Client, store: LeadStore
) -> None:
    """Links mailed before this release: HMAC-SHA1, no key; their bookings have none."""
    old = book(store, DAY, "12:00")
    with store.engine.begin() as connection:
        connection.execute(sa.update(Booking).where(Booking.lead_id == old).values(link_key=None))
    legacy = URLSafeTimedSerializer(SECRET, salt="agency_site.booking-link")
    token = legacy.dumps(["cancel", old, "n0nce"])
    assert client.get(paths.booking_link("cancel") + "?t=" + token).status_code == 200
    new = book_bruno(store, DAY, "15:00")
    token = legacy.dumps(["cancel", new, "n0nce"])
    assert client.get(paths.booking_link("cancel") + "?t=" + token).status_code == 410


def test_links_are_signed_with_hmac_sha256() -> None:
    token = LinkSigner(SECRET).token(LinkAction.CANCEL, 7, "key")
    value, _, signature = token.rpartition(".")
    # itsdangerous: the key is derived as digest(salt + "signer" + secret).
    key = hashlib.sha256(b"agency_site.booking-link" + b"signer" + SECRET.encode()).digest()
    mac = hmac.new(key, value.encode(), hashlib.sha256).digest()
    assert signature == base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


@given(
    action=st.sampled_from(list(LinkAction)),
    lead_id=st.integers(min_value=1, max_value=2**62),
    key=st.text(min_size=1, max_size=32),
    other=st.text(max_size=32),
)
def test_a_link_opens_exactly_the_booking_whose_key_it_carries(
    action: LinkAction, lead_id: int, key: str, other: str
) -> None:
    signer = LinkSigner(SECRET)
    link = signer.verify(signer.token(action, lead_id, key), 3600)
    assert isinstance(link, VerifiedLink)
    assert (link.action, link.lead_id, link.key) == (action, lead_id, key)
    assert link.opens(key) and link.opens(other) == (other == key)
    assert not link.opens(None)  # A booking made before keys.


def test_a_new_booking_gets_its_own_random_key(store: LeadStore) -> None:
    keys = {slots.get(store.engine, book(store, DAY, time)).link_key for time in ("09:00", "16:00")}
    assert len(keys) == 2 and all(key and len(key) >= 22 for key in keys)

"""The booking links' pages on a real database: a GET only shows, the button's POST acts
once; expired, tampered and replayed links get clear pages; the calendar file; free slots."""

import datetime as dt

import httpx
import pytest

from agency_site import paths
from agency_site.bookings import slots
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import Action, LinkSigner
from agency_site.bookings.models import BookingState
from agency_site.bookings.pages import create_app
from agency_site.content.bookings import COPY
from agency_site.leads.store import LeadStore
from agency_site.working_calendar import WorkingCalendar
from tests.leads.test_bookings import SECRET, book
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


def url(action: Action, lead_id: int) -> str:
    return f"{paths.booking_link(str(action))}?t={LinkSigner(SECRET).token(action, lead_id)}"


def test_a_get_shows_the_booking_and_changes_nothing(client: Client, store: LeadStore) -> None:
    lead_id = book(store, DAY, "10:00")
    for _ in range(3):  # A link scanner, a preview, the agency.
        answer = client.get(url(Action.CONFIRM, lead_id))
        assert answer.status_code == 200
        assert COPY.confirm.button in answer.text and "Ana García" in answer.text
        assert 'name="robots" content="noindex"' in answer.text and "<script" not in answer.text
    assert slots.get(store.engine, lead_id).state == BookingState.PENDING


def test_the_button_confirms_once_and_tells_the_visitor(client, store, sent) -> None:
    lead_id = book(store, DAY, "10:00")
    link = url(Action.CONFIRM, lead_id)
    token = link.split("?t=")[1]
    answer = client.post(paths.booking_link("confirm"), data={"t": token})
    assert answer.status_code == 200 and COPY.confirm.done in answer.text
    assert slots.get(store.engine, lead_id).state == BookingState.CONFIRMED
    ((template, params),) = sent
    assert template == "visitor" and params["to_email"] == "ana@example.com"
    assert params["ics_url"].startswith("https://api.agencia.test/_site/bookings/calendar?t=")
    assert params["cancel_url"] and params["google_url"] and params["time"] == "10:00"
    replay = client.post(paths.booking_link("confirm"), data={"t": token})
    assert replay.status_code == 409 and COPY.states.confirmed in replay.text
    assert len(sent) == 1


def test_bad_links_get_clear_pages(client: Client, store: LeadStore) -> None:
    lead_id = book(store, DAY, "11:00")
    token = url(Action.DECLINE, lead_id).split("?t=")[1]
    tampered = client.get(paths.booking_link("decline") + "?t=" + token[:-2] + "xx")
    assert tampered.status_code == 400 and COPY.problems.tampered in tampered.text
    wrong_action = client.get(paths.booking_link("confirm") + "?t=" + token)
    assert wrong_action.status_code == 400
    expired = Client(create_app(lambda: desk_for(store, link_days=-1))).get(
        url(Action.DECLINE, lead_id)
    )
    assert expired.status_code == 410 and COPY.problems.expired in expired.text
    assert client.get(paths.booking_link("nothing") + "?t=x").status_code == 404
    assert client.get(paths.booking_link("confirm")).status_code == 400
    assert slots.get(store.engine, lead_id).state == BookingState.PENDING


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
    token = url(Action.DECLINE, first).split("?t=")[1]
    assert client.post(paths.booking_link("decline"), data={"t": token}).status_code == 200
    assert sent[-1][1]["book_again_url"] == "https://agencia.test/schedule"
    second = book(store, DAY, "12:00")  # The slot is free again.
    token = url(Action.CANCEL, second).split("?t=")[1]
    assert client.post(paths.booking_link("cancel"), data={"t": token}).status_code == 200
    assert [template for template, _ in sent[-2:]] == ["visitor", "agency"]
    confirm = client.get(url(Action.CONFIRM, second))
    assert confirm.status_code == 409 and COPY.states.cancelled in confirm.text


def test_the_calendar_file_of_a_confirmed_booking(client, store) -> None:
    lead_id = book(store, DAY, "16:00")
    slots.decide(store.engine, lead_id, BookingState.CONFIRMED)
    answer = client.get(url(Action.CALENDAR, lead_id))
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

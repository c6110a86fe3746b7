"""Whether the visitor came: the owner's digest links ``attended`` / ``no_show`` on a real
database (SQLite and PostgreSQL). Signed, single-use, a GET shows and changes nothing, only
a confirmed booking whose meeting has started can be marked, once (the other way round
after marking is refused too), and the outcome shows in ``leads list`` and ``export``."""

import csv
import datetime as dt
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agency_site import paths
from agency_site.bookings import slots
from agency_site.bookings.links import LinkAction, LinkSigner
from agency_site.bookings.models import Attendance, BookingStatus
from agency_site.bookings.pages import create_app
from agency_site.content.bookings import COPY
from agency_site.leads.store import LeadStore
from agency_site.working_calendar import WorkingCalendar
from tests.bookings.test_booking_pages import DAY, Client, desk_for, tampered, url
from tests.bookings.test_bookings import MONDAY, SECRET, book
from tests.leads.test_cli import command

PAST = WorkingCalendar().next_working_day(dt.date.today() - dt.timedelta(days=10))
AFTER_MONDAY = dt.datetime(2026, 12, 14, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def client(store: LeadStore) -> Client:
    return Client(create_app(lambda: desk_for(store, 14, [])))


def confirmed(store: LeadStore, day: dt.date, time: str = "10:00") -> int:
    lead_id = book(store, day, time)
    assert slots.decide(store.engine, lead_id, BookingStatus.CONFIRMED)[0] is slots.Decision.DONE
    return lead_id


def token(store: LeadStore, action: LinkAction, lead_id: int) -> str:
    return url(store, action, lead_id).split("?t=")[1]


def press(client: Client, action: LinkAction, link: str):
    return client.post(paths.booking_link(str(action)), data={"t": link})


def test_a_get_shows_the_button_and_marks_nothing(client: Client, store: LeadStore) -> None:
    lead_id = confirmed(store, PAST)
    for action in (LinkAction.ATTENDED, LinkAction.NO_SHOW):
        for _ in range(2):  # A link scanner, then the owner.
            answer = client.get(url(store, action, lead_id))
            assert answer.status_code == 200 and "Ana García" in answer.text
            assert getattr(COPY, str(action)).button in answer.text
    assert slots.get(store.engine, lead_id).attendance is None


def test_the_button_marks_once_and_the_other_way_round_is_refused(
    client: Client, store: LeadStore
) -> None:
    lead_id = confirmed(store, PAST)
    came = token(store, LinkAction.ATTENDED, lead_id)
    answer = press(client, LinkAction.ATTENDED, came)
    assert answer.status_code == 200 and COPY.attended.done in answer.text
    booking = slots.get(store.engine, lead_id)
    assert booking.attendance == Attendance.ATTENDED and booking.attendance_at is not None
    replay = press(client, LinkAction.ATTENDED, came)
    assert replay.status_code == 409 and COPY.attendance.attended in replay.text
    other = press(client, LinkAction.NO_SHOW, token(store, LinkAction.NO_SHOW, lead_id))
    assert other.status_code == 409 and COPY.attendance.attended in other.text
    assert slots.get(store.engine, lead_id).attendance == Attendance.ATTENDED


def test_a_link_is_single_use_even_before_the_page_checks(store: LeadStore) -> None:
    lead_id = confirmed(store, MONDAY)
    signer = LinkSigner(SECRET)
    key = slots.get(store.engine, lead_id).link_key
    link = signer.verify(signer.token(LinkAction.NO_SHOW, lead_id, key), 3600)
    first = slots.mark_attendance(
        store.engine, lead_id, Attendance.NO_SHOW, link.digest, AFTER_MONDAY
    )
    again = slots.mark_attendance(
        store.engine, lead_id, Attendance.NO_SHOW, link.digest, AFTER_MONDAY
    )
    assert (first[0], again[0]) == (slots.Decision.DONE, slots.Decision.REPLAYED)


def test_only_a_confirmed_booking_that_has_started_can_be_marked(
    client: Client, store: LeadStore
) -> None:
    future = confirmed(store, DAY)
    early = press(client, LinkAction.ATTENDED, token(store, LinkAction.ATTENDED, future))
    assert early.status_code == 409 and COPY.problems.not_yet in early.text
    pending = book(store, PAST, "11:00")
    answer = press(client, LinkAction.NO_SHOW, token(store, LinkAction.NO_SHOW, pending))
    assert answer.status_code == 409 and COPY.states.pending in answer.text
    cancelled = confirmed(store, PAST, "12:00")
    slots.decide(store.engine, cancelled, BookingStatus.CANCELLED)
    answer = client.get(url(store, LinkAction.ATTENDED, cancelled))
    assert answer.status_code == 409 and COPY.states.cancelled in answer.text
    for lead_id in (future, pending, cancelled):
        assert slots.get(store.engine, lead_id).attendance is None


def test_a_tampered_or_another_actions_link_is_refused(client: Client, store: LeadStore) -> None:
    lead_id = confirmed(store, PAST)
    came = token(store, LinkAction.ATTENDED, lead_id)
    assert press(client, LinkAction.ATTENDED, tampered(came)).status_code == 400
    assert press(client, LinkAction.NO_SHOW, came).status_code == 400
    confirm = token(store, LinkAction.CONFIRM, lead_id)
    assert press(client, LinkAction.ATTENDED, confirm).status_code == 400
    assert slots.get(store.engine, lead_id).attendance is None


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(marks=st.lists(st.sampled_from(list(Attendance)), min_size=1, max_size=4))
def test_whatever_the_marks_only_the_first_counts(store: LeadStore, marks) -> None:
    lead_id = confirmed(store, MONDAY, "09:00")
    outcomes = [
        slots.mark_attendance(store.engine, lead_id, mark, None, AFTER_MONDAY)[0] for mark in marks
    ]
    assert outcomes == [slots.Decision.DONE] + [slots.Decision.NOT_ALLOWED] * (len(marks) - 1)
    assert slots.get(store.engine, lead_id).attendance == marks[0]
    slots.decide(store.engine, lead_id, BookingStatus.CANCELLED)  # 09:00 free for the next.


def test_the_outcome_shows_in_the_list_and_the_export(store: LeadStore) -> None:
    came = confirmed(store, MONDAY, "10:00")
    missed = confirmed(store, MONDAY, "11:00")
    slots.mark_attendance(store.engine, came, Attendance.ATTENDED, None, AFTER_MONDAY)
    slots.mark_attendance(store.engine, missed, Attendance.NO_SHOW, None, AFTER_MONDAY)
    code, listing = command(store, None, "list")
    assert code == 0
    assert f"[{MONDAY} 10:00 confirmed, attended]" in listing
    assert f"[{MONDAY} 11:00 confirmed, no_show]" in listing
    code, exported = command(store, None, "export", "--output", "-")
    rows = {row["id"]: row for row in csv.DictReader(io.StringIO(exported))}
    assert rows[str(came)]["notes"] == f"{MONDAY} 10:00 confirmed, attended"
    assert rows[str(missed)]["notes"] == f"{MONDAY} 11:00 confirmed, no_show"

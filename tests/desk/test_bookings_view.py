"""Reservas: the week and month views place each booking on its day and slot beside the owner's
busy times and the day's open slots; the inline answers act under the signed links' rules
and e-mails (confirm as the link does, decline and cancel free the slot, move claims the
new slot in one step and refuses a taken one, attended only after the start), each once,
for the booking as the page showed it, audited (SQLite and PostgreSQL)."""

import dataclasses
import datetime as dt
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.bookings import busy_times, reschedule, slots
from agency_site.bookings.busy_times import BusyRules, BusyTimes
from agency_site.bookings.desk import BookingDesk
from agency_site.bookings.links import LinkAction, LinkSigner
from agency_site.bookings.models import Booking, BookingStatus
from agency_site.bookings.pages import create_app as booking_links_app
from agency_site.content.bookings import COPY
from agency_site.desk import booking_answers, booking_calendar
from agency_site.desk.audit import AuditAction
from agency_site.desk.booking_calendar import CalendarView, period
from agency_site.desk.models import DeskAudit
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead
from agency_site.leads.plugins import Hold
from agency_site.rules import TIME_SLOTS
from agency_site.working_calendar import WorkingCalendar
from tests.desk.conftest import DeskSite, screens_booking_desk
from tests.emailjs_fake import make_client, sent_payloads
from tests.lead_store import BOOKING_FIELDS, LEASE, add_held_booking, add_lead_id, plugged

MADRID = dt.timezone(dt.timedelta(hours=1))  # Winter time, as the days below are.
CALENDAR = WorkingCalendar()


def working_day(after: int) -> dt.date:
    """A working day at least ``after`` days from the desk's clock (below)."""
    return CALENDAR.next_working_day(START.date() + dt.timedelta(days=after))


# The desk's clock in these tests: a Monday morning of a winter week in Spain.
START = dt.datetime(2026, 11, 30, 8, 0, tzinfo=dt.UTC)


@pytest.fixture
def site(desk_site: DeskSite) -> DeskSite:
    desk_site.clock.now = START
    desk_site.browser = desk_site.signed_in()
    return desk_site


def at(site: DeskSite, moment: dt.datetime) -> None:
    """The desk's clock at ``moment``, and the browser signed in again there (a session
    ends after 30 minutes idle)."""
    site.clock.now = moment
    site.people = getattr(site, "people", 0) + 1
    site.browser = site.signed_in(f"persona{site.people}@agencia.test")


def book(
    site: DeskSite,
    day: dt.date,
    time: str,
    name: str = "Ana García",
    email: str = "ana@example.com",
    state: BookingStatus = BookingStatus.PENDING,
) -> int:
    """A booking lead holding its slot, as the intake stores one (then answered as
    ``state``); its lead id."""
    fields = BOOKING_FIELDS | {"date": str(day), "time": time, "name": name, "email": email}
    lead_id = add_held_booking(plugged(site.engine), fields)
    with site.engine.begin() as connection:  # Requested an hour before the desk's now.
        connection.execute(
            sa.update(Booking)
            .where(Booking.lead_id == lead_id)
            .values(created_at=site.clock.now - dt.timedelta(hours=1))
        )
    if state is not BookingStatus.PENDING:
        assert slots.decide(site.engine, lead_id, state)[0] is slots.Decision.DONE
    return lead_id


def days_of(html: str) -> dict[str, str]:
    """Each day's part of a calendar page, by its date."""
    parts = re.split(r'data-day="(\d{4}-\d{2}-\d{2})"', html)
    return {parts[n]: parts[n + 1] for n in range(1, len(parts), 2)}


def form_of(html: str, lead_id: int, action: str) -> dict[str, str]:
    """The hidden fields of a booking's answer form, as the page drew them."""
    url = f"{paths.DESK_BOOKINGS}/{lead_id}/{action}"
    start = html.index(f'action="{url}"')
    form = html[start : html.index("</form>", start)]
    return dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', form))


def outcome_of(answer) -> dict[str, list[str]]:
    assert answer.status_code == 303, answer.text
    return parse_qs(urlsplit(answer.headers["location"]).query)


def with_busy(site: DeskSite, busy: BusyTimes) -> None:
    """The owner's calendars, as the booking desk's busy source gives them."""
    desk = dataclasses.replace(site.screens.booking_desk, busy=lambda: busy)
    site.screens.booking_desk = desk


def audit_lines(site: DeskSite) -> list[tuple[str, int | None]]:
    with site.engine.connect() as connection:
        rows = connection.execute(sa.select(DeskAudit.action, DeskAudit.lead_id)).all()
    return [(action, lead) for action, lead in rows if action.startswith("booking_")]


OWNER_ICS = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Test//Owner//ES
BEGIN:VEVENT
UID:dentist@owner
DTSTART;TZID=Europe/Madrid:{day:%Y%m%d}T110000
DTEND;TZID=Europe/Madrid:{day:%Y%m%d}T123000
SUMMARY:Dentista
END:VEVENT
END:VCALENDAR
"""


def test_the_week_and_the_month_place_each_booking_beside_the_busy_times(site) -> None:
    day, other = working_day(2), working_day(3)
    calendar = busy_times.parse(OWNER_ICS.format(day=day))
    busy = busy_times.busy_times([calendar], START, START + dt.timedelta(days=60), BusyRules())
    with_busy(site, busy)
    pending = book(site, day, "10:00", "Ana García", "ana@example.com")
    confirmed = book(site, other, "16:00", "Joan Puig", "joan@example.com", BookingStatus.CONFIRMED)
    gone = book(site, day, "17:00", "Marta Soler", "marta@example.com", BookingStatus.CANCELLED)

    for view in CalendarView:
        page = site.browser.get(paths.DESK_BOOKINGS, params={"view": view, "date": str(day)})
        assert page.status_code == 200
        shown = days_of(page.text)
        expected = period(view, day).days
        assert list(shown) == [d.isoformat() for d in expected]
        first, second = shown[day.isoformat()], shown[other.isoformat()]
        # Each booking on its day, at its slot, with its state and its lead's page.
        assert f'data-booking="{pending}"' in first and "Ana García" in first
        assert "10:00" in first and ">Pendiente de respuesta<" in first
        assert f'href="{paths.desk_lead(pending)}"' in first
        assert f'data-booking="{confirmed}"' in second and "Joan Puig" in second
        assert "16:00" in second and "Confirmada" in second
        assert "Marta Soler" not in page.text and f'data-booking="{gone}"' not in page.text
        # The owner's busy stretch beside them, on its day only.
        assert "Ocupado 11:00–12:30" in first and "Ocupado" not in second
        for other_day, part in shown.items():
            if other_day not in (day.isoformat(), other.isoformat()):
                assert "data-booking" not in part

    # The open slots: the working calendar's, not held (10:00; 17:00 freed), not busy.
    [shown_day] = booking_calendar.calendar_days(site.screens.booking_desk, [day], START)
    assert shown_day.busy == [("11:00", "12:30")]
    assert [b.lead_id for b in shown_day.bookings] == [pending]
    assert shown_day.free == tuple(s for s in TIME_SLOTS if s not in ("10:00", "11:00", "12:00"))
    week = site.browser.get(paths.DESK_BOOKINGS, params={"date": str(day)}).text
    assert f"Libres: {', '.join(shown_day.free)}" in days_of(week)[day.isoformat()]


def test_a_booking_of_another_week_is_not_shown_and_the_url_keeps_the_period(site) -> None:
    day = working_day(2)
    lead_id = book(site, day, "09:00")
    later = day + dt.timedelta(days=14)
    page = site.browser.get(paths.DESK_BOOKINGS, params={"view": "week", "date": str(later)})
    assert f'data-booking="{lead_id}"' not in "".join(days_of(page.text).values())
    # Waiting for an answer: listed above the calendar, whatever the week shown.
    assert f'data-booking="{lead_id}"' in page.text
    following = period(CalendarView.WEEK, later).following
    assert f"date={following.isoformat()}" in page.text
    odd = site.browser.get(paths.DESK_BOOKINGS, params={"view": "year", "date": "mañana"})
    assert odd.status_code == 200


def test_waiting_bookings_show_how_long_and_turn_red_past_a_working_day(site) -> None:
    fresh = book(site, working_day(5), "09:00", "Nueva Persona", "nueva@example.com")
    old = book(site, working_day(5), "10:00", "Vieja Persona", "vieja@example.com")
    with site.engine.begin() as connection:
        connection.execute(
            sa.update(Booking)
            .where(Booking.lead_id == old)
            .values(created_at=START - dt.timedelta(days=3, hours=2))
        )
    page = site.browser.get(paths.DESK_BOOKINGS).text
    waiting = page[page.index('id="waiting-title"') : page.index('id="period-title"')]
    assert waiting.index(f'data-booking="{old}"') < waiting.index(f'data-booking="{fresh}"')
    old_card = waiting[waiting.index(f'data-booking="{old}"') :]
    assert "overdue" in waiting.split(f'data-booking="{old}"')[0].rsplit("<li", 1)[1]
    assert "desde hace 3 días y 2 h" in old_card and "fuera de plazo" in old_card
    fresh_card = waiting[waiting.index(f'data-booking="{fresh}"') :]
    assert "desde hace 1 h" in fresh_card
    assert "fuera de plazo" not in fresh_card.split("</li>")[0]
    # The rule is the owner's alert's: due one working day after the request.
    rows = booking_calendar.waiting(site.screens.booking_desk, START)
    due = {row.lead_id: row.overdue for row in rows}
    assert due == {
        old: slots.answer_due(START - dt.timedelta(days=3, hours=2), CALENDAR) <= START,
        fresh: False,
    }
    assert due[old]


# --- Confirm from the calendar: the signed link's own e-mail ---------------------------------

VISITOR_TEMPLATE = "template_visitor"


def emailing_desk(site: DeskSite, emailjs: HTTPServer) -> BookingDesk:
    """The screen's booking desk sending through the fake EmailJS, as the site does."""
    client = make_client(emailjs)
    templates = {"visitor": VISITOR_TEMPLATE, "agency": "template_contact"}

    async def send(template: str, params: dict[str, str]) -> bool:
        return (await client.send(templates[template], params)).ok

    desk = dataclasses.replace(screens_booking_desk(site.engine, []), send=send)
    site.screens.booking_desk = desk
    return desk


def _tokens_out(params: dict[str, str]) -> dict[str, str]:
    """The e-mail's parameters with each link's signed token (different every time) out."""
    return {name: re.sub(r"t=[^&\s]+", "t=TOKEN", value) for name, value in params.items()}


def test_confirm_from_the_calendar_emails_the_visitor_as_the_signed_link_does(
    site: DeskSite, emailjs: HTTPServer
) -> None:
    emailjs.expect_request("/api/v1.0/email/send", method="POST").respond_with_data("OK")
    desk = emailing_desk(site, emailjs)
    day = working_day(3)
    lead_id = book(site, day, "12:00")
    page = site.browser.get(paths.DESK_BOOKINGS, params={"date": str(day)}).text
    answer = site.browser.post(
        f"{paths.DESK_BOOKINGS}/{lead_id}/confirm", data=form_of(page, lead_id, "confirm")
    )
    said = outcome_of(answer)
    assert said["outcome"] == ["confirmed"] and said["told"] == ["1"]
    assert said["booking"] == [str(lead_id)]
    assert slots.get(site.engine, lead_id).state == BookingStatus.CONFIRMED
    [from_desk] = sent_payloads(emailjs)
    assert from_desk["template_id"] == VISITOR_TEMPLATE
    assert from_desk["template_params"]["to_email"] == "ana@example.com"
    assert audit_lines(site) == [(AuditAction.BOOKING_CONFIRMED, lead_id)]
    shown = site.browser.get(answer.headers["location"]).text
    assert "Cita confirmada." in shown and "Se lo hemos comunicado por correo" in shown

    # The same booking back to pending, confirmed this time by its e-mail's signed link.
    with site.engine.begin() as connection:
        connection.execute(
            sa.update(Booking)
            .where(Booking.lead_id == lead_id)
            .values(state=BookingStatus.PENDING, decided_at=None)
        )
    booking = slots.get(site.engine, lead_id)
    token = LinkSigner(["a-secret-for-the-desk-tests-0123456789"]).token(
        LinkAction.CONFIRM, lead_id, booking.link_key
    )
    from starlette.testclient import TestClient

    links = TestClient(booking_links_app(lambda: desk))
    assert links.post(paths.booking_link("confirm"), data={"t": token}).status_code == 200
    from_link = sent_payloads(emailjs)[1]
    assert from_link["template_id"] == from_desk["template_id"]
    assert _tokens_out(from_link["template_params"]) == _tokens_out(from_desk["template_params"])
    assert from_desk["template_params"]["ics_url"].startswith(
        "http://api.desk.test" + paths.booking_link("calendar") + "?t="
    )


# --- Decline, cancel: the slot is free again ------------------------------------------------


def test_decline_and_cancel_free_the_slot_and_tell_the_visitor(site: DeskSite) -> None:
    day = working_day(2)
    first = book(site, day, "15:00")
    page = site.browser.get(paths.DESK_BOOKINGS, params={"date": str(day)}).text
    said = outcome_of(
        site.browser.post(
            f"{paths.DESK_BOOKINGS}/{first}/decline", data=form_of(page, first, "decline")
        )
    )
    assert said["outcome"] == ["declined"]
    assert slots.taken(site.engine, [day]) == {day: set()}
    assert site.sent[-1][0] == "visitor"
    assert site.sent[-1][1]["subject"] == COPY.mails.declined.subject

    second = book(site, day, "15:00", "Joan Puig", "joan@example.com", BookingStatus.CONFIRMED)
    page = site.browser.get(paths.DESK_BOOKINGS, params={"date": str(day)}).text
    said = outcome_of(
        site.browser.post(
            f"{paths.DESK_BOOKINGS}/{second}/cancel", data=form_of(page, second, "cancel")
        )
    )
    assert said["outcome"] == ["cancelled"]
    assert slots.taken(site.engine, [day]) == {day: set()}
    assert [template for template, _ in site.sent[-2:]] == ["visitor", "agency"]
    book(site, day, "15:00", "Otra Persona", "otra@example.com")  # Free again.
    assert audit_lines(site) == [
        (AuditAction.BOOKING_DECLINED, first),
        (AuditAction.BOOKING_CANCELLED, second),
    ]


def test_an_answer_to_a_booking_changed_meanwhile_does_nothing(site: DeskSite) -> None:
    day = working_day(2)
    lead_id = book(site, day, "09:00")
    page = site.browser.get(paths.DESK_BOOKINGS, params={"date": str(day)}).text
    shown = form_of(page, lead_id, "confirm")
    # Meanwhile the visitor moves it (their manage link): the page showed version 0.
    moved, _ = reschedule.move(
        site.engine, lead_id, day, "10:00", version=0, now=START,
        rules=reschedule.MoveRules(), calendar=CALENDAR,
    )  # fmt: skip
    assert moved is reschedule.Moved.DONE
    said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{lead_id}/confirm", data=shown))
    assert said["outcome"] == ["changed"]
    assert slots.get(site.engine, lead_id).state == BookingStatus.PENDING
    # Answered elsewhere (its e-mail's link) since the page was drawn: nothing either.
    page = site.browser.get(paths.DESK_BOOKINGS, params={"date": str(day)}).text
    shown = form_of(page, lead_id, "decline")
    slots.decide(site.engine, lead_id, BookingStatus.CONFIRMED)
    said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{lead_id}/decline", data=shown))
    assert said["outcome"] == ["changed"]
    assert slots.get(site.engine, lead_id).state == BookingStatus.CONFIRMED
    assert site.sent == [] and audit_lines(site) == []
    unknown = site.browser.post(f"{paths.DESK_BOOKINGS}/999/confirm", data=shown)
    assert outcome_of(unknown)["outcome"] == ["unknown"]


def test_a_version_guards_the_answer_itself(site: DeskSite) -> None:
    """``slots.decide`` with the version shown: a booking moved between the page's check and
    the answer's UPDATE is left alone (the UPDATE itself names the version)."""
    day = working_day(2)
    lead_id = book(site, day, "09:00")
    reschedule.move(
        site.engine, lead_id, day, "11:00", version=0, now=START,
        rules=reschedule.MoveRules(), calendar=CALENDAR,
    )  # fmt: skip
    decision, after = slots.decide(site.engine, lead_id, BookingStatus.CONFIRMED, version=0)
    assert decision is slots.Decision.NOT_ALLOWED and after.state == BookingStatus.PENDING
    decision, after = slots.decide(site.engine, lead_id, BookingStatus.CONFIRMED, version=1)
    assert decision is slots.Decision.DONE and after.state == BookingStatus.CONFIRMED


# --- Move -----------------------------------------------------------------------------------


def move_form(site: DeskSite, lead_id: int, day: dt.date, time: str) -> dict[str, str]:
    """The move page's button for ``day`` ``time`` (it must offer it)."""
    page = site.browser.get(f"{paths.DESK_BOOKINGS}/{lead_id}/move", params={"date": str(day)}).text
    forms = re.findall(r"<form method=\"post\".*?</form>", page, re.DOTALL)
    for form in forms:
        fields = dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', form))
        if fields.get("to_date") == str(day) and fields.get("to_time") == time:
            return fields
    raise AssertionError(f"{day} {time} not offered")


def test_a_move_claims_the_new_slot_in_one_step_and_refuses_a_taken_one(site) -> None:
    day = working_day(2)
    moving = book(site, day, "10:00", state=BookingStatus.CONFIRMED)
    other = book(site, day, "11:00", "Joan Puig", "joan@example.com")
    site.sent.clear()
    # The page offers free slots only; a slot taken between the page and the button:
    offered = move_form(site, moving, day, "12:00")
    book(site, day, "12:00", "Rápida", "rapida@example.com")
    said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{moving}/move", data=offered))
    assert said["outcome"] == ["slot_taken"]
    assert slots.get(site.engine, moving).time == "10:00"
    again = site.browser.get(
        f"{paths.DESK_BOOKINGS}/{moving}/move?"
        + urlsplit(
            site.browser.post(f"{paths.DESK_BOOKINGS}/{moving}/move", data=offered).headers[
                "location"
            ]
        ).query
    )
    assert "Esa hora ya está ocupada" in again.text
    # A held slot is not offered at all.
    with pytest.raises(AssertionError, match="not offered"):
        move_form(site, moving, day, "11:00")

    chosen = move_form(site, moving, day, "16:00")
    said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{moving}/move", data=chosen))
    assert said["outcome"] == ["moved"] and said["told"] == ["1"]
    after = slots.get(site.engine, moving)
    assert (after.date, after.time, after.state) == (day, "16:00", BookingStatus.CONFIRMED)
    assert after.active_slot == slots.slot_key(day, "16:00") and after.reschedules == 0
    assert after.agency_told_sequence == after.visitor_told_sequence == after.sequence == 1
    assert slots.taken(site.engine, [day])[day] == {"11:00", "12:00", "16:00"}
    assert [(t, p["subject"]) for t, p in site.sent] == [("visitor", COPY.mails.moved.subject)]
    # The same form again (a reload): the booking is at a later version, nothing moves.
    said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{moving}/move", data=chosen))
    assert said["outcome"] == ["changed"]
    assert slots.get(site.engine, other).time == "11:00"
    assert audit_lines(site) == [(AuditAction.BOOKING_MOVED, moving)]


def test_a_pending_booking_moved_by_the_owner_is_confirmed_at_its_new_time(site) -> None:
    day = working_day(2)
    lead_id = book(site, day, "09:00")
    said = outcome_of(
        site.browser.post(
            f"{paths.DESK_BOOKINGS}/{lead_id}/move", data=move_form(site, lead_id, day, "17:00")
        )
    )
    assert said["outcome"] == ["moved_confirmed"]
    after = slots.get(site.engine, lead_id)
    assert (after.time, after.state) == ("17:00", BookingStatus.CONFIRMED)
    [(template, params)] = site.sent
    assert template == "visitor" and params["subject"] == COPY.mails.moved.subject
    assert params["ics_url"]
    assert audit_lines(site) == [
        (AuditAction.BOOKING_MOVED, lead_id),
        (AuditAction.BOOKING_CONFIRMED, lead_id),
    ]


def test_the_owner_moves_under_the_owners_rules_not_the_visitors(site) -> None:
    """Within the visitor's notice (24 h) and past their moves (3), the owner still moves it,
    and the owner's move does not use one of the visitor's; not once the meeting started."""
    day = working_day(2)
    lead_id = book(site, day, "17:00", state=BookingStatus.CONFIRMED)
    with site.engine.begin() as connection:
        connection.execute(sa.update(Booking).values(reschedules=3))
    at(site, dt.datetime.combine(day, dt.time(9, 0), MADRID))  # 8 hours before.
    assert reschedule.MoveRules().refusal(slots.get(site.engine, lead_id), site.clock.now)
    said = outcome_of(
        site.browser.post(
            f"{paths.DESK_BOOKINGS}/{lead_id}/move", data=move_form(site, lead_id, day, "18:00")
        )
    )
    assert said["outcome"] == ["moved"]
    assert slots.get(site.engine, lead_id).reschedules == 3
    form = move_form(site, lead_id, day + dt.timedelta(days=7), "09:00")
    at(site, dt.datetime.combine(day, dt.time(18, 5), MADRID))  # It has started.
    said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{lead_id}/move", data=form))
    assert said["outcome"] == ["started"]
    assert slots.get(site.engine, lead_id).time == "18:00"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    moves=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 1), st.sampled_from(TIME_SLOTS[:4])),
        min_size=1,
        max_size=6,
    )
)
def test_any_moves_leave_one_booking_per_slot_each_where_it_says(site, moves) -> None:
    """Whatever the owner moves where (free, held or its own slot): every active booking
    holds exactly its own slot, no slot has two, and each move was done or refused whole."""
    with site.engine.begin() as connection:
        connection.execute(sa.delete(Booking))
        connection.execute(sa.delete(Lead))
    days = [working_day(2), working_day(3)]
    booked = [
        book(site, days[0], "09:00", f"P{n}", f"p{n}@example.com", BookingStatus.CONFIRMED)
        if n == 0
        else book(site, days[n - 1], "10:00", f"P{n}", f"p{n}@example.com")
        for n in range(3)
    ]
    for who, where, time in moves:
        lead_id = booked[who]
        before = slots.get(site.engine, lead_id)
        if not BookingStatus(before.state).active:
            continue
        fields = {
            "v": str(before.sequence), "s": before.state, "view": "week",
            "date": str(days[0]), "to_date": str(days[where]), "to_time": time,
        }  # fmt: skip
        said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{lead_id}/move", data=fields))
        after = slots.get(site.engine, lead_id)
        if said["outcome"][0] in ("moved", "moved_confirmed"):
            assert (after.date, after.time) == (days[where], time)
        else:
            assert said["outcome"][0] in ("slot_taken", "same")
            assert (after.date, after.time, after.sequence) == (
                before.date, before.time, before.sequence,
            )  # fmt: skip
    with site.engine.connect() as connection:
        rows = connection.execute(
            sa.select(Booking.date, Booking.time, Booking.active_slot, Booking.state)
        ).all()
    held = [row.active_slot for row in rows if row.active_slot]
    assert len(held) == len(set(held)) == len(rows)
    assert all(row.active_slot == slots.slot_key(row.date, row.time) for row in rows)


# --- Attended, no-show ------------------------------------------------------------------------


def test_attendance_is_marked_only_once_the_meeting_has_started(site: DeskSite) -> None:
    day = working_day(2)
    lead_id = book(site, day, "10:00", state=BookingStatus.CONFIRMED)
    at(site, dt.datetime.combine(day, dt.time(9, 59), MADRID))
    page = site.browser.get(paths.DESK_BOOKINGS, params={"date": str(day)}).text
    assert f"/{lead_id}/attended" not in page  # Not offered before the start.
    early = {"v": "0", "s": "confirmed", "view": "week", "date": str(day)}
    said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{lead_id}/attended", data=early))
    assert said["outcome"] == ["not_started"]
    assert slots.get(site.engine, lead_id).attendance is None

    at(site, dt.datetime.combine(day, dt.time(10, 0), MADRID))
    page = site.browser.get(paths.DESK_BOOKINGS, params={"date": str(day)}).text
    shown = form_of(page, lead_id, "no_show")
    said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{lead_id}/no_show", data=shown))
    assert said["outcome"] == ["no_show"]
    assert slots.get(site.engine, lead_id).attendance == "no_show"
    # Once: marked, it offers nothing more, and a second mark changes nothing.
    said = outcome_of(site.browser.post(f"{paths.DESK_BOOKINGS}/{lead_id}/attended", data=shown))
    assert said["outcome"] == ["changed"]
    assert slots.get(site.engine, lead_id).attendance == "no_show"
    assert audit_lines(site) == [(AuditAction.BOOKING_NO_SHOW, lead_id)]
    assert site.sent == []


def test_a_slot_lost_booking_is_flagged_and_its_confirm_says_the_slot_is_taken(site) -> None:
    day = working_day(2)
    holder = book(site, day, "10:00", "Quien Llegó Antes", "antes@example.com")
    lost = add_lead_id(
        plugged(site.engine),
        LeadKind.BOOKING,
        BOOKING_FIELDS | {"date": str(day), "time": "10:00", "email": "tarde@example.com"},
        claim_token=None,
        lease=LEASE,
        hold=Hold(strict=False),
    )
    assert slots.get(site.engine, lost).slot_lost
    page = site.browser.get(paths.DESK_BOOKINGS, params={"date": str(day)}).text
    card = page[page.index(f'data-booking="{lost}"') :].split("</li>")[0]
    assert "Sin hora reservada" in card
    said = outcome_of(
        site.browser.post(
            f"{paths.DESK_BOOKINGS}/{lost}/confirm", data=form_of(page, lost, "confirm")
        )
    )
    assert said["outcome"] == ["slot_taken"]
    assert slots.get(site.engine, holder).state == BookingStatus.PENDING
    # Moved by the owner to a free slot: it holds one, confirmed.
    said = outcome_of(
        site.browser.post(
            f"{paths.DESK_BOOKINGS}/{lost}/move", data=move_form(site, lost, day, "15:00")
        )
    )
    assert said["outcome"] == ["moved_confirmed"]
    after = slots.get(site.engine, lost)
    assert not after.slot_lost and after.active_slot == slots.slot_key(day, "15:00")


def test_every_answer_outcome_and_closure_has_its_words() -> None:
    from agency_site.working_calendar import Closure
    from tests.desk.test_pages import _words

    words = _words()
    answers = {str(answer) for answer in booking_calendar.BookingAnswer}
    assert set(words.BOOKING_ANSWERS) == set(words.BOOKING_ANSWERS_HELP) == answers
    outcomes = {str(outcome) for outcome in booking_answers.BookingOutcome}
    assert set(words.BOOKING_OUTCOMES) == outcomes
    assert set(words.BOOKING_TOLD) <= set(words.BOOKING_DONE) <= outcomes
    assert set(words.CLOSURES) == {str(closure) for closure in Closure}
    assert set(words.VIEWS) == {str(view) for view in CalendarView}
    assert len(words.WEEKDAYS) == 7

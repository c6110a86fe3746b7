""" "Reservas" (``paths.DESK_BOOKINGS``): the bookings of a week or a month beside the owner's
busy times and each day's open slots, and each booking's answers, inline.

**What it shows.** ``?view=week|month&date=YYYY-MM-DD`` (the week or month holding that
date; the week of today by default), kept in the URL: each day with its requested
(pending) and confirmed bookings (the person, the slot, the state, ``slot_lost`` flagged,
a link to the lead's page), the stretches the owner's calendars are busy and the slots
still open; above the calendar, every booking still waiting for an answer, the oldest
first, with how long it has waited and whether it is past its answer's due time. The
calendar's data: ``booking_calendar.py``.

**What it does** (confirm, decline, cancel, move, attended or not), each a POST form that
works without JavaScript: ``booking_answers.py``. Its routes are this screen's.
"""

import asyncio

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agency_site import paths
from agency_site.bookings.models import Booking
from agency_site.desk.booking_answers import BookingOutcome, answer, booking_desk, move, today_of
from agency_site.desk.booking_calendar import (
    CalendarView,
    booked,
    calendar_days,
    calendar_url,
    entry,
    parse_day,
    parse_view,
    period,
    waiting,
)
from agency_site.desk.guard import desk_of, render

# --- The pages ------------------------------------------------------------------------------


async def calendar_page(request: Request) -> Response:
    tools, now = booking_desk(request), desk_of(request).clock()
    params = request.query_params
    view = parse_view(params.get("view"))
    shown = period(view, parse_day(params.get("date"), today_of(request)))
    days = await asyncio.to_thread(calendar_days, tools, shown.days, now)
    pending = await asyncio.to_thread(waiting, tools, now)
    outcome = params.get("outcome")
    return render(
        request,
        "bookings.html",
        current="bookings",
        view=view,
        period=shown,
        days={day.date: day for day in days},
        waiting=pending,
        outcome=outcome if outcome in set(BookingOutcome) else None,
        told=params.get("told") == "1",
        about=int(params["booking"]) if params.get("booking", "").isdigit() else None,
        here=calendar_url(view, shown.first),
        calendar_url=calendar_url,
        views=list(CalendarView),
        today=today_of(request),
        now=now,
    )


async def move_page(request: Request) -> Response:
    """The free slots of a week to move a booking to (one button each)."""
    tools, desk = booking_desk(request), desk_of(request)
    now, lead_id = desk.clock(), request.path_params["lead_id"]
    found = await asyncio.to_thread(booked, tools.engine, Booking.lead_id == lead_id)
    if not found:
        return render(request, "not_found.html", 404)
    booking, fields = found[0]
    params = request.query_params
    today = today_of(request)
    week = period(CalendarView.WEEK, max(parse_day(params.get("date"), today), today))
    days = await asyncio.to_thread(calendar_days, tools, week.days, now)
    outcome = params.get("outcome")
    return render(
        request,
        "booking_move.html",
        current="bookings",
        booking=entry(booking, fields, now, tools.calendar),
        week=week,
        days=days,
        earlier=week.first > today,
        view=parse_view(params.get("view")),
        back_date=parse_day(params.get("back"), booking.date),
        outcome=outcome if outcome in set(BookingOutcome) else None,
        calendar_url=calendar_url,
    )


ROUTES = [
    Route(paths.DESK_BOOKINGS, calendar_page, methods=["GET"], name="bookings"),
    Route(
        f"{paths.DESK_BOOKINGS}/{{lead_id:int}}/move",
        move_page,
        methods=["GET"],
        name="booking_move_page",
    ),
    Route(
        f"{paths.DESK_BOOKINGS}/{{lead_id:int}}/move", move, methods=["POST"], name="booking_move"
    ),
    Route(
        f"{paths.DESK_BOOKINGS}/{{lead_id:int}}/{{action}}",
        answer,
        methods=["POST"],
        name="booking_answer",
    ),
]

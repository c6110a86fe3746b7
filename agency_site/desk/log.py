""" "Registro": the audit log, newest first (who, what, which lead, request or person, when),
a page of ``PAGE_SIZE`` lines at a time, and how long the lines are kept."""

import asyncio

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agency_site import paths
from agency_site.desk import audit, people
from agency_site.desk.guard import desk_of, render

LOG = f"{paths.DESK}/log"
PAGE_SIZE = 50


def _read(engine, before: int | None) -> tuple[audit.Page, dict]:
    page = audit.read(engine, before=before, size=PAGE_SIZE)
    ids = {line.person_id for line in page.lines} | {line.subject_id for line in page.lines}
    return page, people.people_named(engine, {i for i in ids if i is not None})


async def log_page(request: Request) -> Response:
    desk = desk_of(request)
    before = request.query_params.get("before", "")
    page, named = await asyncio.to_thread(
        _read, desk.engine(), int(before) if before.isdigit() and len(before) < 19 else None
    )
    return render(
        request,
        "log.html",
        current="log",
        page=page,
        people=named,
        months=desk.config.audit_months,
    )


ROUTES = [Route(LOG, log_page, methods=["GET"], name="log")]

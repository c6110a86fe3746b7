""" "Tu acceso": the signed-in person's passkeys (each with its label, when it was added and
last used), adding another, removing one (never the last: with none left only a new invite
lets them in), and signing out everywhere (every session of theirs ends, this one too).

Adding and removing a passkey ask for the passkey again (``requires_fresh_passkey``): a
session left open on a shared computer cannot slip in a passkey of someone else's.
"""

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from agency_site import paths
from agency_site.desk import people, sessions
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import (
    desk_of,
    is_fresh,
    json_body,
    record,
    refusal,
    render,
    requires_fresh_passkey,
    signed_in,
)
from agency_site.desk.passkeys import PasskeyRefused
from agency_site.desk.sign_in import signed_out

ACCESS = f"{paths.DESK}/access"
# What the page says after a change (``?done=``): words in access.html.
DONE = ("added", "removed", "last")


async def access_page(request: Request) -> Response:
    desk, person = desk_of(request), signed_in(request)
    passkeys = await asyncio.to_thread(people.passkeys_of, desk.engine(), person.person_id)
    done = request.query_params.get("done")
    return render(
        request,
        "access.html",
        current="access",
        passkeys=passkeys,
        done=done if done in DONE else None,
        fresh=is_fresh(request),
    )


@requires_fresh_passkey
async def add_options(request: Request) -> Response:
    desk, person = desk_of(request), signed_in(request)
    options = await asyncio.to_thread(desk.ceremonies.add_options, person.person_id, desk.clock())
    return Response(options, media_type="application/json")


@requires_fresh_passkey
async def add(request: Request) -> Response:
    data = await json_body(request)
    credential = data and data.get("credential")
    if not isinstance(credential, dict):
        return refusal("passkey")
    desk, person = desk_of(request), signed_in(request)
    try:
        await asyncio.to_thread(
            desk.ceremonies.add, person.person_id, credential, data.get("label"), desk.clock()
        )
    except PasskeyRefused as refused:
        return refusal(refused.code)
    return JSONResponse({"next": f"{ACCESS}?done=added"})


@requires_fresh_passkey
async def remove(request: Request) -> Response:
    desk, person = desk_of(request), signed_in(request)
    passkey_id = request.path_params["passkey_id"]
    removal = await asyncio.to_thread(
        people.remove_passkey, desk.engine(), person.person_id, passkey_id
    )
    if removal is people.Removal.REMOVED:
        await record(request, AuditAction.PASSKEY_REMOVED, subject_id=person.person_id)
        return RedirectResponse(f"{ACCESS}?done=removed", status_code=303)
    if removal is people.Removal.LAST:
        return RedirectResponse(f"{ACCESS}?done=last", status_code=303)
    return render(request, "not_found.html", 404)


async def sign_out_everywhere(request: Request) -> Response:
    desk, person = desk_of(request), signed_in(request)
    await asyncio.to_thread(sessions.end_all, desk.engine(), person.person_id)
    await record(request, AuditAction.SIGNED_OUT_EVERYWHERE)
    return signed_out(request)


ROUTES = [
    Route(ACCESS, access_page, methods=["GET"], name="access"),
    Route(f"{ACCESS}/passkeys/options", add_options, methods=["POST"], name="passkey_options"),
    Route(f"{ACCESS}/passkeys", add, methods=["POST"], name="passkey_add"),
    Route(
        f"{ACCESS}/passkeys/{{passkey_id:int}}/remove",
        remove,
        methods=["POST"],
        name="passkey_remove",
    ),
    Route(
        f"{ACCESS}/sign-out-everywhere",
        sign_out_everywhere,
        methods=["POST"],
        name="sign_out_everywhere",
    ),
]

"""The desk's stylesheet and script (``static/``), served by the backend under
``paths.DESK``'s ``/static/`` with their content's hash in their names (``desk.3f9a1c2b.css``):
cached for a year, a changed file is a new name. A name of an older file, or any other,
is not found."""

import hashlib
from functools import cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

from agency_site import paths

FOLDER = Path(__file__).parent / "static"
PREFIX = f"{paths.DESK}/static/"
CACHE = "public, max-age=31536000, immutable"
TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


@cache
def hashed_names() -> dict[str, str]:
    """Each file's served name (``desk.<hash>.css``) -> its file name."""
    names = {}
    for file in sorted(FOLDER.iterdir()):
        if file.suffix in TYPES:
            digest = hashlib.sha256(file.read_bytes()).hexdigest()[:12]
            names[f"{file.stem}.{digest}{file.suffix}"] = file.name
    return names


def url(name: str) -> str:
    """The path a page links a static file by (``desk.css`` -> its hashed name's)."""
    for served, file in hashed_names().items():
        if file == name:
            return PREFIX + served
    raise KeyError(name)


def is_static(path: str) -> bool:
    """Whether a request's path is a static file's (no session needed)."""
    return path.startswith(PREFIX)


async def serve(request: Request) -> Response:
    """A static file by its hashed name; 404 for any other."""
    file = hashed_names().get(request.path_params["name"])
    if file is None:
        return PlainTextResponse("", status_code=404, headers={"Cache-Control": "no-store"})
    path = FOLDER / file
    return FileResponse(path, media_type=TYPES[path.suffix], headers={"Cache-Control": CACHE})


ROUTES = [Route(PREFIX + "{name}", serve, methods=["GET"], name="static")]

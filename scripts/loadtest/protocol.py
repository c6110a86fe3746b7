"""What a browser tab says to the Reflex 0.10.1 backend, reproduced frame for frame.

Learnt from ``reflex_base/.templates/web/utils/state.js``, ``reflex/app.py``
(``EventNamespace``) and the compiled ``.web/``, then checked against Chromium's
own websocket frames on the production build (``/`` → client-side link to
``/about`` → full load of ``/schedule`` → a booking):

- **Transport**: socket.io v5 (Engine.IO 4) over a plain websocket, no polling:
  ``ws://HOST/_event/?token=<uuid4>&EIO=4&transport=websocket`` on namespace
  ``/_event``. The token is the tab's id (sessionStorage): a full page load in the
  same tab reconnects with the *same* token; a new tab has a new one. The browser
  also offers the subprotocol ``0.10.1`` (only a version warning if absent).
- **Hydrate rides in the CONNECT packet**: ``40/_event,{"event": {...}, "state_schema": H}``
  where the event is ``{"name": "reflex___state____state.hydrate_and_load",
  "payload": {"hashes": initialStateHashes}, "router_data": {"pathname": "/schedule",
  "asPath": "/schedule"}}``. ``H`` and ``initialStateHashes`` are compiled into
  ``.web/utils/context.jsx``; with the hashes the backend sends only the vars that
  differ from the compiled defaults (a reconnect sends no hashes: full state). A
  wrong ``state_schema`` gets a ``state_mismatch`` message (the page reloads).
- **Answer to the hydrate**: two ``event`` messages: the router data (headers,
  page, session...) of ``reflex___state____state``, then
  ``{"reflex___state____state": {"is_hydrated_rx_state_": true}}`` from the page's
  on_load chain. No separate ``on_load_internal`` on a full page load.
- **Client-side navigation** (a ``<Link>``): one event
  ``{"name": "reflex___state____state.reflex___state____on_load_internal_state.on_load_internal",
  "router_data": {"pathname": "/about", "asPath": "/about"}}`` (no payload key);
  the answer is one delta with ``is_hydrated_rx_state_: true`` and the new
  ``rx_router_url/page/route_id``.
- **Leaving a page**: ``41/_event,`` (namespace disconnect) on pagehide.
- **A booking**: ``42/_event,["event", {"name":
  "reflex___state____state.agency_site___state___form_states____booking_form_state.submit",
  "payload": {"form_data": {"__reflex_form_data__": [[name, value], ...]}},
  "router_data": {...}}]``. The entries are the form's own fields (``name``,
  ``email``, ``phone``, ``date``, ``time``, ``message``, ``website`` = honeypot)
  followed by the same values again under the refs' ids (``booking_name``...
  ``booking_website``): the compiled handler adds every ref the form did not
  submit under that name.
- **Outcome**: deltas of substate
  ``reflex___state____state.agency_site___state___form_states____booking_form_state``: first
  ``sending_rx_state_: true``, then ``result_rx_state_`` = ``sent`` | ``queued`` |
  ``rate_limited`` | ``store_failed`` (``""`` with ``errors_rx_state_`` = invalid),
  then an ``events`` message with a ``_call_script`` resetting the form; after 5 s
  a last delta clears ``result`` again (the success message disappears).
"""

import asyncio
import contextlib
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import socketio

NAMESPACE = "/_event"
SOCKETIO_PATH = "_event"
REFLEX_VERSION = "0.10.1"
ROOT_STATE = "reflex___state____state"
HYDRATE_AND_LOAD = f"{ROOT_STATE}.hydrate_and_load"
ON_LOAD_INTERNAL = f"{ROOT_STATE}.reflex___state____on_load_internal_state.on_load_internal"
BOOKING_STATE = f"{ROOT_STATE}.agency_site___state___form_states____booking_form_state"
BOOKING_SUBMIT = f"{BOOKING_STATE}.submit"
FORM_DATA_ENTRIES_KEY = "__reflex_form_data__"
HYDRATED_VAR = "is_hydrated_rx_state_"
RESULT_VAR = "result_rx_state_"
ERRORS_VAR = "errors_rx_state_"
SENDING_VAR = "sending_rx_state_"
# The booking form's refs are its fields' names with this prefix (``booking_name``...).
BOOKING_REF_PREFIX = "booking_"


@dataclass(frozen=True)
class BuildInfo:
    """What the compiled frontend sends in its CONNECT packet."""

    state_schema: str | None
    hashes: list[str] | None

    @classmethod
    def from_web_dir(cls, web_dir: Path) -> "BuildInfo":
        """Read ``stateSchema`` and ``initialStateHashes`` of a built ``.web/`` (or none)."""
        context = web_dir / "utils" / "context.jsx"
        if not context.exists():
            return cls(None, None)
        text = context.read_text()
        schema = re.search(r"export const stateSchema = (\"[^\"]*\")", text)
        hashes = re.search(r"export const initialStateHashes = (\[[^\]]*\])", text)
        return cls(
            json.loads(schema.group(1)) if schema else None,
            json.loads(hashes.group(1)) if hashes else None,
        )


def router_data(path: str) -> dict[str, str]:
    """The router data the browser attaches to an event sent from ``path``."""
    return {"pathname": path, "asPath": path}


def hydrate_auth(path: str, build: BuildInfo) -> dict[str, Any]:
    """The CONNECT packet's payload of a first page load of ``path``."""
    event: dict[str, Any] = {"name": HYDRATE_AND_LOAD}
    if build.hashes is not None:
        event["payload"] = {"hashes": build.hashes}
    event["router_data"] = router_data(path)
    auth: dict[str, Any] = {"event": event}
    if build.state_schema is not None:
        auth["state_schema"] = build.state_schema
    return auth


def navigation_event(path: str) -> dict[str, Any]:
    """The event a client-side navigation to ``path`` sends."""
    return {"name": ON_LOAD_INTERNAL, "router_data": router_data(path)}


def booking_event(fields: dict[str, str], path: str = "/schedule") -> dict[str, Any]:
    """The submit event of the booking form filled with ``fields`` (the form's controls in
    the order the browser's FormData lists them: ``visitors.booking_fields``)."""
    values = [[name, value] for name, value in fields.items()]
    refs = [[f"{BOOKING_REF_PREFIX}{name}", value] for name, value in values]
    return {
        "name": BOOKING_SUBMIT,
        "payload": {"form_data": {FORM_DATA_ENTRIES_KEY: values + refs}},
        "router_data": router_data(path),
    }


class VisitorError(Exception):
    """A visitor could not do what it came for (connect, hydrate, get an answer)."""


@dataclass
class Counters:
    """Traffic of all visitors together."""

    sent: int = 0  # events sent (a CONNECT carrying a hydrate counts as one)
    received: int = 0  # "event" messages received
    bytes_received: int = 0


@dataclass
class Tab:
    """One browser tab: a socket.io connection with the tab's token and what it has seen."""

    url: str
    build: BuildInfo
    session: aiohttp.ClientSession
    counters: Counters
    timeout: float = 30.0
    token: str = field(default_factory=lambda: str(uuid.uuid4()))
    hydrated: bool = False
    booking: dict[str, Any] = field(default_factory=dict)
    mismatch: bool = False

    def __post_init__(self) -> None:
        self.sio = socketio.AsyncClient(
            reconnection=False,
            http_session=self.session,
            # The browser offers the Reflex version as the websocket subprotocol.
            websocket_extra_options={"protocols": [REFLEX_VERSION]},
        )
        self._changed = asyncio.Event()
        self.sio.on("event", self._on_event, namespace=NAMESPACE)
        self.sio.on("state_mismatch", self._on_mismatch, namespace=NAMESPACE)

    async def _on_event(self, update: dict[str, Any]) -> None:
        self.counters.received += 1
        delta = update.get("delta") or {}
        root = delta.get(ROOT_STATE)
        if root and HYDRATED_VAR in root:
            self.hydrated = bool(root[HYDRATED_VAR])
        if BOOKING_STATE in delta:
            self.booking.update(delta[BOOKING_STATE])
        self._changed.set()

    async def _on_mismatch(self, _info: Any) -> None:
        self.mismatch = True
        self._changed.set()

    async def _wait_for(self, check, what: str, within: float | None = None) -> None:
        within = self.timeout if within is None else within
        deadline = time.monotonic() + within
        while not check():
            if self.mismatch:
                raise VisitorError("state_mismatch: the frontend build differs from the backend")
            if not self.sio.connected:
                raise VisitorError(f"disconnected while waiting for {what}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise VisitorError(f"no {what} within {within:.0f} s")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    async def open(self, path: str) -> float:
        """Load ``path`` (connect with the hydrate); seconds until the page is hydrated."""
        started = time.perf_counter()
        self.hydrated = False
        try:
            await self.sio.connect(
                f"{self.url}?token={self.token}",
                socketio_path=SOCKETIO_PATH,
                namespaces=[NAMESPACE],
                transports=["websocket"],
                auth=hydrate_auth(path, self.build),
                wait_timeout=self.timeout,
            )
        except (socketio.exceptions.ConnectionError, OSError, TimeoutError) as error:
            raise VisitorError(f"connect failed: {error}") from error
        self.counters.sent += 1
        await self._wait_for(lambda: self.hydrated, "hydrate")
        return time.perf_counter() - started

    async def _emit(self, event: dict[str, Any]) -> None:
        """Send one event; a dropped connection (its backend killed) is the visitor's error."""
        try:
            await self.sio.emit("event", event, namespace=NAMESPACE)
        except socketio.exceptions.SocketIOError as error:
            raise VisitorError(f"disconnected: {type(error).__name__}") from error

    async def navigate(self, path: str) -> float:
        """Follow a link to ``path``; seconds until its on_load chain has answered."""
        started = time.perf_counter()
        self.hydrated = False  # the browser's routeChangeStart does the same
        await self._emit(navigation_event(path))
        self.counters.sent += 1
        await self._wait_for(lambda: self.hydrated, "navigation answer")
        return time.perf_counter() - started

    async def book(
        self, fields: dict[str, str], started_within: float | None = None
    ) -> tuple[str, float]:
        """Submit the booking form; the outcome shown and seconds until it showed.

        ``started_within``: the backend must have started the submission (``sending``)
        this soon, as the page's HTTP fallback expects (VisitorError otherwise).
        """
        self.booking.clear()
        started = time.perf_counter()
        await self._emit(booking_event(fields))
        self.counters.sent += 1

        def answered() -> bool:
            return self.booking.get(SENDING_VAR) is False and (
                bool(self.booking.get(RESULT_VAR)) or bool(self.booking.get(ERRORS_VAR))
            )

        if started_within is not None:
            began = lambda: SENDING_VAR in self.booking  # noqa: E731
            await self._wait_for(began, "start of the submission", started_within)
        await self._wait_for(answered, "booking outcome")
        elapsed = time.perf_counter() - started
        return self.booking.get(RESULT_VAR) or "invalid", elapsed

    async def close(self) -> None:
        """Leave the page (namespace disconnect, then the websocket closes)."""
        with contextlib.suppress(Exception):
            await self.sio.disconnect()

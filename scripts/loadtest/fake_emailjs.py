"""A fake of the EmailJS REST API on loopback, for the load test (a standalone process).

    .venv/bin/python scripts/loadtest/fake_emailjs.py --port 8765 --log /tmp/emailjs.jsonl
    .venv/bin/python scripts/loadtest/fake_emailjs.py --port 8765 --log x.jsonl \\
        --fault-status 503 --fault-seconds 30      # answer 503 for the first 30 s, then 200
    .venv/bin/python scripts/loadtest/fake_emailjs.py --port 8765 --log x.jsonl \\
        --drop-seconds 30                          # close the connection unanswered for 30 s
        --delay-seconds 4 --fault-seconds 20        # answer 200 only after 4 s, for 20 s

``POST /api/v1.0/email/send`` answers 200 ``OK`` (what EmailJS answers) and appends
one JSON line per request to the log: the time, the answer (a status, or
``"dropped"``) and the request's JSON body, whose ``template_params.from_email``
lets the load test match deliveries against the leads table. The faults can also
be switched while it runs: ``POST /_fault`` with ``{"status": 503, "seconds": 10}``
or ``{"drop": true, "seconds": 10}`` or ``{"delay": 4, "seconds": 10}`` (a slow provider:
it has the e-mail at once and answers 200 after 4 s; ``{}`` puts it back to 200).
``GET /_health`` answers 200 once it listens. It binds to 127.0.0.1 only.
"""

import argparse
import asyncio
import json
import time
from pathlib import Path

from aiohttp import web

SEND_PATH = "/api/v1.0/email/send"


class Faults:
    """What the fake answers now: 200, another status, nothing (a dropped connection), late."""

    def __init__(self) -> None:
        self.status = 200
        self.drop = False
        self.delay = 0.0
        self.until = 0.0  # monotonic time the fault ends; 0 = no fault

    def set(
        self, *, status: int = 200, drop: bool = False, delay: float = 0.0, seconds: float = 0.0
    ) -> None:
        """Answer ``status`` (or drop, or late) for ``seconds``; 0 s means until changed."""
        self.status, self.drop, self.delay = status, drop, delay
        self.until = time.monotonic() + seconds if seconds > 0 else float("inf")
        if status == 200 and not drop and not delay:
            self.until = 0.0

    def current(self) -> tuple[int, bool, float]:
        """The status to answer, whether to drop instead, and how long to wait first."""
        if self.until and time.monotonic() < self.until:
            return self.status, self.drop, self.delay
        return 200, False, 0.0


def make_app(log_path: Path, faults: Faults) -> web.Application:
    """The aiohttp application of the fake."""
    log = log_path.open("a", buffering=1)  # one line per request, flushed

    async def send(request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"unparsed": raw.decode(errors="replace")[:500]}
        status, drop, delay = faults.current()
        answer = "dropped" if drop else status
        # Logged on arrival: like EmailJS, the fake has the e-mail before it answers.
        log.write(json.dumps({"t": time.time(), "answer": answer, "body": body}) + "\n")
        if delay:
            await asyncio.sleep(delay)
        if drop:
            # Read the request, then close the socket without a response.
            if request.transport is not None:
                request.transport.close()
            raise asyncio.CancelledError
        text = "OK" if status == 200 else f"Fake EmailJS fault {status}"
        return web.Response(status=status, text=text)

    async def fault(request: web.Request) -> web.Response:
        spec = await request.json() if request.can_read_body else {}
        faults.set(
            status=int(spec.get("status", 200)),
            drop=bool(spec.get("drop", False)),
            delay=float(spec.get("delay", 0)),
            seconds=float(spec.get("seconds", 0)),
        )
        return web.json_response({"status": faults.status, "drop": faults.drop})

    async def health(_request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post(SEND_PATH, send)
    app.router.add_post("/_fault", fault)
    app.router.add_get("/_health", health)

    async def close_log(_app: web.Application) -> None:
        log.close()

    app.on_cleanup.append(close_log)
    return app


def main() -> None:
    """Serve the fake until terminated."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", type=Path, required=True, help="JSON-lines log of every send")
    parser.add_argument("--fault-status", type=int, default=200, help="answer this status...")
    parser.add_argument("--drop-seconds", type=float, default=0.0, help="drop connections for")
    parser.add_argument("--fault-seconds", type=float, default=0.0, help="...for these seconds")
    parser.add_argument("--delay-seconds", type=float, default=0.0, help="answer late by...")
    args = parser.parse_args()
    faults = Faults()
    if args.drop_seconds > 0:
        faults.set(drop=True, seconds=args.drop_seconds)
    elif args.delay_seconds > 0:
        faults.set(delay=args.delay_seconds, seconds=args.fault_seconds)
    elif args.fault_status != 200:
        faults.set(status=args.fault_status, seconds=args.fault_seconds)
    web.run_app(
        make_app(args.log, faults),
        host="127.0.0.1",
        port=args.port,
        print=None,
        access_log=None,
        handle_signals=True,
    )


if __name__ == "__main__":
    main()

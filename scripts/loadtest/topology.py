"""The load test against a running ``make stack``: its addresses, its gauges and its faults.

``StackInfo`` reads ``.stack/pids.json`` and ``.stack/env`` (written by
``scripts/stack.py up``); ``ConnectionSampler`` follows Redis's ``INFO clients``
and PostgreSQL's ``pg_stat_activity`` during a round; ``inject`` applies one fault
mode at a given second of the round (each ends by itself: the backend is
restarted, the fake EmailJS recovers, the server comes back).
"""

import asyncio
import contextlib
import json
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
STACK_DIR = ROOT / ".stack"
STACK_SCRIPT = ROOT / "scripts" / "stack.py"

FAULTS = (
    "kill-backend",
    "kill-while-sending",
    "emailjs-500",
    "emailjs-429",
    "postgres-restart",
    "postgres-stop-60",
    "postgres-down-at-start",
    "redis-restart",
    "redis-stop-30",
    "emailjs-drop",
    "proxy-refuse-websocket",
    "monitor-held-lead",
)
KILL_DOWN_S = 10.0  # a killed backend is started again this long after
EMAILJS_FAULT_S = 60.0  # the fake answers 500/429 this long, then recovers
DROP_S = 15.0  # the fake takes e-mails and drops the answer this long
# kill-while-sending: the fake answers this late, so sends are in flight when the kill comes.
SLOW_ANSWER_S, SLOW_FOR_S, KILL_AFTER_SLOW_S = 4.0, 8.0, 3.0
# Redis/PostgreSQL stay stopped this long (by fault mode).
SERVER_DOWN_S = {
    "postgres-restart": 5.0,
    "redis-restart": 5.0,
    "postgres-stop-60": 60.0,
    "redis-stop-30": 30.0,
}
# postgres-down-at-start: PostgreSQL is started again this long into the round.
DOWN_AT_START_S = 30.0


@dataclass
class StackInfo:
    """What the load test needs to know of the running stack."""

    url: str
    db_url: str
    redis_url: str
    emailjs_port: int | None
    state_dir: Path = STACK_DIR

    @classmethod
    def load(cls, state_dir: Path = STACK_DIR) -> "StackInfo":
        """Read the stack's files; SystemExit when it is not running."""
        pids_file = state_dir / "pids.json"
        if not pids_file.exists():
            raise SystemExit("No running stack (.stack/pids.json): start it with `make stack`.")
        state = json.loads(pids_file.read_text())
        env = dict(
            line.split("=", 1)
            for line in (state_dir / "env").read_text().splitlines()
            if "=" in line
        )
        base = state.get("passed", {}).get("EMAILJS_API_BASE", "")
        parts = urlsplit(base)
        port = parts.port if parts.hostname in ("127.0.0.1", "localhost") else None
        return cls(
            url=f"http://localhost:{state['port']}",
            db_url=env["REFLEX_DB_URL"],
            redis_url=env["REFLEX_REDIS_URL"],
            emailjs_port=port,
            state_dir=state_dir,
        )

    def state(self) -> dict:
        """The stack's ``pids.json`` now."""
        return json.loads((self.state_dir / "pids.json").read_text())

    def pids(self, prefix: str = "backend") -> list[int]:
        """Pids of the stack's processes named ``prefix*`` now (a restart changes them)."""
        with contextlib.suppress(OSError, ValueError):
            state = json.loads((self.state_dir / "pids.json").read_text())
            return [pid for name, pid in state["pids"].items() if name.startswith(prefix)]
        return []


@dataclass
class ConnectionSampler:
    """Peak client connections of Redis and PostgreSQL while a round runs."""

    redis_url: str
    db_url: str
    every_s: float = 0.5
    redis_peak: int = 0
    postgres_peak: int = 0
    errors: list[str] = field(default_factory=list)

    def _redis(self) -> int:
        import redis

        client = redis.Redis.from_url(self.redis_url, socket_timeout=2, socket_connect_timeout=2)
        try:
            return int(client.info("clients")["connected_clients"]) - 1  # not this one
        finally:
            client.close()

    def _postgres(self, engine) -> int:
        import sqlalchemy as sa

        with engine.connect() as conn:
            # Client backends only, without this sampler's own connection.
            query = (
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
            )
            return int(conn.execute(sa.text(query)).scalar_one())

    async def run(self, stop: asyncio.Event) -> None:
        """Sample until ``stop`` is set (a server down during a fault is noted, not fatal)."""
        import sqlalchemy as sa

        engine = sa.create_engine(self.db_url, poolclass=sa.pool.NullPool)
        try:
            while not stop.is_set():
                try:
                    self.redis_peak = max(self.redis_peak, await asyncio.to_thread(self._redis))
                except Exception as error:  # a gauge, never the verdict (Redis may be down)
                    self.errors.append(f"redis: {type(error).__name__}")
                try:
                    n = await asyncio.to_thread(self._postgres, engine)
                    self.postgres_peak = max(self.postgres_peak, n)
                except Exception as error:  # PostgreSQL may be down during a fault
                    self.errors.append(f"postgres: {type(error).__name__}")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.every_s)
        finally:
            engine.dispose()


def stack_command(*args: str) -> str:
    """Run ``scripts/stack.py ARGS`` (kill/start/restart); its output, raising on failure."""
    result = subprocess.run(
        [sys.executable, str(STACK_SCRIPT), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=330,
    )
    if result.returncode:
        raise RuntimeError(f"stack.py {' '.join(args)} failed: {result.stderr[-500:]}")
    return result.stdout


def set_fake_fault(port: int, spec: dict) -> None:
    """``POST /_fault`` to the fake EmailJS."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/_fault",
        data=json.dumps(spec).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        response.read()


class Injector:
    """One fault mode against the stack: ``before`` the round, ``during`` it (at the
    fault's second), ``after`` it; ``log`` gets what happened when."""

    def __init__(self, fault: str, emailjs_port: int, log: list[str]) -> None:
        self.fault, self.emailjs_port, self.log = fault, emailjs_port, log
        self.start = time.monotonic()

    def note(self, what: str) -> None:
        """Log and print one step of the fault."""
        at = time.monotonic() - self.start
        self.log.append(f"{at:5.1f} s  {what}")
        print(f"  [fault {at:5.1f} s] {what}", flush=True)

    async def stack(self, *args: str) -> str:
        """``scripts/stack.py ARGS`` off the event loop."""
        return await asyncio.to_thread(stack_command, *args)

    async def fake(self, spec: dict) -> None:
        """Switch the fake EmailJS's answers."""
        await asyncio.to_thread(set_fake_fault, self.emailjs_port, spec)

    async def before(self) -> None:
        """Whole-round faults start before the first visitor."""
        if self.fault == "postgres-down-at-start":
            await self.stack("stop-postgres")
            self.note("PostgreSQL stopped; restarting both backends while it is down")
            for number in ("1", "2"):
                await self.stack("kill-backend", number)
                await self.stack("start-backend", number)
                self.note(f"backend {number} started and answers /ping without PostgreSQL")
            await asyncio.sleep(3)  # The web server's next connection to each succeeds.
        elif self.fault == "proxy-refuse-websocket":
            await self.stack("websocket", "refuse")
            self.note("the web server answers 403 to every websocket upgrade of /_event")
        self.start = time.monotonic()

    async def after(self) -> None:
        """Undo a whole-round fault."""
        if self.fault == "proxy-refuse-websocket":
            await self.stack("websocket", "allow")
            self.note("the web server passes websocket upgrades again")

    async def during(self, at_s: float) -> None:
        """The fault at ``at_s`` seconds into the round (each ends by itself)."""
        fault = self.fault
        if fault == "postgres-down-at-start":
            await asyncio.sleep(DOWN_AT_START_S)
            await self.stack("start-postgres")
            self.note("PostgreSQL started")
            return
        await asyncio.sleep(at_s)
        if fault in ("kill-backend", "kill-while-sending"):
            await self.kill(fault == "kill-while-sending")
        elif fault in ("emailjs-500", "emailjs-429"):
            status = int(fault.rsplit("-", 1)[1])
            await self.fake({"status": status, "seconds": EMAILJS_FAULT_S})
            self.note(f"fake EmailJS answers {status} for {EMAILJS_FAULT_S:.0f} s")
        elif fault == "emailjs-drop":
            await self.fake({"drop": True, "seconds": DROP_S})
            self.note(f"fake EmailJS takes each e-mail, then drops the answer, for {DROP_S:.0f} s")
        elif fault in SERVER_DOWN_S:
            await self.server_down(fault.split("-", 1)[0], SERVER_DOWN_S[fault])
        elif fault not in ("proxy-refuse-websocket", "monitor-held-lead"):
            raise ValueError(f"unknown fault {fault}")

    async def kill(self, while_sending: bool) -> None:
        """SIGKILL backend 1 (with sends in flight: the fake answers late first)."""
        if while_sending:
            await self.fake({"delay": SLOW_ANSWER_S, "seconds": SLOW_FOR_S})
            self.note(f"fake EmailJS takes each e-mail and answers {SLOW_ANSWER_S:.0f} s late")
            await asyncio.sleep(KILL_AFTER_SLOW_S)
        await self.stack("kill-backend", "1")
        self.note("backend 1 killed (SIGKILL, all its workers)")
        await asyncio.sleep(KILL_DOWN_S)
        self.note("starting backend 1 again")
        await self.stack("start-backend", "1")
        self.note("backend 1 answers /ping again")

    async def server_down(self, server: str, down_s: float) -> None:
        """Stop Redis or PostgreSQL by pid for ``down_s``, then start it on the same port."""
        self.note(f"stopping {server} (by pid) for {down_s:.0f} s")
        await self.stack(f"restart-{server}", "--down-seconds", str(down_s))
        self.note(f"{server} started again on the same port")

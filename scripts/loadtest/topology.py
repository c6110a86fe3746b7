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
    "redis-restart",
    "emailjs-drop",
)
KILL_DOWN_S = 10.0  # a killed backend is started again this long after
EMAILJS_FAULT_S = 60.0  # the fake answers 500/429 this long, then recovers
DROP_S = 15.0  # the fake takes e-mails and drops the answer this long
# kill-while-sending: the fake answers this late, so sends are in flight when the kill comes.
SLOW_ANSWER_S, SLOW_FOR_S, KILL_AFTER_SLOW_S = 4.0, 8.0, 3.0
SERVER_DOWN_S = 5.0  # Redis/PostgreSQL stay stopped this long


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


async def inject(fault: str, at_s: float, emailjs_port: int, log: list[str]) -> None:
    """Apply ``fault`` ``at_s`` seconds into the round; ``log`` gets what happened when."""
    start = time.monotonic()

    def note(what: str) -> None:
        log.append(f"{time.monotonic() - start:5.1f} s  {what}")
        print(f"  [fault {time.monotonic() - start:5.1f} s] {what}", flush=True)

    await asyncio.sleep(at_s)
    if fault == "kill-while-sending":
        await asyncio.to_thread(
            set_fake_fault, emailjs_port, {"delay": SLOW_ANSWER_S, "seconds": SLOW_FOR_S}
        )
        note(f"fake EmailJS takes each e-mail and answers {SLOW_ANSWER_S:.0f} s late")
        await asyncio.sleep(KILL_AFTER_SLOW_S)
    if fault in ("kill-backend", "kill-while-sending"):
        await asyncio.to_thread(stack_command, "kill-backend", "1")
        note("backend 1 killed (SIGKILL, all its workers)")
        await asyncio.sleep(KILL_DOWN_S)
        note("starting backend 1 again")
        await asyncio.to_thread(stack_command, "start-backend", "1")
        note("backend 1 answers /ping again")
    elif fault in ("emailjs-500", "emailjs-429"):
        status = int(fault.rsplit("-", 1)[1])
        await asyncio.to_thread(
            set_fake_fault, emailjs_port, {"status": status, "seconds": EMAILJS_FAULT_S}
        )
        note(f"fake EmailJS answers {status} for {EMAILJS_FAULT_S:.0f} s")
    elif fault == "emailjs-drop":
        await asyncio.to_thread(set_fake_fault, emailjs_port, {"drop": True, "seconds": DROP_S})
        note(f"fake EmailJS takes each e-mail, then drops the answer, for {DROP_S:.0f} s")
    elif fault in ("redis-restart", "postgres-restart"):
        server = fault.split("-", 1)[0]
        note(f"stopping {server} (by pid) for {SERVER_DOWN_S:.0f} s")
        await asyncio.to_thread(
            stack_command, f"restart-{server}", "--down-seconds", str(SERVER_DOWN_S)
        )
        note(f"{server} started again on the same port")
    else:
        raise ValueError(f"unknown fault {fault}")

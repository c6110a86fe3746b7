"""What one idle socket.io websocket costs on granian with no Reflex behind it.

    .venv/bin/python scripts/loadtest/ws_baseline.py --tabs 1000

Starts granian (ASGI, one worker, as Reflex runs it) serving a bare python-socketio
server on ``/_event`` (no state, no events), connects ``--tabs`` websocket clients,
and prints the server's RSS per connection: the part of a Reflex tab's memory that
is the transport alone (``make loadtest --tracemalloc`` shows the Python side of
the rest). Not part of ``make test``.
"""

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import socketio

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scripts.loadtest import heap  # noqa: E402
from scripts.local_servers import free_port  # noqa: E402

sio = socketio.AsyncServer(async_mode="asgi", transports=["websocket"])
app = socketio.ASGIApp(sio, socketio_path="_event")


@sio.on("connect", namespace="/_event")
async def _connect(_sid, _environ, _auth=None) -> bool:
    return True


def rss(pid: int) -> int:
    """RSS of the process and its children, in bytes."""
    root = psutil.Process(pid)
    total = 0
    for proc in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += proc.memory_info().rss
    return total


async def connect_all(url: str, tabs: int) -> list[socketio.AsyncClient]:
    clients = []
    for start in range(0, tabs, 50):
        batch = [socketio.AsyncClient(reconnection=False) for _ in range(min(50, tabs - start))]
        await asyncio.gather(
            *(
                c.connect(
                    url, namespaces=["/_event"], transports=["websocket"], socketio_path="_event"
                )
                for c in batch
            )
        )
        clients += batch
    return clients


async def measure(url: str, pid: int, tabs: int, heap_dir: Path | None) -> None:
    await asyncio.sleep(1)
    if heap_dir:
        await heap.snapshot(heap_dir, "before")
    before = rss(pid)
    clients = await connect_all(url, tabs)
    await asyncio.sleep(3)
    after = rss(pid)
    connected = sum(c.connected for c in clients)
    if heap_dir:
        await heap.snapshot(heap_dir, "connected")
        grown = heap.worker_growth(heap_dir, "before", "connected", connected)
        if grown:
            print(f"  Python's traced heap per connection: {grown['traced_kib_per_tab']:.0f} KiB")
            for name, kib in grown["by_owner_kib_per_tab"][:5]:
                print(f"    {kib:6.1f} KiB  {name}")
    print(f"granian + python-socketio, no Reflex: {connected} idle websockets")
    print(f"  server RSS {before / 1048576:.1f} MiB → {after / 1048576:.1f} MiB")
    print(f"  per connection: {(after - before) / max(connected, 1) / 1024:.0f} KiB")
    await asyncio.gather(*(c.disconnect() for c in clients), return_exceptions=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tabs", type=int, default=1000)
    parser.add_argument("--tracemalloc", action="store_true", help="also Python's heap growth")
    parser.add_argument(
        "--granian", default="", help='extra granian options to compare, e.g. "--http 1"'
    )
    args = parser.parse_args()
    if not 1 <= args.tabs <= 5000:
        parser.error("--tabs must be 1..5000")
    port = free_port()
    env = {"PYTHONPATH": str(ROOT)}
    heap_dir = None
    if args.tracemalloc:
        heap_dir = Path(tempfile.mkdtemp(prefix="ws-baseline-"))
        env["PYTHONPATH"] += os.pathsep + str(ROOT / "scripts" / "loadtest" / "memprobe")
        env["LOADTEST_TRACEMALLOC_DIR"] = str(heap_dir)
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("granian")),
            "--interface",
            "asgi",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            *args.granian.split(),
            "scripts.loadtest.ws_baseline:app",
        ],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.2)
        print(f"granian options: {args.granian or '(defaults, as Reflex runs it)'}")
        asyncio.run(measure(f"http://127.0.0.1:{port}", server.pid, args.tabs, heap_dir))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()

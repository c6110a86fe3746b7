"""Real PostgreSQL and Redis servers on loopback, from Debian's packages, for the stack and tests.

Each server runs in a folder of its own, on a port of our choosing, and is
stopped by its pid. Nothing here touches a system-wide service.
"""

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: `python scripts/local_servers.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.programs import LOADTEST, SERVERS, TESTS, packages, programs

# Debian's packages of every server the production topology uses (docs, skip messages).
APT_PACKAGES = packages(SERVERS)
# PostgreSQL's server programs: Debian keeps them out of PATH (``postgres_bin`` finds them).
_POSTGRES_SERVER_PROGRAMS = frozenset({"initdb", "pg_ctl", "createdb"})

PG_USER = "agency"
PG_DATABASE = "agency"
PG_PASSWORD = "agency-local"  # A throwaway local cluster; never a deployment's.


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def postgres_bin() -> Path | None:
    """The folder of PostgreSQL's server programs (Debian keeps them out of PATH)."""
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists():
            return candidate
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def missing_programs(*stages: str) -> list[str]:
    """The programs of ``stages`` (default: the servers) not installed here."""
    stages = stages or (SERVERS,)
    missing = [
        name
        for name in programs(*stages)
        if name not in _POSTGRES_SERVER_PROGRAMS and not shutil.which(name)
    ]
    if SERVERS in stages and postgres_bin() is None:
        missing.append("postgresql")
    return missing


def can_install() -> bool:
    """Whether Debian's packages can be installed here (root with apt-get)."""
    return os.geteuid() == 0 and shutil.which("apt-get") is not None


def ensure_installed(*stages: str, optional: bool = False) -> None:
    """Install Debian's packages of ``stages`` (default: the servers) when a program of
    theirs is missing and we are root; else say what to do.

    ``optional`` (``make test-unit``): without root, only say which tests will be skipped.
    """
    stages = stages or (SERVERS,)
    missing = missing_programs(*stages)
    if not missing:
        return
    wanted = packages(*stages)
    if optional and not can_install():
        print(
            f"Not installed here: {', '.join(missing)}. The tests that need them are skipped "
            "(TEST_DATABASE_URL / TEST_REDIS_URL can point them at running servers; under "
            f"CI=true they fail). To run them: sudo apt-get install {' '.join(wanted)}",
            flush=True,
        )
        return
    if can_install():
        print(f"Installing Debian's {' '.join(wanted)} ...", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *wanted],
            check=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
            stdout=subprocess.DEVNULL,
        )
        return
    raise SystemExit(
        f"Missing: {', '.join(missing)}. Install them with\n"
        f"  sudo apt-get install {' '.join(wanted)}\nand run the command again."
    )


def wait_for_port(port: int, timeout: float = 30.0) -> None:
    """Wait until something accepts connections on loopback ``port``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"Nothing listens on 127.0.0.1:{port} after {timeout:.0f} s.")


def stop_pid(
    pid: int, sig: int = signal.SIGTERM, timeout: float = 20.0, group: bool = True
) -> None:
    """Stop a process (and its group) by pid; SIGKILL after ``timeout``."""

    def alive() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        with contextlib.suppress(ChildProcessError):
            finished, _ = os.waitpid(pid, os.WNOHANG)
            if finished:
                return False
        return True

    kill = os.killpg if group else os.kill
    with contextlib.suppress(ProcessLookupError, PermissionError):
        kill(pid, sig)
    deadline = time.monotonic() + timeout
    while alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    if alive():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


@dataclass
class Server:
    """A server we started: its address, its pid and its folder."""

    name: str
    port: int
    pid: int
    folder: Path
    url: str


def start_redis(folder: Path, port: int) -> Server:
    """A Redis on 127.0.0.1:``port`` keeping nothing on disk."""
    folder.mkdir(parents=True, exist_ok=True)
    log = (folder / "redis.log").open("ab")
    process = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
            "--maxclients",
            "10000",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    wait_for_port(port)
    return Server("redis", port, process.pid, folder, f"redis://127.0.0.1:{port}")


def _as_postgres_user() -> dict:
    """``subprocess`` arguments that run a PostgreSQL program unprivileged (it refuses root)."""
    if os.geteuid() != 0:
        return {}
    user = pwd.getpwnam("postgres")
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


def start_postgres(folder: Path, port: int, *, durable: bool = True) -> Server:
    """A fresh PostgreSQL cluster on 127.0.0.1:``port`` with a password-protected database.

    ``durable=False`` skips fsync (test clusters that are thrown away anyway).
    """
    bin_dir = postgres_bin()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed (Debian: apt-get install postgresql).")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    data, socket_dir = folder / "data", folder / "run"
    socket_dir.mkdir()
    password_file = folder / "password"
    password_file.write_text(PG_PASSWORD + "\n")
    runas = _as_postgres_user()
    if runas:
        for path in (folder, socket_dir, password_file):
            os.chown(path, runas["user"], runas["group"])
    subprocess.run(
        [
            bin_dir / "initdb",
            "--pgdata",
            data,
            "--username",
            PG_USER,
            "--pwfile",
            password_file,
            "--auth-host",
            "scram-sha-256",
            "--auth-local",
            "trust",
            "--encoding",
            "UTF8",
            "--no-sync",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        **runas,
    )
    pid = start_postgres_cluster(folder, port, durable=durable)
    subprocess.run(
        [bin_dir / "createdb", "-h", str(socket_dir), "-p", str(port), "-U", PG_USER, PG_DATABASE],
        check=True,
        **runas,
    )
    url = f"postgresql+psycopg://{PG_USER}:{PG_PASSWORD}@127.0.0.1:{port}/{PG_DATABASE}"
    return Server("postgres", port, pid, folder, url)


def start_postgres_cluster(folder: Path, port: int, *, durable: bool = True) -> int:
    """Start the cluster initialised in ``folder`` on ``port`` (again); its postmaster's pid."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed (Debian: apt-get install postgresql).")
    data, socket_dir = folder / "data", folder / "run"
    options = f"-p {port} -k {socket_dir} -c listen_addresses=127.0.0.1 -c max_connections=300"
    if not durable:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    subprocess.run(
        [
            bin_dir / "pg_ctl",
            "--pgdata",
            data,
            "--options",
            options,
            "--log",
            folder / "postgres.log",
            "--wait",
            "start",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        **_as_postgres_user(),
    )
    return int((data / "postmaster.pid").read_text().split()[0])


def stop_postgres(server: Server) -> None:
    """Fast shutdown of a cluster started by ``start_postgres`` (by its postmaster's pid)."""
    stop_pid(server.pid, signal.SIGINT, group=False)


if __name__ == "__main__":
    # `make test`: the servers the tests start and the tests' tools, installed when root
    # (else it stops here); `make test-unit` (--optional): installed when root, else the
    # tests needing them skip; `make loadtest` (--loadtest): h2load.
    argv = sys.argv[1:]
    ensure_installed(
        *((LOADTEST,) if "--loadtest" in argv else (SERVERS, TESTS)), optional="--optional" in argv
    )

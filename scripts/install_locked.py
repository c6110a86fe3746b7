"""Install a hash-checked lock file into this virtualenv with uv, pip's equal here and ~5x
faster: a cold install of requirements-dev.txt took 75 s with pip and 13 s with uv (the
same `pip freeze` afterwards), most of CI's setup step.

uv itself comes from requirements-dev.txt, pinned and hash-checked, installed by pip. If it
cannot be had, pip installs the lock file as before: the result is the same, only slower.
Any pip from 23.2 (Debian 12's venv) does: each pin keeps its extras (scripts/lock.py),
which an older pip than 24.1 needs with ``--require-hashes``.

    python scripts/install_locked.py requirements.txt
"""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIP = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]


def uv_pin(lock: Path = ROOT / "requirements-dev.txt") -> str:
    """uv's entry of ``lock``: its ``uv==`` line and the hash lines that continue it."""
    lines = iter(lock.read_text().splitlines())
    for line in lines:
        if line.startswith("uv=="):
            entry = [line]
            while entry[-1].endswith("\\"):
                entry.append(next(lines))
            return "\n".join(entry) + "\n"
    raise SystemExit(f"{lock.name} pins no uv")


def uv() -> Path | None:
    """uv in this virtualenv, installed from its pin when missing; None if pip cannot."""
    here = Path(sys.executable).parent / "uv"
    if here.exists():
        return here
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as pin:
        pin.write(uv_pin())
        pin.flush()
        installed = subprocess.run([*PIP, "--require-hashes", "-r", pin.name])
    return here if installed.returncode == 0 and here.exists() else None


def close_lock_file(venv: Path = Path(sys.prefix)) -> None:
    """uv leaves its ``.lock`` in the virtualenv writable by everyone (0666, whatever the
    umask): on a host the site's user must write nothing of the app's tree
    (tests/test_prepare_host.py), so it becomes its owner's only."""
    lock = venv / ".lock"
    if lock.is_file():
        lock.chmod(lock.stat().st_mode & ~0o022)


def install(lock: str) -> int:
    """Install ``lock`` (hashes required) with uv, else with pip."""
    tool = uv()
    if tool is not None:
        command = [str(tool), "pip", "install", "--quiet", "--native-tls", "--require-hashes"]
        done = subprocess.run([*command, "--python", sys.executable, "-r", lock])
        if done.returncode == 0:
            close_lock_file()
            return 0
        print("uv could not install it; pip tries.", file=sys.stderr)
    return subprocess.run([*PIP, "--require-hashes", "-r", lock]).returncode


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python scripts/install_locked.py <lock file>")
    sys.exit(install(sys.argv[1]))

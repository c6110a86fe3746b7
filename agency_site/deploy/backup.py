"""A consistent copy of the leads database: ``pg_dump`` for PostgreSQL, SQLite's online backup.

Both are safe while the site runs. Restore: ``pg_restore --clean -d <db> FILE.dump``,
or stop the backends and copy the ``.sqlite3`` file over the database file.
"""

import datetime as dt
import os
import sqlite3
import subprocess
from pathlib import Path

import sqlalchemy as sa

# Name of every backup file: leads-<UTC timestamp>.<dump|sqlite3>
PREFIX = "leads-"


def _stamp(now: dt.datetime) -> str:
    return now.strftime("%Y%m%dT%H%M%SZ")


def backup(db_url: str, out_dir: Path, *, now: dt.datetime | None = None) -> Path:
    """Write a backup of the database at ``db_url`` into ``out_dir``; its path."""
    url = sa.make_url(db_url)
    out_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = _stamp(now or dt.datetime.now(dt.UTC))
    backend = url.get_backend_name()
    if backend == "sqlite":
        if not url.database or url.database == ":memory:":
            raise ValueError("An in-memory SQLite database has nothing to back up.")
        target = out_dir / f"{PREFIX}{stamp}.sqlite3"
        source = sqlite3.connect(f"file:{url.database}?mode=ro", uri=True)
        try:
            copy = sqlite3.connect(target)
            with copy:
                source.backup(copy)
            copy.close()
        finally:
            source.close()
    elif backend == "postgresql":
        target = out_dir / f"{PREFIX}{stamp}.dump"
        env = {**os.environ}
        if url.password:
            env["PGPASSWORD"] = url.password  # Not on the command line, where `ps` shows it.
        command = ["pg_dump", "--format=custom", "--no-owner", f"--file={target}"]
        command += [f"--host={url.host or 'localhost'}", f"--port={url.port or 5432}"]
        if url.username:
            command.append(f"--username={url.username}")
        command.append(url.database or "postgres")
        subprocess.run(command, env=env, check=True)
    else:
        raise ValueError(f"No backup recipe for a {backend} database.")
    target.chmod(0o600)  # Personal data: readable by the site's user only.
    return target


def prune(out_dir: Path, keep: int) -> list[Path]:
    """Delete all but the ``keep`` newest backups in ``out_dir``; the deleted paths."""
    backups = sorted(out_dir.glob(f"{PREFIX}*"), reverse=True)
    old = backups[keep:]
    for path in old:
        path.unlink()
    return old

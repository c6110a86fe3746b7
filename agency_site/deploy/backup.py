"""Copies of the leads database: ``pg_dump`` for PostgreSQL, SQLite's online backup.

Both are safe while the site runs. Every backup file is created 0600 (before any byte
is written) in a 0700 folder. ``nightly`` is what the backup timer runs: the backup,
then, **whatever happened to it**, the deletion of every backup older than
``DEPLOY_BACKUP_KEEP`` days (the privacy policy's promise), and an owner alert
(``LEADS_ALERT_WEBHOOK_URL``) when the backup failed.

Restore with ``python -m agency_site.deploy restore FILE`` (``restore`` below, then the
erasure log re-applied: ``leads/erasures.py``), the backends stopped.

**Lead ids are never handed out twice, not even across a restore.** A booking link names
its lead's id (and its booking's key, ``bookings/links.py``). A backup holds the id
counter as it was then (``pg_dump`` the sequence's value, SQLite its ``sqlite_sequence``
row), so a lead made after the backup would see its id given to the next lead after
the restore. ``restore`` therefore reads the live database's counter (the highest id
it ever issued) before overwriting it, and afterwards moves the restored counter to
the larger of that and the highest id restored. When the live database is gone for good,
nothing knows those ids: the booking keys still keep their old links from opening
anyone else's booking.
"""

import asyncio
import datetime as dt
import logging
import os
import shutil
import sqlite3
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

logger = logging.getLogger(__name__)

# Name of every backup file: leads-<UTC timestamp>.<dump|sqlite3>
PREFIX = "leads-"
_STAMP = "%Y%m%dT%H%M%SZ"


def _stamp(now: dt.datetime) -> str:
    return now.strftime(_STAMP)


def _private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 (whatever the umask); fails if it exists."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))


def _pg_command(url: sa.URL, program: str, *args: str) -> tuple[list[str], dict[str, str]]:
    """``program`` (pg_dump, pg_restore) on the database of ``url``, password in the env."""
    env = {**os.environ}
    if url.password:
        env["PGPASSWORD"] = str(url.password)  # Not on the command line, where `ps` shows it.
    command = [program, *args, f"--host={url.host or 'localhost'}", f"--port={url.port or 5432}"]
    if url.username:
        command.append(f"--username={url.username}")
    return command, env


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
        _private_file(target)
        try:
            source = sqlite3.connect(f"file:{url.database}?mode=ro", uri=True)
            try:
                copy = sqlite3.connect(target)
                with copy:
                    source.backup(copy)
                copy.close()
            finally:
                source.close()
        except BaseException:
            target.unlink(missing_ok=True)
            raise
    elif backend == "postgresql":
        target = out_dir / f"{PREFIX}{stamp}.dump"
        _private_file(target)
        command, env = _pg_command(url, "pg_dump", "--format=custom", "--no-owner")
        command += [f"--file={target}", url.database or "postgres"]
        try:
            subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        except BaseException:
            target.unlink(missing_ok=True)
            raise
    else:
        raise ValueError(f"No backup recipe for a {backend} database.")
    target.chmod(0o600)  # Personal data: readable by the site's user only.
    return target


def taken_at(path: Path) -> dt.datetime:
    """When a backup was taken: the stamp in its name, else the file's modification time."""
    stamp = path.name.removeprefix(PREFIX).split(".", 1)[0]
    try:
        return dt.datetime.strptime(stamp, _STAMP).replace(tzinfo=dt.UTC)
    except ValueError:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC)


def prune(out_dir: Path, keep_days: int, *, now: dt.datetime | None = None) -> list[Path]:
    """Delete the backups in ``out_dir`` taken more than ``keep_days`` days ago; the deleted."""
    cutoff = (now or dt.datetime.now(dt.UTC)) - dt.timedelta(days=keep_days)
    old = [path for path in sorted(out_dir.glob(f"{PREFIX}*")) if taken_at(path) < cutoff]
    for path in old:
        path.unlink(missing_ok=True)
    return old


@dataclass(frozen=True)
class NightlyResult:
    """What the night's run did: the new backup (None if it failed), what was deleted, why."""

    path: Path | None
    removed: list[Path]
    error: str = ""


def _why(error: BaseException) -> str:
    if isinstance(error, subprocess.CalledProcessError):
        detail = (error.stderr or "").strip().splitlines()
        return f"{error.cmd[0]} exited {error.returncode}" + (f": {detail[-1]}" if detail else "")
    return f"{type(error).__name__}: {error}"[:300]


def nightly(
    db_url: str,
    out_dir: Path,
    keep_days: int,
    *,
    webhook_url: str = "",
    now: dt.datetime | None = None,
) -> NightlyResult:
    """Back up, then prune by age whatever happened; alert the owner when the backup failed."""
    path, error = None, ""
    try:
        path = backup(db_url, out_dir, now=now)
    except Exception as failure:
        error = _why(failure)
        logger.error("The leads backup into %s FAILED: %s", out_dir, error)
    removed = prune(out_dir, keep_days, now=now) if out_dir.is_dir() else []
    if error:
        from agency_site.content.owner_alerts import ALERTS
        from agency_site.content.template import render
        from agency_site.leads.monitor import post_alert

        alert = post_alert(webhook_url, render(ALERTS.backup_failed, error=error, days=keep_days))
        # In a thread of its own: the caller may already run an event loop in this one.
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, alert).result()
    return NightlyResult(path, removed, error)


def _sqlite_tables(connection: sa.Connection) -> set[str]:
    """Every table, ``sqlite_sequence`` too (SQLAlchemy leaves ``sqlite_*`` out)."""
    query = "SELECT name FROM sqlite_master WHERE type = 'table'"
    return set(connection.exec_driver_sql(query).scalars())


def _sqlite_issued(connection: sa.Connection) -> int:
    tables = _sqlite_tables(connection)
    issued = 0
    if "leads" in tables:
        issued = connection.exec_driver_sql("SELECT coalesce(max(id), 0) FROM leads").scalar()
    if "sqlite_sequence" in tables:
        counter = "SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'leads'"
        issued = max(issued, connection.exec_driver_sql(counter).scalar() or 0)
    return issued


def _pg_sequence(connection: sa.Connection) -> str | None:
    if not sa.inspect(connection).has_table("leads"):
        return None
    return connection.exec_driver_sql("SELECT pg_get_serial_sequence('leads', 'id')").scalar()


def last_lead_id(db_url: str) -> int:
    """The highest lead id the database at ``db_url`` ever issued (0: none, or no database)."""
    url = sa.make_url(db_url)
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").is_file():
        return 0
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            if url.get_backend_name() == "sqlite":
                return _sqlite_issued(connection)
            issued = 0
            if sa.inspect(connection).has_table("leads"):
                query = "SELECT coalesce(max(id), 0) FROM leads"
                issued = connection.exec_driver_sql(query).scalar()
            if sequence := _pg_sequence(connection):
                query = f"SELECT last_value FROM {sequence}"  # A name PostgreSQL gave.
                issued = max(issued, connection.exec_driver_sql(query).scalar())
            return issued
    finally:
        engine.dispose()


def ids_after(db_url: str, issued: int) -> None:
    """Move the leads id counter of ``db_url`` past ``issued`` and every id it holds."""
    url = sa.make_url(db_url)
    engine = sa.create_engine(url)
    try:
        with engine.begin() as connection:
            if url.get_backend_name() == "sqlite":
                if "sqlite_sequence" not in _sqlite_tables(connection):
                    return  # No AUTOINCREMENT yet: the migration rebuilds the table.
                top = _sqlite_issued(connection)
                connection.exec_driver_sql("DELETE FROM sqlite_sequence WHERE name = 'leads'")
                connection.exec_driver_sql(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES ('leads', ?)",
                    (max(top, issued),),
                )
            elif sequence := _pg_sequence(connection):
                connection.execute(
                    sa.text(
                        "SELECT setval(CAST(:sequence AS regclass), greatest(:issued, "
                        "(SELECT coalesce(max(id), 0) FROM leads), "
                        "(SELECT last_value FROM " + sequence + ")))"
                    ),
                    {"sequence": sequence, "issued": issued},
                )
    finally:
        engine.dispose()


def restore(db_url: str, backup_file: Path) -> None:
    """Put the database at ``db_url`` back to ``backup_file`` (stop the backends first).

    SQLite: the backup is copied over the database with SQLite's backup API (the WAL
    included); PostgreSQL: ``pg_restore --clean --if-exists``. Then the id counter is moved
    past every id the database had issued before (see the module's docstring). Re-apply
    the erasure log afterwards (``deploy restore`` does both).
    """
    issued = last_lead_id(db_url)
    _restore(db_url, backup_file)
    ids_after(db_url, issued)


def _restore(db_url: str, backup_file: Path) -> None:
    url = sa.make_url(db_url)
    backend = url.get_backend_name()
    if backend == "sqlite":
        if not url.database or url.database == ":memory:":
            raise ValueError("An in-memory SQLite database cannot be restored.")
        from agency_site.leads.database import private_sqlite_file

        private_sqlite_file(url.database)
        source = sqlite3.connect(f"file:{backup_file}?mode=ro", uri=True)
        try:
            target = sqlite3.connect(url.database)
            with target:
                source.backup(target)
            target.close()
        finally:
            source.close()
    elif backend == "postgresql":
        if shutil.which("pg_restore") is None:
            raise FileNotFoundError("pg_restore is not installed")
        command, env = _pg_command(
            url, "pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction"
        )
        command += [f"--dbname={url.database or 'postgres'}", str(backup_file)]
        subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    else:
        raise ValueError(f"No restore recipe for a {backend} database.")

"""The leads' database engine: bounded waits on PostgreSQL and SQLite, private SQLite files.

Every try to reach the database gives up after ``LEADS_DB_CONNECT_TIMEOUT_SECONDS``
(connecting) and ``LEADS_DB_STATEMENT_TIMEOUT_SECONDS`` (a statement, or SQLite's wait
for the write lock), so a submission can retry, then spool, within its deadline
instead of hanging on a dead server (``intake.py``).

A SQLite database lives in the git-ignored ``data/`` folder (the default
``REFLEX_DB_URL``), created 0700; the database file is created 0600 before SQLite opens
it (SQLite gives its ``-wal`` and ``-shm`` files the database file's permissions), and
an existing one is narrowed to 0600 with its companions.
"""

import math
import os
from pathlib import Path

import sqlalchemy as sa

# SQLite's companion files, which hold the same personal data as the database.
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def private_sqlite_file(database: str) -> None:
    """Create the folder (0700) and file (0600) of a SQLite database, or narrow them to that."""
    if database in ("", ":memory:") or database.startswith("file:"):
        return
    path = Path(database)
    folder = path.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600))
    for file in (path, *(path.with_name(path.name + end) for end in SQLITE_COMPANIONS)):
        try:
            file.chmod(0o600)
        except FileNotFoundError:
            continue


def create_engine(url: str, connect_timeout_s: float, statement_timeout_s: float) -> sa.Engine:
    """An engine on ``url`` whose every connect and statement is bounded in time."""
    parsed = sa.make_url(url)
    backend = parsed.get_backend_name()
    options: dict = {"pool_pre_ping": True}
    if backend == "sqlite":
        private_sqlite_file(parsed.database or "")
        options["connect_args"] = {"check_same_thread": False, "timeout": statement_timeout_s}
    elif backend == "postgresql":
        options["connect_args"] = {
            "connect_timeout": max(2, math.ceil(connect_timeout_s)),  # libpq's least.
            "options": f"-c statement_timeout={int(statement_timeout_s * 1000)}",
        }
        # Waiting for a pooled connection is bounded too (SQLAlchemy's default is 30 s).
        options["pool_timeout"] = connect_timeout_s
    return sa.create_engine(parsed, **options)

"""The leads' database engine: bounded waits on PostgreSQL and SQLite, private SQLite files.

Every try to reach the database gives up after ``LEADS_DB_CONNECT_TIMEOUT_SECONDS``
(connecting) and ``LEADS_DB_STATEMENT_TIMEOUT_SECONDS`` (a statement, or SQLite's wait
for the write lock), so a submission can retry, then spool, within its deadline
instead of hanging on a dead server (``intake.py``).

A SQLite database lives in the git-ignored ``data/`` folder (the default
``REFLEX_DB_URL``), created 0700; the database file is created 0600 before SQLite opens
it (SQLite gives its ``-wal`` and ``-shm`` files the database file's permissions), and
an existing one is narrowed to 0600 with its companions.

What a failed write means (``failure``): the database is down (an outage: retried, then
spooled), it refused the lead's values (``CONTENT``: the visitor is asked to correct
them; the drain sets the line aside), or anything else. The intake's calls run in
threads of their own (``DB_THREADS``), and ``DownMark`` keeps, per process, that the
database was just found down.
"""

import math
import os
import re
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import sqlalchemy as sa

from agency_site.leads.models import Lead
from agency_site.leads.problems import loggable

# SQLite's companion files, which hold the same personal data as the database.
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
# Threads of their own: inserts hanging on a dead database (up to the connect timeout
# each) never queue in front of other work (a process-wide pool, like asyncio's default
# executor).
DB_THREADS = ThreadPoolExecutor(max_workers=16, thread_name_prefix="leads-db")
# After a failed store, later submissions try once before spooling, for this long: while
# the database is down, visitors do not each wait out the whole retry budget.
DOWN_FOR_S = 10.0


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


@dataclass
class DownMark:
    """Until when (``time.monotonic()``) this process takes the database for down: set when
    a store gives up (``DOWN_FOR_S``), cleared when one succeeds or the spool drains."""

    until: float = 0.0

    @property
    def down(self) -> bool:
        return time.monotonic() < self.until

    def mark(self, for_s: float = DOWN_FOR_S) -> None:
        self.until = time.monotonic() + for_s

    def clear(self) -> None:
        self.until = 0.0


class Failure(StrEnum):
    """Why the database did not store a lead."""

    OUTAGE = "outage"  # It could not be reached or did not answer in time: retry, spool.
    CONTENT = "content"  # It refused this lead's values: the visitor must change them.
    OTHER = "other"  # Anything else (a bug, a missing table): spooled, never retried.


# SQLSTATE classes: connection, resources, shutdown, system, rollback (deadlock, serialization).
_OUTAGE_STATES = ("08", "40", "53", "57", "58")
# Data exception (too long, bad encoding), integrity (constraints), program limit (index row).
_CONTENT_STATES = ("22", "23", "54")
# How PostgreSQL quotes the length a value did not fit.
_QUOTED_LENGTH = re.compile(r"character varying\((\d+)\)")


def failure(error: BaseException) -> Failure:
    """Whether ``error`` of an insert is an outage, a refusal of the content, or other."""
    if isinstance(error, sa.exc.DBAPIError):
        state = str(getattr(error.orig, "sqlstate", None) or "")
        if error.connection_invalidated or state[:2] in _OUTAGE_STATES:
            return Failure.OUTAGE
        if state[:2] in _CONTENT_STATES or isinstance(
            error, (sa.exc.DataError, sa.exc.IntegrityError)
        ):
            return Failure.CONTENT
        if isinstance(error, (sa.exc.OperationalError, sa.exc.InterfaceError)):
            return Failure.OUTAGE
        return Failure.OTHER
    if isinstance(error, (TimeoutError, OSError, sa.exc.TimeoutError, sa.exc.DisconnectionError)):
        return Failure.OUTAGE
    return Failure.OTHER


def refused_column(error: BaseException) -> str:
    """The ``leads`` column the database refused, as far as its error tells (or ``?``).

    PostgreSQL names the column of a NOT NULL violation only; a value too long for its
    column is found among the statement's values: longer than the length the error
    quotes (``character varying(320)``), or than its column's in the model.
    """
    column = getattr(getattr(getattr(error, "orig", None), "diag", None), "column_name", None)
    if column:
        return str(column)
    quoted = _QUOTED_LENGTH.search(str(error))
    params = getattr(error, "params", None)
    rows = params if isinstance(params, list | tuple) else [params]
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        for name, value in row.items():
            table_column = Lead.__table__.columns.get(name)
            length = getattr(getattr(table_column, "type", None), "length", None)
            if quoted and length:
                length = min(length, int(quoted.group(1)))
            if isinstance(value, str) and length and len(value) > length:
                return str(name)
    return "?"


def error_line(error: BaseException) -> str:
    """The first line of an error (the driver's own words), bounded, for a log line."""
    error = getattr(error, "orig", None) or error
    return loggable(str(error).splitlines()[0] if str(error) else repr(error))

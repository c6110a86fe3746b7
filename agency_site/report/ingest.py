"""New lines of the access log counted into the daily tables, in one transaction with
the cursor: a run that fails counts nothing and moves nothing; the next one reads again.
The same transaction keeps the tables bounded (``retention.py``): the days it touched
folded to their top rows and "otros" where the keys come from outside, and the rows older
than 25 months deleted."""

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa

from agency_site.report import log_cursor, retention, tables
from agency_site.report.log_lines import ZONE, parse
from agency_site.report.visitors import KnownPages, bot_name, device, utm

CURSOR_NAME = "access_log"


@dataclass
class Counts:
    """One batch's counts, by table and key (a key is a tuple of the table's columns)."""

    by_table: dict[str, Counter] = field(default_factory=dict)
    lines: int = 0

    def add(self, table: sa.Table, key: tuple) -> None:
        self.by_table.setdefault(table.name, Counter())[key] += 1

    def total(self, table: sa.Table) -> int:
        return sum(self.by_table.get(table.name, Counter()).values())


def count(lines: Iterable[str], site: KnownPages) -> Counts:
    """What ``lines`` hold: page views, referrers, campaigns, bots, 404s."""
    counts = Counts()
    for line in lines:
        counts.lines += 1
        hit = parse(line)
        if hit is None:
            continue
        if (bot := bot_name(hit.user_agent)) is not None:
            counts.add(tables.bots, (hit.day, bot))
            continue
        if hit.status == 404 and hit.method == "GET":
            path = hit.path[: tables.PATH_MAX]
            counts.add(tables.not_found, (hit.day, path, site.not_found_referrer(hit)))
            continue
        if (page := site.page(hit)) is None:
            continue
        counts.add(tables.page_views, (hit.day, *page, device(hit.user_agent)))
        if (domain := site.external_referrer(hit)) is not None:
            counts.add(tables.referrers, (hit.day, domain))
        if (campaign := utm(hit.query)) is not None:
            counts.add(tables.campaigns, (hit.day, *campaign))
    return counts


def _cursor(connection: sa.Connection) -> log_cursor.Cursor | None:
    row = connection.execute(
        sa.select(
            tables.log_cursor.c.inode, tables.log_cursor.c.head, tables.log_cursor.c.offset
        ).where(tables.log_cursor.c.name == CURSOR_NAME)
    ).first()
    return log_cursor.Cursor(row.inode, row.head, row.offset) if row else None


def _save_cursor(connection: sa.Connection, cursor: log_cursor.Cursor) -> None:
    table = tables.log_cursor
    values = {"inode": cursor.inode, "head": cursor.head, "offset": cursor.offset}
    done = connection.execute(table.update().where(table.c.name == CURSOR_NAME).values(values))
    if not done.rowcount:
        connection.execute(table.insert().values(name=CURSOR_NAME, **values))


def ingest(engine: sa.Engine, log: Path, site: KnownPages, today: dt.date | None = None) -> Counts:
    """Count the lines of ``log`` not read yet; what was counted. ``today``: the agency's
    day, for the rows' age (``retention.purge``)."""
    with engine.begin() as connection:
        lines, cursor = log_cursor.read(log, _cursor(connection))
        counts = count(lines, site)
        for table in tables.COUNTED:
            added = counts.by_table.get(table.name, Counter())
            if table in retention.FOLDED:
                retention.add_folded(connection, table, added)
                continue
            columns = [column.name for column in table.primary_key.columns]
            for key, amount in added.items():
                tables.increment(connection, table, dict(zip(columns, key, strict=True)), amount)
        retention.purge(connection, today or dt.datetime.now(ZONE).date())
        if cursor is not None:
            _save_cursor(connection, cursor)
    return counts

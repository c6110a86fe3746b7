"""What the funnel's daily tables keep, so that they cannot grow without bound.

- **Top rows a day**: the tables whose keys come from outside (``FOLDED``: the referring
  domains, the campaigns' ``utm_*``, the 404 paths with who links them) keep, per day, the
  ``TOP_PER_DAY`` rows of most hits and **one "otros" row** with the sum of the rest
  (``OTHERS`` in the first key column, "" in the others): a scanner trying ten thousand
  paths in a night adds at most ``TOP_PER_DAY`` + 1 rows that day. Each ingestion folds the
  days it touched (``add_folded``: the day's rows and the new counts, merged, ranked, written
  again in the ingestion's transaction); the day's totals are kept exactly. A day read over
  several runs is ranked on what each run knew: a key folded into "otros" early in the day
  and seen again later starts again from its later hits.
- **25 months** (``KEEP_MONTHS``): rows of every daily table older than that are deleted
  (``purge``): by each ingestion, and once a day by every worker's monitor
  (``mail_plugin.ReportPlugin``'s watcher), so the counts of forms started go too on a host
  without the access log. Two years and a month: a month compares with the same month of
  the year before for as long as the report shows it.

The tables hold counts only (no address, no agent): the privacy policy's statistics
paragraph says what they count; this module says how long they keep it.
"""

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Mapping

import sqlalchemy as sa

from agency_site.leads.rgpd import months_before
from agency_site.report import tables

TOP_PER_DAY = 50
KEEP_MONTHS = 25
OTHERS = "otros"
FOLDED = (tables.referrers, tables.campaigns, tables.not_found)


def _named_keys(table: sa.Table) -> list[sa.Column]:
    """The key columns of ``table`` besides its day, in order."""
    return [column for column in table.primary_key.columns if column.name != "day"]


def others_key(table: sa.Table) -> tuple[str, ...]:
    """The key of ``table``'s "otros" row (its day aside)."""
    return (OTHERS, *([""] * (len(_named_keys(table)) - 1)))


def fold(counts: Mapping[tuple, int], top: int, others: tuple) -> dict[tuple, int]:
    """``counts`` with the ``top`` keys of most hits (ties: by key) and ``others`` holding
    the sum of the rest (and of what ``others`` held already); nothing lost, nothing added."""
    rest = counts.get(others, 0)
    ranked = sorted(
        ((key, n) for key, n in counts.items() if key != others), key=lambda kv: (-kv[1], kv[0])
    )
    kept = dict(ranked[:top])
    rest += sum(n for _, n in ranked[top:])
    if rest:
        kept[others] = rest
    return kept


def add_folded(
    connection: sa.Connection, table: sa.Table, added: Mapping[tuple, int], top: int = TOP_PER_DAY
) -> None:
    """Add ``added`` (keys ``(day, *rest)`` as ``ingest.Counts`` holds them) to ``table``,
    each day it touches folded to its ``top`` rows and "otros"."""
    keys = _named_keys(table)
    count = tables.count_column(table)
    by_day: dict[dt.date, Counter] = defaultdict(Counter)
    for (day, *rest), n in added.items():
        by_day[day][tuple(rest)] += n
    for day, new in sorted(by_day.items()):
        rows = connection.execute(sa.select(*keys, count).where(table.c.day == day))
        merged = Counter({tuple(row[:-1]): int(row[-1]) for row in rows}) + new
        connection.execute(sa.delete(table).where(table.c.day == day))
        folded = fold(merged, top, others_key(table))
        connection.execute(
            sa.insert(table),
            [
                {"day": day, **dict(zip((k.name for k in keys), key, strict=True)), count.name: n}
                for key, n in folded.items()
            ],
        )


def cutoff(today: dt.date, months: int = KEEP_MONTHS) -> dt.date:
    """The first day kept on ``today``: the same day ``months`` months earlier (the
    month's last day at most)."""
    moment = dt.datetime.combine(today, dt.time())
    return months_before(moment, months).date()


def purge(connection: sa.Connection, today: dt.date) -> int:
    """Delete the rows of every daily table older than ``KEEP_MONTHS`` months; how many."""
    first = cutoff(today)
    return sum(
        connection.execute(sa.delete(table).where(table.c.day < first)).rowcount
        for table in tables.COUNTED
    )


def purge_old(engine: sa.Engine, today: dt.date) -> int:
    """``purge`` in a transaction of its own (the monitor's daily round)."""
    with engine.begin() as connection:
        return purge(connection, today)

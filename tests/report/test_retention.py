"""The funnel's tables are bounded (issue 43, item 9): per day the top rows and one "otros"
row where the keys come from outside (404 paths, referrers, campaigns), and no row older
than 25 months, whichever table. ``db_url``: SQLite and PostgreSQL."""

import datetime as dt
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from agency_site.report import retention, tables
from agency_site.report.figures import month_figures
from agency_site.report.ingest import ingest
from agency_site.report.mail_plugin import ReportPlugin
from agency_site.report.retention import OTHERS, TOP_PER_DAY, fold
from agency_site.report.text import report_text
from tests.lead_store import new_engine
from tests.report.test_report import NOON, SITE, line
from tests.run_async import run

DAY = NOON.date()


def rows_of(engine: sa.Engine, table: sa.Table) -> list[sa.Row]:
    with engine.connect() as connection:
        return list(connection.execute(sa.select(table)))


def test_a_scanner_s_ten_thousand_404s_are_fifty_rows_and_otros(
    db_url: str, tmp_path: Path
) -> None:
    """A night of a scanner (10,000 paths, each once, 300 referring domains) and a path
    linked often: 51 rows a table that day, the same hits in all; the report names the
    linked path and shows "otros" among the referrers, not among the 404s. Before: 10,000
    rows of 404s and 300 of referrers, that day and every day like it, for ever."""
    engine = new_engine(db_url)
    log = tmp_path / "access.log"
    scanner = [line(f"/wp-{i}.php", status=404) for i in range(10_000)]
    linked = [line("/servicios-viejos", status=404, referer="https://blog.example/x")] * 40
    visits = [line("/", referer=f"https://site{i}.example/") for i in range(300)]
    visits += [line("/about", referer="https://news.example/")] * 30
    log.write_text("".join(scanner + linked + visits))
    counts = ingest(engine, log, SITE, today=DAY)
    assert counts.total(tables.not_found) == 10_040
    not_found = rows_of(engine, tables.not_found)
    assert len(not_found) == TOP_PER_DAY + 1
    assert sum(row.hits for row in not_found) == 10_040
    assert (DAY, "/servicios-viejos", "blog.example", 40) in not_found
    referrers = rows_of(engine, tables.referrers)
    assert len(referrers) == TOP_PER_DAY + 1 and sum(row.views for row in referrers) == 330
    assert (DAY, OTHERS, 330 - 30 - (TOP_PER_DAY - 1)) in referrers
    figures = month_figures(engine, DAY)
    assert figures.not_found[0] == ("/servicios-viejos", "blog.example", 40)
    assert all(path != OTHERS for path, _, _ in figures.not_found)
    assert figures.referrers[0] == ("news.example", 30)
    assert figures.referrers[-1] == (OTHERS, 330 - 30 - (TOP_PER_DAY - 1))
    assert f"{OTHERS}: {330 - 30 - (TOP_PER_DAY - 1)}" in report_text(figures)
    engine.dispose()


def test_a_day_read_over_several_runs_stays_bounded_and_keeps_its_hits(
    db_url: str, tmp_path: Path
) -> None:
    engine = new_engine(db_url)
    log = tmp_path / "access.log"
    log.write_text("")
    for run_number in range(3):
        with log.open("a") as file:
            file.write("".join(line(f"/r{run_number}-{i}", status=404) for i in range(80)))
        ingest(engine, log, SITE, today=DAY)
    not_found = rows_of(engine, tables.not_found)
    assert len(not_found) == TOP_PER_DAY + 1 and sum(row.hits for row in not_found) == 240
    engine.dispose()


keys = st.text(alphabet="abc/", min_size=1, max_size=4).map(lambda text: (text, ""))


@given(st.dictionaries(keys, st.integers(min_value=1, max_value=50)), st.integers(0, 8))
def test_folding_keeps_the_top_keys_and_every_hit(counts: dict, top: int) -> None:
    """For any day's counts: at most ``top`` keys and "otros"; the same total; no key
    kept has fewer hits than one folded; "otros" holds exactly the rest."""
    others = (OTHERS, "")
    folded = fold(counts, top, others)
    assert sum(folded.values()) == sum(counts.values())
    kept = {key: n for key, n in folded.items() if key != others}
    assert len(kept) <= top and all(counts[key] == n for key, n in kept.items())
    gone = [n for key, n in counts.items() if key not in kept and key != others]
    assert not gone or min(kept.values(), default=0) >= max(gone) or not kept
    assert folded.get(others, 0) == sum(gone) + counts.get(others, 0)


@settings(max_examples=30, deadline=None)
@given(runs=st.lists(st.lists(st.integers(0, 120), max_size=30), min_size=1, max_size=4))
def test_any_runs_keep_each_day_to_its_bound_and_its_hits(
    runs: list[list[int]], tmp_path_factory
) -> None:
    """However the 404s of a day fall across runs (the same paths again or new ones):
    at most ``TOP_PER_DAY`` + 1 rows, and every hit of the log counted."""
    folder = tmp_path_factory.mktemp("runs")
    engine = sa.create_engine(f"sqlite:///{folder / 'report.db'}")
    tables.metadata.create_all(engine)
    log = folder / "access.log"
    log.write_text("")
    for paths in runs:
        with log.open("a") as file:
            file.write("".join(line(f"/p{i}", status=404) for i in paths))
        ingest(engine, log, SITE, today=DAY)
    not_found = rows_of(engine, tables.not_found)
    assert len(not_found) <= TOP_PER_DAY + 1
    assert sum(row.hits for row in not_found) == sum(len(paths) for paths in runs)
    if len({i for paths in runs for i in paths}) <= TOP_PER_DAY:  # Nothing to fold: exact.
        assert Counter({row.path: row.hits for row in not_found}) == Counter(
            f"/p{i}" for paths in runs for i in paths
        )
    engine.dispose()


def _one_row_a_table(engine: sa.Engine, day: dt.date) -> None:
    with engine.begin() as connection:
        for table in tables.COUNTED:
            key = {column.name: "x" for column in table.primary_key.columns}
            tables.increment(connection, table, {**key, "day": day})


def test_no_row_older_than_25_months_survives_an_ingestion_or_a_day_of_the_monitor(
    db_url: str, tmp_path: Path
) -> None:
    engine = new_engine(db_url)
    first_kept = dt.date(2024, 10, 10)  # 25 months before 2026-11-10.
    assert retention.cutoff(DAY) == first_kept
    for day in (first_kept - dt.timedelta(days=1), first_kept):
        _one_row_a_table(engine, day)
    log = tmp_path / "access.log"
    log.write_text("")
    ingest(engine, log, SITE, today=DAY)
    for table in tables.COUNTED:
        assert [row.day for row in rows_of(engine, table)] == [first_kept], table.name

    # The monitor's round, once a day per worker, whatever REPORT_MAIL says.
    _one_row_a_table(engine, first_kept - dt.timedelta(days=3))
    plugin = ReportPlugin(hour=None)
    [purge] = plugin.watchers(SimpleNamespace(store=SimpleNamespace(engine=engine)))  # type: ignore[arg-type]
    assert run(purge.func(*purge.args, now=NOON)) == len(tables.COUNTED)  # type: ignore[attr-defined]
    _one_row_a_table(engine, first_kept - dt.timedelta(days=3))
    assert run(purge.func(*purge.args, now=NOON)) == 0  # type: ignore[attr-defined]
    # The next day: that row, and the day that was the first kept.
    tomorrow = NOON + dt.timedelta(days=1)
    assert run(purge.func(*purge.args, now=tomorrow)) == 2 * len(tables.COUNTED)  # type: ignore[attr-defined]
    engine.dispose()


def test_the_last_day_of_a_month_keeps_the_month_s_last_day() -> None:
    assert retention.cutoff(dt.date(2027, 3, 31)) == dt.date(2025, 2, 28)

"""Migrations at start-up: every worker runs them, a lock makes them take turns."""

import threading

import sqlalchemy as sa

from agency_site.leads import migrations
from tests.lead_store import LEASE, add_lead_id, new_engine


def _fresh_url(request, tmp_path, kind: str) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'fresh.db'}"
    return request.getfixturevalue("postgres_url")


def _head(url: str) -> str:
    engine = new_engine(url)
    with engine.connect() as connection:
        version = connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
        assert "leads" in sa.inspect(connection).get_table_names()
    engine.dispose()
    return version


def _migrate_at_once(url: str, workers: int) -> list[BaseException]:
    """Run ``workers`` migrations of ``url`` at the same moment; the errors they raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(workers)

    def worker() -> None:
        engine = new_engine(url)
        try:
            start.wait()
            migrations.upgrade(engine)
        except BaseException as error:  # reported by the caller
            errors.append(error)
        finally:
            engine.dispose()

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return errors


def test_workers_migrating_at_once_end_at_the_same_head(request, tmp_path) -> None:
    for kind in ("sqlite", "postgresql"):
        url = _fresh_url(request, tmp_path, kind)
        assert not _migrate_at_once(url, 4), kind
        assert _head(url)


def test_on_postgres_a_migration_waits_for_the_lock_held_by_another_process(
    postgres_url: str,
) -> None:
    holder = new_engine(postgres_url)
    with holder.connect() as connection:
        connection.execute(
            sa.text("SELECT pg_advisory_lock(:key)"), {"key": migrations._PG_LOCK_KEY}
        )
        engine = new_engine(postgres_url)
        worker = threading.Thread(target=migrations.upgrade, args=(engine,))
        worker.start()
        worker.join(timeout=1.5)
        assert worker.is_alive(), "the migration did not wait for the lock"
        connection.execute(
            sa.text("SELECT pg_advisory_unlock(:key)"), {"key": migrations._PG_LOCK_KEY}
        )
        connection.commit()
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert _head(postgres_url)
    engine.dispose()
    holder.dispose()


def test_a_sqlite_database_is_left_in_write_ahead_log_mode(tmp_path) -> None:
    """One synced append per commit instead of journal + database; set once, kept in the file."""
    url = f"sqlite:///{tmp_path / 'leads.db'}"
    migrations.upgrade(new_engine(url))
    engine = new_engine(url)
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        # A committed lead must survive a power cut: SQLite's default FULL sync stays.
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2
    engine.dispose()


def test_link_keys_and_never_reused_ids_keep_the_stored_leads(tmp_path) -> None:
    """8fbff7d91664 on a SQLite file with leads and a booking: all kept, the booking without
    a key (its mailed links carry none), and from then on an erased newest id is not reused."""
    from alembic.config import Config

    from agency_site.bookings import slots
    from agency_site.forms.kinds import LeadKind
    from agency_site.leads.store import LeadStore
    from alembic import command

    url = f"sqlite:///{tmp_path / 'old.db'}"
    config = Config(str(migrations.ALEMBIC_INI))
    config.set_main_option("script_location", str(migrations.ALEMBIC_DIR))
    config.set_main_option("sqlalchemy.url", url)
    command.upgrade(config, "a9c4e1f7d2b3")
    engine = new_engine(url)
    with engine.begin() as connection:
        for lead_id in (1, 2):
            connection.exec_driver_sql(
                "INSERT INTO leads (id, kind, fields, created_at, status, attempts) "
                f"VALUES ({lead_id}, 'booking', '{{}}', '2026-11-20 10:00:00', 'sent', 1)"
            )
        connection.exec_driver_sql(
            "INSERT INTO bookings (lead_id, date, time, state, active_slot, created_at) "
            "VALUES (2, '2026-12-14', '10:00', 'pending', '2026-12-14T10:00', "
            "'2026-11-20 10:00:00')"
        )
    migrations.upgrade(engine)
    store = LeadStore(engine)
    assert [lead.id for lead in store.all()] == [1, 2]
    assert slots.get(engine, 2).link_key is None and slots.get(engine, 2).active_slot
    fields = {"email": "nuevo@example.com"}
    newest = add_lead_id(store, LeadKind.HERO, fields, claim_token=None, lease=LEASE)
    store.erase_email("nuevo@example.com")
    assert add_lead_id(store, LeadKind.HERO, fields, claim_token=None, lease=LEASE) == newest + 1
    command.downgrade(config, "a9c4e1f7d2b3")
    engine.dispose()

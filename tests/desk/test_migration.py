"""The desk's migration (e7c3a1f9b250) matches its SQLModel models on both databases, and
goes down and up again, leaving the leads as they were."""

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel

from agency_site.desk.models import LEADS_BY_ARRIVAL, TABLES
from agency_site.leads import migrations
from alembic import command
from tests.lead_store import new_engine

DESK_TABLES = {model.__tablename__ for model in TABLES}


def _about_the_desk(diff) -> bool:
    """Whether one of alembic's differences concerns the desk's tables or index."""
    for item in diff if isinstance(diff, list) else [diff]:
        for part in item:
            table = getattr(part, "table", None)
            name = getattr(part, "name", None)
            if name in DESK_TABLES or name == LEADS_BY_ARRIVAL.name:
                return True
            if table is not None and getattr(table, "name", None) in DESK_TABLES:
                return True
            if isinstance(part, str) and part in DESK_TABLES:
                return True
    return False


def test_the_migration_matches_the_models(db_url: str) -> None:
    engine = new_engine(db_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diffs = compare_metadata(context, SQLModel.metadata)
    engine.dispose()
    assert [diff for diff in diffs if _about_the_desk(diff)] == []


def test_the_migration_goes_down_and_up_again(db_url: str) -> None:
    config = Config(str(migrations.ALEMBIC_INI))
    config.set_main_option("script_location", str(migrations.ALEMBIC_DIR))
    config.set_main_option("sqlalchemy.url", db_url.replace("%", "%%"))
    command.downgrade(config, "b8d2f4a6c913")
    engine = new_engine(db_url)
    names = set(sa.inspect(engine).get_table_names())
    assert not names & DESK_TABLES and "leads" in names
    engine.dispose()
    migrations.upgrade(new_engine(db_url))
    engine = new_engine(db_url)
    assert set(sa.inspect(engine).get_table_names()) >= DESK_TABLES
    indexes = {index["name"] for index in sa.inspect(engine).get_indexes("leads")}
    assert LEADS_BY_ARRIVAL.name in indexes
    engine.dispose()

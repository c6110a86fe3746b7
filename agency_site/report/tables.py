"""The report's tables: daily counts only, no address, no user agent, no lead id.

Each table's key is a day and what is counted; ``increment`` adds to a count with one
UPSERT, so two runs (or the backends' token counter) never lose an increment.
"""

import datetime as dt
from collections.abc import Mapping

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

metadata = sa.MetaData()

# Bounded text: what a hit names is cut to these lengths before it is counted.
PATH_MAX = 200
NAME_MAX = 100

page_views = sa.Table(
    "report_page_views",
    metadata,
    sa.Column("day", sa.Date, primary_key=True),
    sa.Column("page", sa.String(PATH_MAX), primary_key=True),  # The route's Spanish path.
    sa.Column("language", sa.String(8), primary_key=True),
    sa.Column("device", sa.String(10), primary_key=True),  # mobile, tablet, desktop
    sa.Column("views", sa.Integer, nullable=False),
)
referrers = sa.Table(
    "report_referrers",
    metadata,
    sa.Column("day", sa.Date, primary_key=True),
    sa.Column("domain", sa.String(NAME_MAX), primary_key=True),
    sa.Column("views", sa.Integer, nullable=False),
)
campaigns = sa.Table(
    "report_campaigns",
    metadata,
    sa.Column("day", sa.Date, primary_key=True),
    sa.Column("utm_source", sa.String(NAME_MAX), primary_key=True),
    sa.Column("utm_medium", sa.String(NAME_MAX), primary_key=True),
    sa.Column("utm_campaign", sa.String(NAME_MAX), primary_key=True),
    sa.Column("views", sa.Integer, nullable=False),
)
bots = sa.Table(
    "report_bots",
    metadata,
    sa.Column("day", sa.Date, primary_key=True),
    sa.Column("bot", sa.String(40), primary_key=True),
    sa.Column("hits", sa.Integer, nullable=False),
)
not_found = sa.Table(
    "report_not_found",
    metadata,
    sa.Column("day", sa.Date, primary_key=True),
    sa.Column("path", sa.String(PATH_MAX), primary_key=True),
    # An external referrer's domain, or the site's own page that links to the path.
    sa.Column("referrer", sa.String(PATH_MAX), primary_key=True),
    sa.Column("hits", sa.Integer, nullable=False),
)
forms_started = sa.Table(
    "report_forms_started",
    metadata,
    sa.Column("day", sa.Date, primary_key=True),
    sa.Column("form", sa.String(20), primary_key=True),  # A LeadKind, or "" when not said.
    sa.Column("started", sa.Integer, nullable=False),
)
log_cursor = sa.Table(
    "report_log_cursor",
    metadata,
    sa.Column("name", sa.String(40), primary_key=True),
    sa.Column("inode", sa.BigInteger, nullable=False),
    sa.Column("head", sa.String(40), nullable=False),  # The first line's timestamp.
    sa.Column("offset", sa.BigInteger, nullable=False),
)
COUNTED = (page_views, referrers, campaigns, bots, not_found, forms_started)


def count_column(table: sa.Table) -> sa.Column:
    """The table's one counted column (``views``, ``hits``, ``started``)."""
    [column] = [column for column in table.columns if not column.primary_key]
    return column


def increment(
    connection: sa.Connection, table: sa.Table, key: Mapping[str, object], amount: int = 1
) -> None:
    """Add ``amount`` to the count of ``key`` in ``table`` (a new row if none): one UPSERT."""
    count = count_column(table)
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    insert = dialect.insert(table).values({**key, count.name: amount})
    connection.execute(
        insert.on_conflict_do_update(
            index_elements=[column.name for column in table.primary_key.columns],
            set_={count.name: count + insert.excluded[count.name]},
        )
    )


def days(month: dt.date) -> tuple[dt.date, dt.date]:
    """The first day of ``month`` and the first of the next one."""
    start = month.replace(day=1)
    return start, (start + dt.timedelta(days=32)).replace(day=1)

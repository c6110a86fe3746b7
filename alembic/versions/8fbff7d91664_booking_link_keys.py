"""Booking links that cannot open another booking, and lead ids never handed out twice.

- ``bookings.link_key``: a random key per booking, carried inside its signed links and
  compared by the link's page. The bookings stored before get none (NULL): the links
  already mailed for them carry none either, and go on working until they expire; a
  booking made from now on is opened only by links with its own key.
- ``leads`` on SQLite is rebuilt with AUTOINCREMENT, so the id of an erased lead (the
  newest one) is never given to the next lead. Ids erased before this migration beyond
  the highest one left are not known, and may be given once more. PostgreSQL's sequence
  never hands an id out twice: nothing to do there.

Revision ID: 8fbff7d91664
Revises: 7671f39e8356
Create Date: 2026-11-25 15:30:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "8fbff7d91664"
down_revision: str | Sequence[str] | None = "7671f39e8356"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _sqlite() -> bool:
    return op.get_bind().dialect.name == "sqlite"


def upgrade() -> None:
    """Add ``bookings.link_key``; rebuild SQLite's ``leads`` with AUTOINCREMENT."""
    with op.batch_alter_table("bookings") as batch:
        batch.add_column(
            sa.Column("link_key", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True)
        )
    if _sqlite():
        with op.batch_alter_table(
            "leads", recreate="always", table_kwargs={"sqlite_autoincrement": True}
        ):
            pass


def downgrade() -> None:
    """Drop ``bookings.link_key``; SQLite's ``leads`` back to reusing ids."""
    if _sqlite():
        with op.batch_alter_table(
            "leads", recreate="always", table_kwargs={"sqlite_autoincrement": False}
        ):
            pass
    with op.batch_alter_table("bookings") as batch:
        batch.drop_column("link_key")

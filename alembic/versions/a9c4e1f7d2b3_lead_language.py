"""``leads.language``: the language of the page a lead's form was sent from (``es``,
``ca``); every lead stored before is Spanish (the site had no other language).

Revision ID: a9c4e1f7d2b3
Revises: f1a8d3c5b720
Create Date: 2026-11-24 10:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "a9c4e1f7d2b3"
down_revision: str | Sequence[str] | None = "f1a8d3c5b720"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``leads.language``, ``es`` for every existing lead."""
    with op.batch_alter_table("leads") as batch:
        batch.add_column(
            sa.Column(
                "language",
                sqlmodel.sql.sqltypes.AutoString(length=8),
                server_default="es",
                nullable=False,
            )
        )


def downgrade() -> None:
    """Drop ``leads.language``."""
    with op.batch_alter_table("leads") as batch:
        batch.drop_column("language")

"""No quarantined lead purged unseen (issue 44): ``leads.spam_listed_at``, when the owner
was first shown a lead taken for spam (the daily spam digest, the desk's spam page,
``leads spam``); the purge deletes spam ``LEADS_SPAM_KEEP_DAYS`` after it, never before.
The ``lead_monitor`` rows of the spam digest (``spam_digest``: one worker a day) and of
the alert for spam not shown (``spam_unlisted_alert``). Spam stored before was never
shown: the first digest lists it.

Revision ID: e7c3a1f5d924
Revises: b8d2f4a6c913
Create Date: 2026-11-27 10:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "e7c3a1f5d924"
down_revision: str | Sequence[str] | None = "b8d2f4a6c913"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ROWS = ("spam_digest", "spam_unlisted_alert")


def upgrade() -> None:
    """Add the column and the two rows."""
    with op.batch_alter_table("leads") as batch:
        batch.add_column(
            sa.Column("spam_listed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
    monitor = sa.table("lead_monitor", sa.column("name", sa.String), sa.column("state", sa.String))
    op.bulk_insert(
        monitor, [{"name": "spam_digest", "state": ""}, {"name": "spam_unlisted_alert", "state": "ok"}]
    )


def downgrade() -> None:
    """Drop them."""
    op.execute(f"DELETE FROM lead_monitor WHERE name IN {ROWS!r}")
    with op.batch_alter_table("leads") as batch:
        batch.drop_column("spam_listed_at")

"""The visitor's reminders before a confirmed meeting: ``bookings.reminder_sequence`` and
``second_reminder_sequence``, the booking ``sequence`` each reminder was claimed for
(-1: none yet), so a meeting moved after its reminder gets one for its new time.

Every booking stored before starts with no reminder claimed: a confirmed one still ahead
gets its reminder when due (one whose time has passed by more than its window is skipped).

Revision ID: 3c7e5a9b1d42
Revises: 0e4fa46310b1
Create Date: 2026-11-25 23:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "3c7e5a9b1d42"
down_revision: str | Sequence[str] | None = "0e4fa46310b1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = ("reminder_sequence", "second_reminder_sequence")


def upgrade() -> None:
    """Add the columns."""
    with op.batch_alter_table("bookings") as batch:
        for name in _COLUMNS:
            batch.add_column(sa.Column(name, sa.Integer(), server_default="-1", nullable=False))


def downgrade() -> None:
    """Drop them."""
    with op.batch_alter_table("bookings") as batch:
        for name in reversed(_COLUMNS):
            batch.drop_column(name)

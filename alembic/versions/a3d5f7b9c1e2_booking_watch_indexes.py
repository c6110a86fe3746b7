"""Two indexes on ``bookings`` for what the bookings' watchers read while bookings are made:
``(state, created_at)``, the pending bookings unanswered for a working day (every backend
worker's monitor, each poll: ``slots.unanswered``), those to expire (``expire_pending``) and
the expired ones whose visitor is not told yet (``expired_untold``); ``moved_at``, the
moves still to tell (``moves_untold``). Each of them read every booking of the year kept
(docs/loadtest.md, "A year of leads").

Revision ID: a3d5f7b9c1e2
Revises: c5e8a2d4f716
Create Date: 2026-11-28 21:30:00.000000

"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "a3d5f7b9c1e2"
down_revision: str | Sequence[str] | None = "c5e8a2d4f716"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the indexes."""
    op.create_index("ix_bookings_state_created_at", "bookings", ["state", "created_at"])
    op.create_index("ix_bookings_moved_at", "bookings", ["moved_at"])


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_bookings_moved_at", table_name="bookings")
    op.drop_index("ix_bookings_state_created_at", table_name="bookings")

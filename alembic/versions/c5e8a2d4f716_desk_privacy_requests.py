"""The desk's privacy requests (issue 44, ``agency_site/desk/privacy_requests.py``): who asked
(the address while the request is open, its digest for good), which right, when it came,
what was exported or erased, when and how it was closed.

Revision ID: c5e8a2d4f716
Revises: f3b9d2c7e481
Create Date: 2026-11-29 10:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "c5e8a2d4f716"
down_revision: str | Sequence[str] | None = "f3b9d2c7e481"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out (not imported from the site): a migration stays as it was when made.
_DIGEST = 64
_EMAIL = 3 * 254


def upgrade() -> None:
    op.create_table(
        "desk_privacy_requests",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("email", AutoString(length=_EMAIL), nullable=True),
        sa.Column("email_digest", AutoString(length=_DIGEST), nullable=False),
        sa.Column("right", AutoString(length=20), nullable=False),
        sa.Column("received_on", sa.Date, nullable=False),
        sa.Column("recorded_at", UTCDateTime(), nullable=False),
        sa.Column("exported_at", UTCDateTime(), nullable=True),
        sa.Column("erased_at", UTCDateTime(), nullable=True),
        sa.Column("erased_leads", sa.Integer, nullable=True),
        sa.Column("by_hand", sa.JSON, nullable=True),
        sa.Column("closed_on", sa.Date, nullable=True),
        sa.Column("outcome", AutoString(length=20), nullable=True),
    )
    op.create_index(
        "ix_desk_privacy_requests_closed_on", "desk_privacy_requests", ["closed_on"]
    )


def downgrade() -> None:
    op.drop_index("ix_desk_privacy_requests_closed_on", table_name="desk_privacy_requests")
    op.drop_table("desk_privacy_requests")

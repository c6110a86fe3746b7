"""``leads.email_norm`` as wide as the case folding of any address validation accepts.

An address is at most 254 characters, but case folding turns one character into up to
three (``ß`` -> ``ss``, ``ΐ`` -> three): a valid 130-character address folds to 378, over
the old 320, and PostgreSQL refused the whole lead. Now ``EMAIL_KEY_MAX`` (762).
Widening a ``varchar`` is a catalogue change on PostgreSQL (no table rewrite); SQLite
does not enforce a ``varchar``'s length, so its table is left as it is.

Revision ID: 0098d67eca10
Revises: a9c4e1f7d2b3
Create Date: 2026-11-25 15:30:00.000000

"""

from collections.abc import Sequence

import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0098d67eca10"
down_revision: str | Sequence[str] | None = "a9c4e1f7d2b3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The widths before and after (``models.EMAIL_KEY_MAX``, as it was when written).
_OLD, _NEW = 320, 762


def _width(old: int, new: int) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.alter_column(
        "leads",
        "email_norm",
        type_=sqlmodel.sql.sqltypes.AutoString(length=new),
        existing_type=sqlmodel.sql.sqltypes.AutoString(length=old),
        existing_nullable=True,
    )


def upgrade() -> None:
    """Widen ``leads.email_norm`` to 762 characters."""
    _width(_OLD, _NEW)


def downgrade() -> None:
    """Back to 320 characters (fails if a longer one is stored: such leads would be lost)."""
    _width(_NEW, _OLD)

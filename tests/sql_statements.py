"""What an engine sends to its database while a test runs (``statements``): to show a
request that must not touch the database does not."""

import contextlib
from collections.abc import Iterator

import sqlalchemy as sa


@contextlib.contextmanager
def statements(engine: sa.Engine) -> Iterator[list[str]]:
    """Every SQL statement ``engine`` sends meanwhile, in order."""
    sent: list[str] = []

    def record(_conn, _cursor, statement, *_args) -> None:
        sent.append(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)

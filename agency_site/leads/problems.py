"""An unexpected error, or a provider's answer, told in one bounded, printable line: as the
log says it and the leads table keeps it (``last_error``)."""

# Longest description of an unexpected error, in the log and the lead's ``last_error``.
PROBLEM_MAX = 300


def one_line(text: str, limit: int = 1000) -> str:
    """``text`` cut to ``limit`` and made one printable line (a ``?`` for each other
    character), as ``leads list`` shows it and any database stores it: PostgreSQL
    refuses a NUL, nothing encodes a lone surrogate."""
    return "".join(c if c.isprintable() else "?" for c in text[:limit])


def problem(error: BaseException) -> str:
    """An unexpected error in one bounded line: its type and message (which may quote a
    lead's text: not a traceback, not the request's body)."""
    return one_line(f"{type(error).__name__}: {error}", PROBLEM_MAX)

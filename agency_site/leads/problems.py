"""An unexpected error, a provider's answer or a client's value, told in one bounded,
printable line: as the log says it and the leads table keeps it (``last_error``)."""

# Longest description of an unexpected error, in the log and the lead's ``last_error``.
PROBLEM_MAX = 300
# Longest client-supplied text written into one log line.
LOG_VALUE_MAX = 64


def one_line(text: str, limit: int = 1000) -> str:
    """``text`` cut to ``limit`` and made one printable line (a ``?`` for each other
    character), as ``leads list`` shows it and any database stores it: PostgreSQL
    refuses a NUL, nothing encodes a lone surrogate."""
    return "".join(c if c.isprintable() else "?" for c in text[:limit])


def problem(error: BaseException) -> str:
    """An unexpected error in one bounded line: its type and message (which may quote a
    lead's text: not a traceback, not the request's body)."""
    return one_line(f"{type(error).__name__}: {error}", PROBLEM_MAX)


def loggable(value: object) -> str:
    """A client-supplied value cut short and stripped of control characters, for a log line."""
    text = value if isinstance(value, str) else type(value).__name__
    return "".join(c if c.isprintable() else "?" for c in text[:LOG_VALUE_MAX])

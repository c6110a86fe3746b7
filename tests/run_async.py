"""Run async code from a synchronous test, whatever else holds an event loop.

pytest-playwright's sync API keeps an event loop running in the main thread once a
browser test has run, and ``asyncio.run`` refuses to start inside it; so unit tests
that may run after browser tests in the same session go through a thread of their own.
"""

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def in_own_thread(function: Callable[..., T], *args: Any) -> T:
    """Call ``function(*args)`` in a fresh thread (free to start its own event loop)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args).result()


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own."""
    return in_own_thread(asyncio.run, coroutine)

"""A sliding-window limit on how many submissions one client may make."""

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping


class RateLimiter:
    """Allows at most N events per window for each key (client token, IP address...).

    It lives in the memory of one backend worker: with several workers a client
    can reach the limit once per worker, which still stops a flood.
    """

    def __init__(self, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.window_s = window_s
        self._clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._calls = 0

    def allow(self, limits: Mapping[str, int]) -> bool:
        """Record one event for every key if none of them is over its limit; else refuse."""
        now = self._clock()
        with self._lock:
            self._calls += 1
            if self._calls % 1000 == 0:
                self._forget_idle(now)
            windows = {key: self._window(key, now) for key in limits if key}
            if any(len(windows[key]) >= limits[key] for key in windows):
                return False
            for window in windows.values():
                window.append(now)
            return True

    def _window(self, key: str, now: float) -> deque[float]:
        """The events of ``key`` still inside the window."""
        window = self._events.setdefault(key, deque())
        while window and window[0] <= now - self.window_s:
            window.popleft()
        return window

    def _forget_idle(self, now: float) -> None:
        """Drop keys with no event inside the window, so memory stays bounded."""
        for key in [k for k, w in self._events.items() if not w or w[-1] <= now - self.window_s]:
            del self._events[key]

"""Telegram's sending limits as sliding windows: at most ``limit`` requests in *any* ``period``.

A token bucket (aiolimiter) starts full and refills continuously, so it lets a full bucket out at
once and then keeps sending at the rate: 30 a second in a bucket of 30 puts up to about 60
requests into one sliding second (measured: 53-54 on a busy Monday). Telegram counts requests
in a moving window, so the sender keeps the time of each request and a request waits until the
one ``limit`` places before it has left the window.

Time is the event loop's (``loop.time()``), so the windows follow a test's fast-forwarded loop
too. A request waits for every window it belongs to (the bot's and its chat's) and is recorded in
all of them at the same moment, with no ``await`` in between, so concurrent senders never
overfill a window.
"""

from __future__ import annotations

import asyncio
from collections import deque

MIN_WAIT = 0.001
"""The shortest wait, in seconds (the loop's clock may not move by less)."""


class SlidingWindow:
    """At most ``limit`` requests in any ``period`` seconds."""

    def __init__(self, limit: int, period: float) -> None:
        if limit < 1 or period <= 0:
            raise ValueError(f"a window needs a limit >= 1 and a period > 0, not {limit}/{period}")
        self.limit = limit
        self.period = period
        self._times: deque[float] = deque()

    def wait_needed(self, now: float) -> float:
        """Seconds until one more request fits (0: now)."""
        # One arithmetic for "has left the window" (t + period <= now) here and in the wait
        # below: with two, float rounding let a request in a hair early.
        while self._times and self._times[0] + self.period <= now:
            self._times.popleft()
        if len(self._times) < self.limit:
            return 0.0
        return self._times[len(self._times) - self.limit] + self.period - now

    def record(self, now: float) -> None:
        """A request goes out now."""
        self._times.append(now)

    def idle(self, now: float) -> bool:
        """No request of the last ``period``: the window holds nothing (it may be dropped)."""
        return not self._times or self._times[-1] + self.period <= now


async def acquire(*windows: SlidingWindow) -> None:
    """Wait until a request fits in every window, then record it in all of them."""
    loop = asyncio.get_running_loop()
    while True:
        now = loop.time()
        wait = max(window.wait_needed(now) for window in windows)
        if wait <= 0:
            for window in windows:
                window.record(now)
            return
        # At least a millisecond: a wait of float dust would not move the clock and spin.
        await asyncio.sleep(max(wait, MIN_WAIT))

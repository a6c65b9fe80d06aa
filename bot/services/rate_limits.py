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
from collections.abc import Awaitable, Callable, Sequence

from storage import SendWindow

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


class Precedence:
    """Requests that go first: while one of them waits for the shared window (the bot's) and
    only for it, the others do not take a place in it. A waiting first request is counted by
    :func:`acquire` (``first=True``); the others wait until none is left."""

    def __init__(self) -> None:
        self.waiting = 0
        self._none_waiting = asyncio.Event()
        self._none_waiting.set()

    def enter(self) -> None:
        """A first request waits for the shared window."""
        self.waiting += 1
        self._none_waiting.clear()

    def leave(self) -> None:
        """It no longer waits (it went, or waits for its own chat)."""
        self.waiting -= 1
        if self.waiting == 0:
            self._none_waiting.set()

    async def none_waiting(self) -> None:
        """Return once no first request waits."""
        await self._none_waiting.wait()


async def acquire(
    *windows: SlidingWindow, precedence: Precedence | None = None, first: bool = False
) -> None:
    """Wait until a request fits in every window, then record it in all of them.

    With ``precedence``, ``windows[0]`` is the shared window: a ``first`` request that waits
    only for it keeps the others out of it; another request waits while one does.
    """
    loop = asyncio.get_running_loop()
    counted = False
    try:
        while True:
            if precedence is not None and not first and precedence.waiting:
                await precedence.none_waiting()
                continue
            now = loop.time()
            waits = [window.wait_needed(now) for window in windows]
            wait = max(waits)
            if wait <= 0:
                for window in windows:
                    window.record(now)
                return
            if precedence is not None and first:
                only_shared = max(waits[1:], default=0.0) <= 0
                if only_shared and not counted:
                    precedence.enter()
                elif counted and not only_shared:
                    precedence.leave()
                counted = only_shared
            # At least a millisecond: a wait of float dust would not move the clock and spin.
            await asyncio.sleep(max(wait, MIN_WAIT))
    finally:
        if counted and precedence is not None:
            precedence.leave()


Reserve = Callable[[Sequence[SendWindow], Callable[[], float]], Awaitable[float]]
"""``Store.reserve_send``: a place in every window at the time a clock gives once the windows
are locked, or how long to wait."""


async def acquire_shared(
    reserve: Reserve,
    windows: Sequence[SendWindow],
    wall: Callable[[], float],
    *,
    precedence: Precedence | None = None,
    first: bool = False,
) -> None:
    """As :func:`acquire`, with windows every process on the database shares (kept in it,
    ``reserve``), on a clock they share (``wall``: Unix time, read by ``reserve`` once it holds
    the windows, so a wait for them does not make the request count earlier than it goes);
    ``windows[0]`` is the bot's.
    ``precedence`` orders this process's requests only: a ``first`` request that waits for the
    bot's window keeps this process's others out of it; another process's requests take their
    turn as they come."""
    counted = False
    try:
        while True:
            if precedence is not None and not first and precedence.waiting:
                await precedence.none_waiting()
                continue
            wait = await reserve(windows, wall)
            if wait <= 0:
                return
            if precedence is not None and first:
                # Only a wait the shared window can explain (at most its period) holds the
                # others: a map waiting a minute for its group's window does not.
                only_shared = wait <= windows[0].period
                if only_shared and not counted:
                    precedence.enter()
                elif counted and not only_shared:
                    precedence.leave()
                counted = only_shared
            await asyncio.sleep(max(wait, MIN_WAIT))
    finally:
        if counted and precedence is not None:
            precedence.leave()

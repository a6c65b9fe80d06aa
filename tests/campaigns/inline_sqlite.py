"""SQLite statements on the event loop's thread, for the random campaigns' speed.

aiosqlite runs each statement on a worker thread and wakes the event loop when it is done: two
thread switches a statement, which on two shared cores cost more than the statement itself
(a campaign makes some ten thousand). Inside :func:`statements_in_the_loop` a connection made
by ``aiosqlite.connect`` runs its statements at once, in the calling thread: the same SQL on
the same file in the same order, only without the hop (and without the yield to other tasks
that the hop gave, so tasks interleave only where the code itself awaits something else).

The storage tests, the bot's tests and the PostgreSQL run of the campaigns keep the real
threads; ``bench/campaign_fuzz.py --threads`` plays the random campaigns with them too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aiosqlite.core import Connection


@contextmanager
def statements_in_the_loop() -> Iterator[None]:
    """aiosqlite without its worker thread while inside (connections opened inside)."""
    original_execute = Connection._execute
    original_connect = Connection._connect

    async def execute(self: Connection, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if not self._running or not self._connection:
            raise ValueError("Connection closed")
        return fn(*args, **kwargs)

    async def connect(self: Connection) -> Connection:
        if self._connection is None:
            self._connection = self._connector()
        return self

    Connection._execute = execute  # type: ignore[method-assign]
    Connection._connect = connect  # type: ignore[method-assign]
    try:
        yield
    finally:
        Connection._execute = original_execute  # type: ignore[method-assign]
        Connection._connect = original_connect  # type: ignore[method-assign]

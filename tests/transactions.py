"""Counting a store's transactions: how many read snapshots and write transactions a piece of
work opens (the bot's tests and bench/bot_bench.py). A transaction opened inside another one of
the same task (a part of it) is not counted: it costs no transaction of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from storage import SqlCampaignStore, Store
from storage.dialect import Dialect
from storage.sql import Conn, Query, Row, Transactions


@dataclass
class TransactionCount:
    """Transactions opened so far: ``reads`` (snapshots) and ``writes``."""

    reads: int = 0
    writes: int = 0


class CountingTransactions:
    """A store's database with every outermost transaction counted in :attr:`count`."""

    def __init__(self, inner: Transactions) -> None:
        self.inner = inner
        self.count = TransactionCount()

    def _outermost(self) -> bool:
        held_here = getattr(self.inner, "_held_here", None)
        return held_here is None or not held_here()

    @asynccontextmanager
    async def transaction(self, *, row_locks: bool = False) -> AsyncIterator[Conn]:
        """The database's write transaction, counted."""
        if self._outermost():
            self.count.writes += 1
        async with self.inner.transaction(row_locks=row_locks) as conn:
            yield conn

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Conn]:
        """The database's read snapshot, counted."""
        if self._outermost():
            self.count.reads += 1
        async with self.inner.snapshot() as conn:
            yield conn

    @asynccontextmanager
    async def aside(self) -> AsyncIterator[Conn]:
        """The database's short transaction on the side (the outbox's lease renewals), counted as
        a write."""
        self.count.writes += 1
        async with self.inner.aside() as conn:
            yield conn

    async def read(self, queries: Sequence[Query]) -> list[list[Row]]:
        """The database's one-call read, counted as a snapshot."""
        if self._outermost():
            self.count.reads += 1
        return await self.inner.read(queries)

    def exclusive(self, key: int) -> AbstractAsyncContextManager[None]:
        """The database's cross-process lock (not counted)."""
        return self.inner.exclusive(key)

    @property
    def dialect(self) -> Dialect:
        """The database's dialect."""
        return self.inner.dialect

    async def backup(self, target: Path) -> None:
        """The database's backup."""
        await self.inner.backup(target)

    async def close(self) -> None:
        """Close the database."""
        await self.inner.close()


def count_transactions(store: Store) -> TransactionCount:
    """Count ``store``'s transactions from now on (its database is wrapped in place); the
    returned count grows as they are opened."""
    if not isinstance(store, SqlCampaignStore):
        raise TypeError(f"cannot count the transactions of {type(store).__name__}")
    db = store._db
    counting = db if isinstance(db, CountingTransactions) else CountingTransactions(db)
    store._db = counting
    return counting.count

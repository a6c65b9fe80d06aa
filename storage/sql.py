"""Small SQL helpers shared by the storage modules: time text, JSON text, row access."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from functools import lru_cache, wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeGuard, TypeVar, cast

import aiosqlite

from storage.dialect import Dialect
from storage.models import utc

if TYPE_CHECKING:
    from storage.postgres import PgConnection


def ts(moment: datetime) -> str:
    """``moment`` as stored: UTC ISO 8601 text with microseconds (text order is time order)."""
    return utc(moment).isoformat(timespec="microseconds")


def dt(text: str) -> datetime:
    """A stored time back as a timezone-aware datetime."""
    return datetime.fromisoformat(text)


def opt_dt(text: str | None) -> datetime | None:
    """A stored time, or ``None``."""
    return None if text is None else dt(text)


def dump_json(value: Any) -> str:
    """Compact JSON text, non-ASCII kept as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Row(Protocol):
    """A result row, by column name or by index: ``sqlite3.Row`` or ``asyncpg.Record``."""

    def __getitem__(self, key: int | str, /) -> Any: ...
    def keys(self) -> Any: ...


Conn: TypeAlias = "aiosqlite.Connection | PgConnection"
"""A connection inside a transaction: aiosqlite's, or the PostgreSQL one answering alike."""


T = TypeVar("T")


def once_per_row(size: int) -> Callable[[Callable[[Row], T]], Callable[[Row], T]]:
    """A record's builder made to build once per distinct row (its columns and values), kept
    for the last ``size`` rows: the campaign, its members, sides and people are read for
    nearly every update and post, and validating the same row into the same model again was
    a tenth of a random campaign's time. Only for frozen records whose fields nobody changes
    in place, as every reader of an unchanged row then shares one. A row holding a value that
    cannot be hashed (a PostgreSQL array) is built anew each time."""

    def wrap(build: Callable[[Row], T]) -> Callable[[Row], T]:
        @lru_cache(maxsize=size)
        def cached(names: tuple[str, ...], values: tuple[Any, ...]) -> T:
            return build(cast(Row, dict(zip(names, values, strict=True))))

        @wraps(build)
        def built(row: Row) -> T:
            values: tuple[Any, ...] = tuple(cast(Iterable[Any], row))
            try:
                hash(values)
            except TypeError:
                return build(row)
            return cached(tuple(row.keys()), values)

        return built

    return wrap


Query: TypeAlias = tuple[str, Sequence[Any]]
"""A statement and its parameters."""


class Transactions(Protocol):
    """What the storage modules need of a database: :class:`storage.db.Database` (SQLite) or
    :class:`storage.postgres.PostgresDatabase`."""

    def transaction(self, *, row_locks: bool = False) -> AbstractAsyncContextManager[Conn]: ...
    def snapshot(self) -> AbstractAsyncContextManager[Conn]: ...
    async def read(self, queries: Sequence[Query]) -> list[list[Row]]: ...
    def exclusive(self, key: int) -> AbstractAsyncContextManager[None]: ...
    def aside(self) -> AbstractAsyncContextManager[Conn]: ...
    @property
    def dialect(self) -> Dialect: ...
    async def backup(self, target: Path) -> None: ...
    async def close(self) -> None: ...


# A query is one call to aiosqlite's thread (``execute_fetchall``), not three (execute, fetch,
# close): each call is a round trip between the event loop and that thread, and those round
# trips are most of what an update costs (bench/bot_bench.py, "hops/u").


async def fetch_one(conn: Conn, sql: str, params: Sequence[Any] = ()) -> Row | None:
    """The first row of a query, or ``None`` (for queries of one row or a few)."""
    rows: list[Row] = list(await conn.execute_fetchall(sql, params))
    return next(iter(rows), None)


async def fetch_all(conn: Conn, sql: str, params: Sequence[Any] = ()) -> list[Row]:
    """Every row of a query."""
    return list(await conn.execute_fetchall(sql, params))


async def on_sqlite_thread(
    conn: aiosqlite.Connection, work: Callable[[sqlite3.Connection], T]
) -> T:
    """``work(connection)`` run on aiosqlite's thread with its plain ``sqlite3`` connection: one
    round trip for the whole of ``work``. aiosqlite has no public call for this; its
    ``_execute`` is what its own ``execute``, ``commit`` ... use (the version is pinned in
    pyproject.toml, and tests/storage cover it)."""
    run_on_thread = cast(Any, conn)._execute
    return cast(T, await run_on_thread(lambda: work(conn._conn)))


def run_statements(raw: sqlite3.Connection, statements: Sequence[Query]) -> list[list[Row]]:
    """Run ``statements`` one after another on a plain SQLite connection (on aiosqlite's
    thread): the rows of each (none for an INSERT or UPDATE)."""
    return [raw.execute(sql, params).fetchall() for sql, params in statements]


async def fetch_batch(conn: Conn, statements: Sequence[Query]) -> list[list[Row]]:
    """Run ``statements`` in order; the rows of each (none for an INSERT or UPDATE). On SQLite
    they are one call to aiosqlite's thread instead of one each: for a read that needs several
    queries, or writes whose results nobody reads. An error stops the batch there (the
    statements before it ran) and is raised as a single statement's would be. PostgreSQL runs
    them one by one (asyncpg sends one statement with parameters at a time)."""
    if isinstance(conn, aiosqlite.Connection):
        return await on_sqlite_thread(conn, lambda raw: run_statements(raw, statements))
    return [await fetch_all(conn, sql, params) for sql, params in statements]


async def changed_rows(conn: Conn, sql: str, params: Sequence[Any] = ()) -> int:
    """Run a statement; how many rows it changed."""
    async with conn.execute(sql, params) as cursor:
        return cursor.rowcount


def _postgres(conn: Conn) -> TypeGuard[PgConnection]:
    """Whether ``conn`` is PostgreSQL's (anything else speaks SQLite: aiosqlite's connection or
    a test's wrapper of it)."""
    from storage.postgres import PgConnection  # noqa: PLC0415 - postgres imports this module

    return isinstance(conn, PgConnection)


async def insert_row(conn: Conn, sql: str, params: Sequence[Any] = ()) -> int:
    """Run an INSERT; the new row's id (SQLite's ``lastrowid``, PostgreSQL's ``RETURNING id``)."""
    if _postgres(conn):
        return await conn.insert_returning_id(sql, params)
    async with cast(aiosqlite.Connection, conn).execute(sql, params) as cursor:
        row_id = cursor.lastrowid
    if row_id is None:
        raise RuntimeError(f"insert returned no row id: {sql}")
    return row_id


@asynccontextmanager
async def may_violate(conn: Conn) -> AsyncIterator[None]:
    """Statements inside may break a constraint (caught as
    :data:`storage.dialect.INTEGRITY_ERRORS` outside the block) and the transaction goes on.
    SQLite undoes only the failed statement; PostgreSQL aborts the whole transaction, so there
    the block is a savepoint."""
    if not _postgres(conn):
        yield
        return
    async with conn.savepoint():
        yield

"""The PostgreSQL backend: one asyncpg connection, used as the storage modules use aiosqlite's.

:class:`PgConnection` answers the few calls ``storage/`` makes on a connection (``execute``,
``executemany``, ``execute_fetchall``) with each statement rewritten by
:func:`storage.dialect.postgresql_statement`, so every query is written once.
:class:`PostgresDatabase` keeps :class:`storage.db.Database`'s contract: one connection and a
lock, write transactions (``READ COMMITTED`` under one advisory write lock) with savepoints for
nested parts, read snapshots, migrations from the same numbered files
(:func:`storage.dialect.migration_script`), the schema version in the ``schema_version`` table.

A polling bot is one process per database, as with SQLite (Telegram lets one process take the
updates): its connection holds an advisory lock (:data:`ONLY_PROCESS_LOCK`) and a second
process is refused. Webhook processes share one database (``only_process=False``): each write
transaction still takes the one write lock, except the few that keep apart by row locks
(``transaction(row_locks=True)``: the outbox claim, the send windows, the updates taken), and a
campaign's scheduled run is one process's at a time (:meth:`PostgresDatabase.exclusive`).

A lost connection (the server restarted, the network dropped, the backend was terminated) is
raised as :class:`storage.db.StorageUnavailableError` (``CONNECTION_LOST``), as SQLite's "cannot
write" errors are: the transaction is not committed. The next transaction opens a new
connection (and takes the process's advisory lock again).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Generator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

import asyncpg

from storage.db import (
    Migration,
    MigrationError,
    StorageFault,
    StorageUnavailableError,
    load_migrations,
)
from storage.db import _counting as _commit_counter
from storage.db import _holding as _held_transaction
from storage.dialect import (
    BEGIN_READ,
    BEGIN_ROW_LOCKED,
    BEGIN_WRITE,
    SCHEMA_VERSION_TABLE,
    Dialect,
    migration_script,
    postgresql_statement,
)
from storage.sql import Query, Row, fetch_batch

ONLY_PROCESS_LOCK = 0x5374726174  # "Strat": pg_try_advisory_lock's key for "the bot's process"
EXCLUSIVE_CLASS = 0x5374  # the first of pg_try_advisory_lock's two keys for :meth:`exclusive`
MIGRATION_LOCK = 0x5374726D67  # "Strmg": pg_advisory_lock's key while a process migrates
EXCLUSIVE_POLL = (0.02, 0.5)
"""Seconds between tries for a key another process holds: the first wait, the longest."""
_LOST = (
    asyncpg.PostgresConnectionError,  # the connection ended (ConnectionDoesNotExistError ...)
    asyncpg.exceptions.OperatorInterventionError,  # terminated, the server shutting down
    # The protocol broken, as when the server's "terminated" arrives between two statements
    # ("cannot switch to state ..."): the connection cannot be used again.
    asyncpg.exceptions.InternalClientError,
)
"""Errors that mean the connection to the server is gone, whatever the connection's state
(:class:`asyncpg.InterfaceError`, :class:`ConnectionError` and :class:`OSError` mean it too
when the connection is closed: :meth:`PostgresDatabase._faults_told`)."""


def connection_lost(error: BaseException, url: str) -> StorageUnavailableError:
    """``error`` (the server cannot be reached) as a :class:`StorageUnavailableError`; the
    message names the server without the password."""
    return StorageUnavailableError(
        without_password(url), StorageFault.CONNECTION_LOST, type(error).__name__, str(error)
    )


def without_password(url: str) -> str:
    """``url`` as it may be shown: the user name kept, the password dropped."""
    scheme, found, rest = url.partition("://")
    credentials, at, place = rest.rpartition("@")
    if not found or not at:
        return url
    return f"{scheme}://{credentials.partition(':')[0]}@{place}"


class AnotherProcessError(RuntimeError):
    """Another bot process already serves this PostgreSQL database."""


class PgCursor:
    """What a statement left behind: ``rowcount`` (rows changed), as aiosqlite's cursor."""

    def __init__(self, conn: PgConnection, sql: str, parameters: Sequence[Any]) -> None:
        self._conn = conn
        self._sql = sql
        self._parameters = parameters
        self.rowcount = -1

    async def _run(self) -> PgCursor:
        status = await self._conn.raw.execute(postgresql_statement(self._sql), *self._parameters)
        self.rowcount = _rows_of(status)
        return self

    def __await__(self) -> Generator[Any, None, PgCursor]:
        return self._run().__await__()

    async def __aenter__(self) -> PgCursor:
        return await self._run()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None


def _rows_of(status: str) -> int:
    """The row count of a command tag (``UPDATE 3``, ``INSERT 0 1``), -1 if it has none."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else -1


class PgConnection:
    """An asyncpg connection answering the calls the storage modules make."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self._parts = itertools.count(1)

    def execute(self, sql: str, parameters: Iterable[Any] | None = None) -> PgCursor:
        """Run one statement (awaited, or as ``async with ... as cursor``)."""
        return PgCursor(self, sql, tuple(parameters or ()))

    async def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> None:
        """Run one statement for each parameter row."""
        rows = [tuple(row) for row in parameters]
        if rows:
            await self.raw.executemany(postgresql_statement(sql), rows)

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] | None = None) -> Any:
        """Every row of a query, as :class:`asyncpg.Record` (by name or by index)."""
        return await self.raw.fetch(postgresql_statement(sql), *tuple(parameters or ()))

    async def insert_returning_id(self, sql: str, parameters: Sequence[Any]) -> int:
        """Run an INSERT; the new row's ``id`` (PostgreSQL has no ``lastrowid``)."""
        value = await self.raw.fetchval(postgresql_statement(sql) + " RETURNING id", *parameters)
        if value is None:
            raise RuntimeError(f"insert returned no row id: {sql}")
        return int(value)

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open on the connection."""
        return bool(self.raw.is_in_transaction())

    @asynccontextmanager
    async def savepoint(self) -> AsyncIterator[None]:
        """A part of the running transaction that an error undoes alone (PostgreSQL aborts the
        whole transaction at any error otherwise)."""
        name = f"part{next(self._parts)}"
        await self.raw.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            with contextlib.suppress(asyncpg.PostgresError):
                await self.raw.execute(f"ROLLBACK TO SAVEPOINT {name}")
                await self.raw.execute(f"RELEASE SAVEPOINT {name}")
            raise
        await self.raw.execute(f"RELEASE SAVEPOINT {name}")


class PostgresDatabase:
    """One connection to a PostgreSQL database and the lock that keeps its transactions apart
    (the same contract as :class:`storage.db.Database`)."""

    dialect = Dialect.POSTGRESQL

    def __init__(self, conn: PgConnection, url: str, process_lock: str | None = None) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self._open = True
        self._reopen = False
        self._process_lock = process_lock
        self.url = url
        self._aside: PgConnection | None = None
        self._aside_lock = asyncio.Lock()

    @classmethod
    async def open(
        cls, url: str, *, only_process: bool = False, shared: bool = False
    ) -> PostgresDatabase:
        """Connect and bring the schema to the latest version. ``only_process``: hold the
        advisory lock that refuses a second bot process on this database; ``shared``: hold it
        shared with other sharing processes (webhook replicas), so a process that must be
        alone (polling) is refused while they run, and they while it runs."""
        raw = await asyncpg.connect(url)
        take = (
            ("pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock")
            if only_process or shared
            else None
        )
        try:
            await _take_process_lock(raw, take)
            await migrate(raw)
        except BaseException:
            await raw.close()
            raise
        return cls(PgConnection(raw), url, take)

    async def close(self) -> None:
        """Close the connection (waits for a running transaction); a second close is a no-op."""
        async with self._lock:
            if self._open:
                self._open = False
                await self._conn.raw.close()
        async with self._aside_lock:
            if self._aside is not None:
                await self._aside.raw.close()
                self._aside = None

    @asynccontextmanager
    async def _faults_told(self) -> AsyncIterator[None]:
        """A lost connection raised inside, as :class:`StorageUnavailableError`; the next
        transaction opens a new one. Other errors (a constraint, a bug) pass as they are."""
        try:
            yield
        except (*_LOST, asyncpg.InterfaceError, OSError) as error:
            if not (isinstance(error, _LOST) or self._conn.raw.is_closed()):
                raise
            self._reopen = True
            raise connection_lost(error, self.url) from error

    async def _usable_connection(self) -> None:
        """Replace a connection that was lost with a new one (holding the process's advisory
        lock again, if this process holds one); :class:`StorageUnavailableError` while the
        server cannot be reached."""
        if not self._reopen:
            return
        if not self._open:
            raise RuntimeError("the database is closed")
        try:
            fresh = await asyncpg.connect(self.url)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError) as error:
            raise connection_lost(error, self.url) from error
        try:
            await _take_process_lock(fresh, self._process_lock)
        except BaseException:
            await fresh.close()
            raise
        stale, self._conn = self._conn, PgConnection(fresh)
        self._reopen = False
        stale.raw.terminate()

    def _held_here(self) -> bool:
        held = _held_transaction.get()
        return held is not None and held[0] is self and held[1] is asyncio.current_task()

    @asynccontextmanager
    async def transaction(self, *, row_locks: bool = False) -> AsyncIterator[PgConnection]:
        """A write transaction, rolled back on any error; inside another transaction of this
        database in the same task, a savepoint of it (as :meth:`storage.db.Database.transaction`).

        It takes the one write lock (writers take turns, across processes too), unless
        ``row_locks``: then its statements keep themselves apart (``FOR UPDATE``, ``SKIP
        LOCKED``, a unique key) and it does not wait for the other writers.
        """
        if self._held_here():
            async with self._conn.savepoint():
                yield self._conn
            return
        begin = BEGIN_ROW_LOCKED if row_locks else BEGIN_WRITE
        async with self._lock, self._faults_told():
            await self._usable_connection()
            await self._conn.raw.execute(begin[Dialect.POSTGRESQL])
            token = _held_transaction.set((self, asyncio.current_task()))
            try:
                yield self._conn
                await self._conn.raw.execute("COMMIT")
            except BaseException:
                await self._roll_back()
                raise
            finally:
                _held_transaction.reset(token)
        count = _commit_counter.get()
        if count is not None:
            count.commits += 1

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[PgConnection]:
        """A read transaction: every query inside sees the same committed state."""
        if self._held_here():
            yield self._conn
            return
        async with self._lock, self._faults_told():
            await self._usable_connection()
            await self._conn.raw.execute(BEGIN_READ[Dialect.POSTGRESQL])
            try:
                yield self._conn
            finally:
                await self._roll_back()

    async def read(self, queries: Sequence[Query]) -> list[list[Row]]:
        """The rows of each of ``queries``, in one read transaction (as
        :meth:`storage.db.Database.read`; here each query is a round trip to the server)."""
        async with self.snapshot() as conn:
            return await fetch_batch(conn, queries)

    @asynccontextmanager
    async def aside(self) -> AsyncIterator[PgConnection]:
        """A short transaction on a second connection of this process (opened at first use),
        so that it does not queue behind the transactions of the first: one of those may wait
        for the write lock while another process holds it, for seconds on a busy Monday. For
        the outbox's lease renewals, which must land within seconds. Its statements keep
        themselves apart by row locks (``READ COMMITTED``, as ``transaction(row_locks=True)``),
        and it commits on its own, also when called inside another transaction."""
        async with self._aside_lock:
            if not self._open:
                raise RuntimeError("the database is closed")
            try:
                if self._aside is None or self._aside.raw.is_closed():
                    self._aside = PgConnection(await asyncpg.connect(self.url))
                conn = self._aside
                await conn.raw.execute(BEGIN_ROW_LOCKED[Dialect.POSTGRESQL])
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError) as error:
                raise connection_lost(error, self.url) from error
            try:
                yield conn
                await conn.raw.execute("COMMIT")
            except (*_LOST, asyncpg.InterfaceError, OSError) as error:
                if not (isinstance(error, _LOST) or conn.raw.is_closed()):
                    raise
                conn.raw.terminate()
                self._aside = None  # opened anew at the next use
                raise connection_lost(error, self.url) from error
            except BaseException:
                if not conn.raw.is_closed() and conn.in_transaction:
                    await conn.raw.execute("ROLLBACK")
                raise

    @asynccontextmanager
    async def exclusive(self, key: int) -> AsyncIterator[None]:
        """Across every process on the database, one holder of ``key`` (a 32-bit number, e.g.
        a campaign id) at a time: waits while another process holds it. A session-level
        advisory lock: the server drops it when the holder's connection ends (a killed process
        holds nothing). Within a process the caller keeps its own tasks apart (the lock is the
        connection's, so two tasks of one process would both get it)."""
        if self._held_here():
            raise RuntimeError("exclusive() is taken outside a transaction")
        wait = EXCLUSIVE_POLL[0]
        while True:
            async with self._lock, self._faults_told():
                await self._usable_connection()
                taken = await self._conn.raw.fetchval(
                    "SELECT pg_try_advisory_lock($1, $2)", EXCLUSIVE_CLASS, key
                )
            if taken:
                break
            await asyncio.sleep(wait)
            wait = min(wait * 2, EXCLUSIVE_POLL[1])
        try:
            yield
        finally:
            # A connection that is gone holds no lock any more: nothing to give back.
            async with self._lock:
                if self._open and not self._conn.raw.is_closed():
                    try:
                        await self._conn.raw.fetchval(
                            "SELECT pg_advisory_unlock($1, $2)", EXCLUSIVE_CLASS, key
                        )
                    except (*_LOST, asyncpg.InterfaceError, OSError):
                        self._reopen = True  # lost just now: the server dropped the lock

    async def _roll_back(self) -> None:
        # A lost connection rolled back on the server already: nothing is left to undo.
        if self._conn.raw.is_closed():
            return
        try:
            if self._conn.in_transaction:
                await self._conn.raw.execute("ROLLBACK")
        except _LOST:
            self._reopen = True

    async def backup(self, target: Path) -> None:
        """PostgreSQL is backed up by its own tools, not by the bot."""
        raise ValueError(
            f"cannot back up a PostgreSQL database to {target}: use pg_dump (docs/storage.md)"
        )


async def _take_process_lock(raw: Any, take: str | None) -> None:
    """Take the advisory lock of "the bot's process" (``take`` is its function), if any."""
    if take is None:
        return
    if not await raw.fetchval(f"SELECT {take}($1)", ONLY_PROCESS_LOCK):
        raise AnotherProcessError(
            "another Strategium process serves this database"
            + (" alone (polling)" if take.endswith("_shared") else "")
        )


async def schema_version(raw: Any) -> int:
    """The version the ``schema_version`` table holds (0 for a new database)."""
    await raw.execute(SCHEMA_VERSION_TABLE)
    return int(await raw.fetchval("SELECT version FROM schema_version"))


async def migrate(
    raw: Any, target: int | None = None, migrations: Sequence[Migration] | None = None
) -> int:
    """Apply every migration above the database's version (as :func:`storage.db.migrate`),
    each in its own transaction with the version it leaves. Processes starting at once on one
    database (webhook replicas) take turns through an advisory lock: the second finds the
    schema migrated (without it both create the same tables, and one fails)."""
    await raw.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        return await _migrate(raw, target, migrations)
    finally:
        await raw.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)


async def _migrate(raw: Any, target: int | None, migrations: Sequence[Migration] | None) -> int:
    migrations = load_migrations() if migrations is None else migrations
    target = len(migrations) if target is None else target
    current = await schema_version(raw)
    if current > len(migrations):
        raise MigrationError(
            f"database schema version {current} is newer than this code ({len(migrations)})"
        )
    for migration in migrations:
        if not current < migration.version <= target:
            continue
        async with raw.transaction():
            await raw.execute(migration_script(migration.sql, Dialect.POSTGRESQL))
            await raw.execute("UPDATE schema_version SET version = $1", migration.version)
        current = migration.version
    return current


async def database_problem(url: str) -> str | None:
    """Why the PostgreSQL database cannot answer a read or take a write right now, or ``None``
    (for a health check: one small query and a write that changes no row, rolled back)."""
    try:
        raw = await asyncpg.connect(url, timeout=10)
    except (OSError, asyncpg.PostgresError) as error:
        return f"database does not answer: {error}"
    try:
        async with raw.transaction():
            await raw.fetchval("SELECT count(*) FROM campaigns")
            await raw.execute("UPDATE campaigns SET id = id WHERE false")
            raise _RollBackError
    except _RollBackError:
        return None
    except (OSError, asyncpg.PostgresError) as error:
        return f"database cannot save: {error}"
    finally:
        await raw.close()


async def holds_campaigns(url: str) -> bool:
    """Whether the PostgreSQL database (and schema) ``url`` names has the bot's tables: an
    operator command refuses one that does not rather than create them (a mistyped URL)."""
    raw = await asyncpg.connect(url, timeout=10)
    try:
        return bool(await raw.fetchval("SELECT to_regclass('campaigns') IS NOT NULL"))
    finally:
        await raw.close()


class _RollBackError(Exception):
    """Raised to roll the health check's transaction back."""

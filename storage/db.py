"""The SQLite file: opening it safely, migrating its schema, transactions, online backup.

Settings every connection gets, and why:

* ``journal_mode=WAL``: readers never block the writer and a crash never leaves a torn page;
  a backup or a report reads a consistent snapshot while the bot keeps writing.
* ``synchronous=FULL``: every commit is fsynced before the write returns, so an order whose save
  returned survives a power cut too, not only a crashed process (``NORMAL`` in WAL mode may lose
  the last commits on power loss). The bot writes a few rows a minute; the fsync costs nothing
  that matters.
* ``foreign_keys=ON``: SQLite's default is off.
* ``busy_timeout``: a second connection (another process, a backup, a test) waits for the write
  lock instead of failing at once.

Multi-row changes run in :meth:`Database.transaction`, which takes the write lock up front
(``BEGIN IMMEDIATE``), so a transaction never fails half-way on a lock upgrade.

When the file cannot take a write (it or its volume is read-only, the disk is full, the disk
fails), the transaction is rolled back and :class:`StorageUnavailableError` says so: nothing of
that transaction is stored, and nothing stored before is touched. A connection that met a
read-only, I/O or open error is replaced by a new one before the next transaction (SQLite keeps
a connection it opened read-only that way), so the bot saves again as soon as the file can.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import shutil
import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import aiosqlite

from storage.dialect import Dialect, migration_script
from storage.sql import Query, Row, fetch_batch, on_sqlite_thread, run_statements

BUSY_TIMEOUT_MS = 10_000
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class MigrationError(RuntimeError):
    """The migration files or the database's schema version cannot be used."""


class StorageFault(StrEnum):
    """Why the database file cannot take a write."""

    READ_ONLY = "read_only"  # the file, its folder or its volume is read-only
    DISK_FULL = "disk_full"
    DISK_ERROR = "disk_error"  # the operating system failed a read or write
    CANNOT_OPEN = "cannot_open"
    CONNECTION_LOST = "connection_lost"  # PostgreSQL: the server cannot be reached


# SQLite's primary result codes (the low byte of an extended code) that mean "the file cannot
# take a write now".
_FAULTS = {
    sqlite3.SQLITE_READONLY: StorageFault.READ_ONLY,
    sqlite3.SQLITE_FULL: StorageFault.DISK_FULL,
    sqlite3.SQLITE_IOERR: StorageFault.DISK_ERROR,
    sqlite3.SQLITE_CANTOPEN: StorageFault.CANNOT_OPEN,
}
# After these the connection may stay as it is (opened read-only, a dead file handle): the next
# transaction opens a new one. A full disk needs no new connection, only space.
_REOPEN_AFTER = frozenset(
    {StorageFault.READ_ONLY, StorageFault.DISK_ERROR, StorageFault.CANNOT_OPEN}
)


class StorageUnavailableError(RuntimeError):
    """The database cannot take a write (or a read) right now. The transaction was rolled
    back: nothing of it is stored and nothing stored before changed.

    ``fault`` says why; ``code`` is SQLite's name for it (``SQLITE_READONLY``, ``SQLITE_FULL``,
    ``SQLITE_IOERR_WRITE`` ...).
    """

    def __init__(self, path: Path | str, fault: StorageFault, code: str, detail: str) -> None:
        super().__init__(f"database {path} cannot save: {fault.value} ({code}: {detail})")
        self.fault = fault
        self.code = code


def storage_fault(error: BaseException, path: Path) -> StorageUnavailableError | None:
    """``error`` as a :class:`StorageUnavailableError` if it means the file cannot take a write
    (read-only, disk full, I/O error, cannot open), else ``None`` (a constraint, a bug ...)."""
    if not isinstance(error, sqlite3.Error):
        return None
    code = getattr(error, "sqlite_errorcode", None)
    fault = _FAULTS.get(code & 0xFF) if isinstance(code, int) else None
    if fault is None:
        return None
    name = getattr(error, "sqlite_errorname", None) or str(code)
    return StorageUnavailableError(path, fault, str(name), str(error))


@dataclass
class CommitCount:
    """How many write transactions committed while it was being counted."""

    commits: int = 0


_counting: ContextVar[CommitCount | None] = ContextVar("storage_commits", default=None)
# The database whose write transaction the current task holds (and that task: a task started
# inside copies the context, but not the right to use the connection without the lock).
_holding: ContextVar[tuple[object, asyncio.Task[Any] | None] | None] = ContextVar(
    "storage_transaction", default=None
)


@contextlib.contextmanager
def counting_commits() -> Iterator[CommitCount]:
    """Within the block (and tasks it starts), every commit of any :class:`Database` is counted
    in the yielded :class:`CommitCount`: the bot counts per update whether anything was saved
    before a failure."""
    count = CommitCount()
    token = _counting.set(count)
    try:
        yield count
    finally:
        _counting.reset(token)


@dataclass(frozen=True)
class Migration:
    """One numbered schema change: ``version`` is the ``user_version`` it leaves behind."""

    version: int
    name: str
    sql: str


def load_migrations(folder: Traversable | None = None) -> tuple[Migration, ...]:
    """The migration files of ``folder`` (default ``storage/migrations``), checked to be
    numbered 1, 2, 3, ...

    Every ``.sql`` file there must be named ``NNNN_words.sql``; a gap or a repeated number
    raises :class:`MigrationError`, so a misnamed file fails at start, not in production data.
    """
    folder = folder or resources.files("storage").joinpath("migrations")
    found: list[Migration] = []
    for entry in folder.iterdir():
        if not entry.name.endswith(".sql"):
            continue
        match = _MIGRATION_NAME.match(entry.name)
        if match is None:
            raise MigrationError(f"migration file {entry.name!r} is not named NNNN_words.sql")
        found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda migration: migration.version)
    numbers = [migration.version for migration in found]
    if numbers != list(range(1, len(found) + 1)):
        raise MigrationError(f"migrations must be numbered 1, 2, 3, ... without gaps: {numbers}")
    return tuple(found)


def latest_version() -> int:
    """The schema version the code expects (the number of the last migration)."""
    return len(load_migrations())


async def user_version(conn: aiosqlite.Connection) -> int:
    """The database's ``PRAGMA user_version``."""
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    if row is None:
        raise MigrationError("PRAGMA user_version returned nothing")
    return int(row[0])


async def migrate(
    conn: aiosqlite.Connection,
    target: int | None = None,
    migrations: Sequence[Migration] | None = None,
) -> int:
    """Apply every migration above the database's version, up to ``target`` (default: all).

    Each migration runs in its own transaction with foreign keys off (SQLite's advice for
    schema changes), is checked with ``PRAGMA foreign_key_check``, and sets ``user_version`` in
    the same transaction. A database newer than the code is refused: an older build must not
    write to a schema it does not know. Returns the version reached. ``migrations`` defaults
    to :func:`load_migrations` (tests pass their own).
    """
    migrations = load_migrations() if migrations is None else migrations
    target = len(migrations) if target is None else target
    current = await user_version(conn)
    if current > len(migrations):
        raise MigrationError(
            f"database schema version {current} is newer than this code ({len(migrations)})"
        )
    await conn.execute("PRAGMA foreign_keys = OFF")
    try:
        for migration in migrations:
            if not current < migration.version <= target:
                continue
            await _apply(conn, migration)
            current = migration.version
    finally:
        await conn.execute("PRAGMA foreign_keys = ON")
    return current


async def _apply(conn: aiosqlite.Connection, migration: Migration) -> None:
    # executescript commits a transaction that is open when it starts, so BEGIN is part of it.
    try:
        await conn.executescript(
            "BEGIN IMMEDIATE;\n" + migration_script(migration.sql, Dialect.SQLITE)
        )
        async with conn.execute("PRAGMA foreign_key_check") as cursor:
            broken = list(await cursor.fetchall())
        if broken:
            raise MigrationError(f"{migration.name} leaves broken foreign keys: {broken[:5]}")
        await conn.execute(f"PRAGMA user_version = {migration.version:d}")
        await conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            await conn.execute("ROLLBACK")
        raise


MIN_FREE_BYTES = 1 << 20
"""Less free space than this on the database's disk is reported as a problem: a full disk
refuses every write."""


def database_problem(path: Path, min_free_bytes: int = MIN_FREE_BYTES) -> str | None:
    """Why the database file cannot answer a read or take a write right now, or ``None`` if it
    can (for a health check: opens the existing file, runs one small query and a write that
    changes no row, rolls back, closes; then looks at the disk's free space)."""
    try:
        with contextlib.closing(
            sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None)
        ) as conn:
            conn.execute("SELECT count(*) FROM campaigns").fetchone()
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("UPDATE campaigns SET id = id WHERE 0")
            except sqlite3.Error as error:
                fault = storage_fault(error, path)
                if fault is None:
                    raise
                return str(fault)
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
    except sqlite3.Error as error:
        return f"database {path} does not answer: {error}"
    free = shutil.disk_usage(path.parent).free
    if free < min_free_bytes:
        return f"database {path}: only {free} bytes free on its disk"
    return None


async def connect(path: Path, *, read_only: bool = False) -> aiosqlite.Connection:
    """A connection with the settings above, schema not touched. The caller closes it.

    ``read_only`` opens the file as SQLite does when it cannot write it: reads work, every
    write fails with ``SQLITE_READONLY``.
    """
    if read_only:
        conn = await aiosqlite.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    else:
        conn = await aiosqlite.connect(path, isolation_level=None)
    try:
        conn.row_factory = sqlite3.Row
        async with conn.execute("PRAGMA journal_mode = WAL") as cursor:
            row = await cursor.fetchone()
        mode = None if row is None else str(row[0]).lower()
        if mode != "wal":
            raise MigrationError(f"{path}: cannot switch to WAL mode (got {mode!r})")
        await conn.execute("PRAGMA synchronous = FULL")
        await conn.execute("PRAGMA foreign_keys = ON")
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
    except BaseException:
        await conn.close()
        raise
    return conn


class Database:
    """One connection to the campaign file and the lock that keeps its transactions apart.

    aiosqlite runs one connection's statements in order on its own thread, but two coroutines
    could interleave statements of two transactions on it; the lock prevents that. Other
    connections (another process, a backup) are kept apart by SQLite's own locking.
    """

    dialect = Dialect.SQLITE

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self._open = True
        self._reopen = False
        self._parts = itertools.count(1)
        self.path = path

    @classmethod
    async def open(cls, path: Path) -> Database:
        """Open (or create) the file and bring its schema to the latest version."""
        conn = await connect(path)
        try:
            await migrate(conn)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path)

    async def close(self) -> None:
        """Close the connection (waits for a running transaction); a second close is a no-op."""
        async with self._lock:
            if self._open:
                self._open = False
                await self._conn.close()

    @asynccontextmanager
    async def transaction(self, *, row_locks: bool = False) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction: ``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error;
        :class:`StorageUnavailableError` when the file cannot take the write. ``row_locks``
        means something on PostgreSQL only (one process writes a SQLite file).

        Inside another transaction of this database in the same task it is a part of that one
        (a ``SAVEPOINT``: an error rolls back this part only), committed with it: several
        store calls become one change (``Store.atomic``)."""
        if self._held_here():
            async with self._savepoint():
                yield self._conn
            return
        async with self._lock, self._faults_told():
            await self._usable_connection(writing=True)
            await self._conn.execute("BEGIN IMMEDIATE")
            token = _holding.set((self, asyncio.current_task()))
            try:
                yield self._conn
                await self._conn.execute("COMMIT")
            except BaseException:
                await self._roll_back()
                raise
            finally:
                _holding.reset(token)
        count = _counting.get()
        if count is not None:
            count.commits += 1

    def aside(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """A short write that must not wait behind a PostgreSQL process's other transactions
        (:meth:`storage.postgres.PostgresDatabase.aside`); here a transaction like any other:
        one process writes a SQLite file, a transaction at a time, each short."""
        return self.transaction(row_locks=True)

    @asynccontextmanager
    async def exclusive(self, key: int) -> AsyncIterator[None]:
        """Across processes, one holder of ``key`` at a time: nothing to do here, one process
        serves a SQLite file (the bot's lock file keeps a second one out)."""
        yield

    def _held_here(self) -> bool:
        """Whether this task is inside a transaction of this database."""
        held = _holding.get()
        return held is not None and held[0] is self and held[1] is asyncio.current_task()

    @asynccontextmanager
    async def _savepoint(self) -> AsyncIterator[None]:
        name = f"part{next(self._parts)}"
        await self._conn.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            # SQLite may have rolled back the whole transaction already (a full disk): then the
            # enclosing transaction's rollback is what is left to do.
            with contextlib.suppress(sqlite3.Error):
                await self._conn.execute(f"ROLLBACK TO {name}")
                await self._conn.execute(f"RELEASE {name}")
            raise
        await self._conn.execute(f"RELEASE {name}")

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[aiosqlite.Connection]:
        """A read transaction: every query inside sees the same committed state (inside a
        transaction of this task: that transaction, with its writes so far)."""
        if self._held_here():
            yield self._conn
            return
        async with self._lock, self._faults_told():
            await self._usable_connection(writing=False)
            await self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                await self._roll_back()

    async def read(self, queries: Sequence[Query]) -> list[list[Row]]:
        """The rows of each of ``queries``, read in one read transaction (inside a transaction
        of this task: in that one). ``BEGIN``, the queries and the rollback are one call to
        the connection's thread, where :meth:`snapshot` makes a round trip of each; a single
        query needs neither ``BEGIN`` nor rollback (SQLite reads it in a transaction of its
        own), so a one-query read is one statement."""
        if self._held_here():
            return await fetch_batch(self._conn, queries)
        async with self._lock, self._faults_told():
            await self._usable_connection(writing=False)
            return await on_sqlite_thread(
                self._conn, lambda raw: self._read_on_thread(raw, queries)
            )

    def _read_on_thread(self, raw: sqlite3.Connection, queries: Sequence[Query]) -> list[list[Row]]:
        if len(queries) == 1:
            # One statement is a read transaction of its own (SQLite's autocommit): it sees one
            # committed state without a BEGIN and a ROLLBACK around it.
            return run_statements(raw, queries)
        raw.execute("BEGIN")
        try:
            return run_statements(raw, queries)
        finally:
            try:
                if raw.in_transaction:
                    raw.execute("ROLLBACK")
            except sqlite3.Error:
                self._reopen = True  # as _roll_back: the next transaction opens a new connection

    async def _roll_back(self) -> None:
        # SQLite may have rolled back already (it does on SQLITE_FULL); a rollback that fails
        # leaves the connection unusable, so the next transaction opens a new one.
        try:
            if self._conn.in_transaction:
                await self._conn.execute("ROLLBACK")
        except sqlite3.Error:
            self._reopen = True

    @asynccontextmanager
    async def _faults_told(self) -> AsyncIterator[None]:
        """SQLite's "cannot write" errors raised inside, as :class:`StorageUnavailableError`."""
        try:
            yield
        except sqlite3.Error as error:
            fault = storage_fault(error, self.path)
            if fault is None:
                raise
            if fault.fault in _REOPEN_AFTER:
                self._reopen = True
            raise fault from error

    async def _usable_connection(self, writing: bool) -> None:
        """Replace a connection that met a read-only or I/O error with a new one. Only a write
        that gets through proves the new one good: until then each transaction opens anew."""
        if not self._reopen:
            return
        fresh = await connect(self.path)
        stale, self._conn = self._conn, fresh
        self._reopen = not writing
        with contextlib.suppress(sqlite3.Error, ValueError):
            await stale.close()

    async def backup(self, target: Path) -> None:
        """Copy the database to ``target`` while the bot runs (SQLite's online backup API).

        A separate connection copies every page in one step inside one read transaction, so
        the copy is the committed state of one moment; writers are not blocked (WAL). The copy
        is written to a temporary file beside ``target`` and renamed over it when complete.
        """
        target = target.resolve()
        if target == self.path.resolve():
            raise ValueError("a backup cannot overwrite the database it copies")
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        source = await connect(self.path)
        try:
            copy = sqlite3.connect(partial, check_same_thread=False)
            try:
                await source.backup(copy, pages=0)
                copy.execute("PRAGMA journal_mode = DELETE")
            finally:
                copy.close()
        finally:
            await source.close()
        partial.replace(target)

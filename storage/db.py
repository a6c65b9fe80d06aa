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
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import aiosqlite

BUSY_TIMEOUT_MS = 10_000
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class MigrationError(RuntimeError):
    """The migration files or the database's schema version cannot be used."""


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
        await conn.executescript("BEGIN IMMEDIATE;\n" + migration.sql)
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


def database_problem(path: Path) -> str | None:
    """Why the database file cannot answer a read right now, or ``None`` if it can (for a
    health check: opens read-only, runs one small query, closes)."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            conn.execute("SELECT count(*) FROM campaigns").fetchone()
    except sqlite3.Error as error:
        return f"database {path} does not answer: {error}"
    return None


async def connect(path: Path) -> aiosqlite.Connection:
    """A connection with the settings above, schema not touched. The caller closes it."""
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

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self._open = True
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
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction: ``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error."""
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                await self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")
                raise

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[aiosqlite.Connection]:
        """A read transaction: every query inside sees the same committed state."""
        async with self._lock:
            await self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")

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

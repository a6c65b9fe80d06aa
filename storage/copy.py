"""Moving a club's SQLite database to PostgreSQL with nothing lost.

``python -m storage copy sqlite:///data/strategium.sqlite3 postgresql://...`` brings both
schemas to the latest version, refuses a target that holds any row, copies every table in one
PostgreSQL transaction (parents before the tables that point at them, ids kept, identity
counters moved past the copied ids), then reads both sides back and compares, per table, the
number of rows and a SHA-256 of all of them (rows in a canonical order, every value as its
JSON text). Stop the bot first: rows written after the copy started are not in it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

from storage.db import Database
from storage.postgres import PostgresDatabase


class CopyRefusedError(ValueError):
    """The copy cannot start (a target that is not empty, a source that is not a file)."""


@dataclass(frozen=True)
class TableCheck:
    """One table on both sides after the copy."""

    table: str
    source_rows: int
    target_rows: int
    source_sha256: str
    target_sha256: str

    @property
    def same(self) -> bool:
        return (self.source_rows, self.source_sha256) == (self.target_rows, self.target_sha256)


def _checksum(rows: list[tuple[Any, ...]]) -> str:
    lines = sorted(json.dumps(list(row), ensure_ascii=False, default=str) for row in rows)
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode())
        digest.update(b"\n")
    return digest.hexdigest()


def _tables_in_order(source: sqlite3.Connection) -> list[str]:
    """Every table, each after the tables its foreign keys point at."""
    names = [
        str(row[0])
        for row in source.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    parents = {
        name: {
            str(row[2])
            for row in source.execute(f'PRAGMA foreign_key_list("{name}")')
            if str(row[2]) != name
        }
        for name in names
    }
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and parents[n] <= set(ordered)]
        if not ready:
            raise CopyRefusedError(f"foreign keys form a cycle among {set(names) - set(ordered)}")
        ordered.extend(ready)
    return ordered


def _columns(source: sqlite3.Connection, table: str) -> list[str]:
    return [str(row[1]) for row in source.execute(f'PRAGMA table_info("{table}")')]


async def copy_database(source: Path, target_url: str) -> list[TableCheck]:
    """Copy the SQLite file ``source`` into the empty PostgreSQL database ``target_url``; the
    check of every table (see the module's docstring)."""
    if not source.is_file():
        raise CopyRefusedError(f"no SQLite database at {source}")
    migrated = await Database.open(source)
    await migrated.close()
    await (await PostgresDatabase.open(target_url)).close()
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as reader:
        tables = _tables_in_order(reader)
        columns = {table: _columns(reader, table) for table in tables}
        data = {
            table: [tuple(row) for row in reader.execute(f'SELECT * FROM "{table}"')]
            for table in tables
        }
    target = await asyncpg.connect(target_url)
    try:
        taken = [t for t in tables if await target.fetchval(f'SELECT count(*) FROM "{t}"')]
        if taken:
            raise CopyRefusedError(f"the target database is not empty: {', '.join(taken)}")
        async with target.transaction():
            for table in tables:
                if data[table]:
                    await target.copy_records_to_table(
                        table, records=data[table], columns=columns[table]
                    )
                counter = (
                    await target.fetchval("SELECT pg_get_serial_sequence($1, 'id')", table)
                    if "id" in columns[table]
                    else None
                )
                if counter is not None:
                    await target.execute(
                        "SELECT setval($1, COALESCE(MAX(id), 1), MAX(id) IS NOT NULL)"
                        f' FROM "{table}"',
                        counter,
                    )
        checks = []
        for table in tables:
            names = ", ".join(f'"{column}"' for column in columns[table])
            copied = [tuple(row) for row in await target.fetch(f'SELECT {names} FROM "{table}"')]
            checks.append(
                TableCheck(
                    table=table,
                    source_rows=len(data[table]),
                    target_rows=len(copied),
                    source_sha256=_checksum(data[table]),
                    target_sha256=_checksum(copied),
                )
            )
        return checks
    finally:
        await target.close()

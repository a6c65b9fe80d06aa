"""Small SQL helpers shared by the storage modules: time text, JSON text, row access."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import aiosqlite

from storage.models import utc


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


Row = sqlite3.Row
Conn = aiosqlite.Connection


async def fetch_one(conn: Conn, sql: str, params: Sequence[Any] = ()) -> Row | None:
    """The first row of a query, or ``None``."""
    async with conn.execute(sql, params) as cursor:
        row: Row | None = await cursor.fetchone()
    return row


async def fetch_all(conn: Conn, sql: str, params: Sequence[Any] = ()) -> list[Row]:
    """Every row of a query."""
    async with conn.execute(sql, params) as cursor:
        rows = await cursor.fetchall()
    return list(rows)


async def changed_rows(conn: Conn, sql: str, params: Sequence[Any] = ()) -> int:
    """Run a statement; how many rows it changed."""
    async with conn.execute(sql, params) as cursor:
        return cursor.rowcount


async def insert_row(conn: Conn, sql: str, params: Sequence[Any] = ()) -> int:
    """Run an INSERT; the new row's id."""
    async with conn.execute(sql, params) as cursor:
        row_id = cursor.lastrowid
    if row_id is None:
        raise RuntimeError(f"insert returned no row id: {sql}")
    return row_id

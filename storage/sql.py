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


# A query is one call to aiosqlite's thread (``execute_fetchall``), not three (execute, fetch,
# close): each call is a round trip between the event loop and that thread, and those round
# trips are most of what an update costs (bench/bot_bench.py, "hops/u").


async def fetch_one(conn: Conn, sql: str, params: Sequence[Any] = ()) -> Row | None:
    """The first row of a query, or ``None`` (for queries of one row or a few)."""
    rows = await conn.execute_fetchall(sql, params)
    return next(iter(rows), None)


async def fetch_all(conn: Conn, sql: str, params: Sequence[Any] = ()) -> list[Row]:
    """Every row of a query."""
    return list(await conn.execute_fetchall(sql, params))


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

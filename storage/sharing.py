"""Work that several bot processes on one database share: Telegram's updates taken once, its
sending limits kept together, a campaign's scheduled run in one process at a time.

On SQLite one process serves a file, so these hold trivially; on PostgreSQL in webhook mode
several processes serve one database (docs/storage.md, «Several processes»).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from storage.dialect import FOR_UPDATE
from storage.models import CampaignId
from storage.sql import Transactions, changed_rows, dump_json, fetch_all, ts


@dataclass(frozen=True)
class SendWindow:
    """At most ``limit`` requests in any ``period`` seconds, counted in the row ``scope``
    (``bot``, ``chat:<id>``)."""

    scope: str
    limit: int
    period: float


class SharingStore(Protocol):
    """The part of the store that several processes share."""

    async def take_update(self, update_id: int, now: datetime) -> bool: ...
    async def reserve_send(self, windows: Sequence[SendWindow], now: float) -> float: ...
    async def forget_shared_work(self, before: datetime) -> int: ...
    def scheduled_run(self, campaign_id: CampaignId) -> AbstractAsyncContextManager[None]: ...


class SharingRecords:
    """:class:`SharingStore` in SQL (mixed into ``SqlCampaignStore``)."""

    _db: Transactions

    async def take_update(self, update_id: int, now: datetime) -> bool:
        """Whether this is the first time any process takes Telegram's update ``update_id``
        (False: another process took it, or this one did before)."""
        async with self._db.transaction(row_locks=True) as conn:
            return (
                await changed_rows(
                    conn,
                    "INSERT INTO seen_updates (update_id, seen_at) VALUES (?, ?)"
                    " ON CONFLICT (update_id) DO NOTHING",
                    (update_id, ts(now)),
                )
                == 1
            )

    async def reserve_send(self, windows: Sequence[SendWindow], now: float) -> float:
        """Take a place for one request at ``now`` in every window, or in none: 0.0 when taken,
        else the seconds until one more request fits them all (then try again).

        ``now`` is in seconds on a clock every process shares (Unix time). The windows' rows
        are locked in the order of their names while this runs, so senders of several
        processes take turns on them and never overfill one.
        """
        ordered = sorted(windows, key=lambda window: window.scope)
        scopes = [window.scope for window in ordered]
        marks = ", ".join("?" for _ in scopes)
        stamp = ts(datetime.fromtimestamp(now, UTC))
        async with self._db.transaction(row_locks=True) as conn:
            await conn.executemany(
                "INSERT INTO send_windows (scope, times_json, last_at) VALUES (?, '[]', ?)"
                " ON CONFLICT (scope) DO NOTHING",
                [(scope, stamp) for scope in scopes],
            )
            rows = await fetch_all(
                conn,
                f"SELECT scope, times_json FROM send_windows WHERE scope IN ({marks})"
                f" ORDER BY scope{FOR_UPDATE[self._db.dialect]}",
                scopes,
            )
            held = {row["scope"]: [float(t) for t in json.loads(row["times_json"])] for row in rows}
            kept: dict[str, list[float]] = {}
            wait = 0.0
            for window in ordered:
                # Two processes' clocks read a moment apart may commit in the other order.
                times = sorted(t for t in held.get(window.scope, []) if t + window.period > now)
                times = times[-window.limit :]
                if len(times) >= window.limit:
                    wait = max(wait, times[len(times) - window.limit] + window.period - now)
                kept[window.scope] = times
            if wait > 0:
                return wait
            await conn.executemany(
                "UPDATE send_windows SET times_json = ?, last_at = ? WHERE scope = ?",
                [(dump_json([*kept[w.scope], now][-w.limit :]), stamp, w.scope) for w in ordered],
            )
        return 0.0

    async def forget_shared_work(self, before: datetime) -> int:
        """Drop updates taken and send windows last used before ``before``; how many rows."""
        async with self._db.transaction(row_locks=True) as conn:
            updates = await changed_rows(
                conn, "DELETE FROM seen_updates WHERE seen_at < ?", (ts(before),)
            )
            windows = await changed_rows(
                conn, "DELETE FROM send_windows WHERE last_at < ?", (ts(before),)
            )
        return updates + windows

    def scheduled_run(self, campaign_id: CampaignId) -> AbstractAsyncContextManager[None]:
        """While held, no other process runs this campaign's scheduled steps (it waits)."""
        return self._db.exclusive(campaign_id)

"""Work that several bot processes on one database share: Telegram's updates taken once, its
sending limits kept together, a campaign's scheduled run in one process at a time.

On SQLite one process serves a file, so these hold trivially; on PostgreSQL in webhook mode
several processes serve one database (docs/storage.md, «Several processes»).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import Enum
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


class UpdateTake(Enum):
    """What :meth:`SharingStore.take_update` found."""

    TAKEN = "taken"
    """This process has it now (first, or the lease of the one that had it ran out)."""
    HELD = "held"
    """Another process (or this one) is handling it and its lease is running: try later."""
    DONE = "done"
    """It was handled to the end: drop it."""


class SharingStore(Protocol):
    """The part of the store that several processes share."""

    async def take_update(self, update_id: int, now: datetime, lease: timedelta) -> UpdateTake: ...
    async def finish_update(self, update_id: int, now: datetime) -> None: ...
    async def reserve_send(
        self, windows: Sequence[SendWindow], wall: Callable[[], float]
    ) -> float: ...
    async def forget_shared_work(self, before: datetime) -> int: ...
    def scheduled_run(self, campaign_id: CampaignId) -> AbstractAsyncContextManager[None]: ...


class SharingRecords:
    """:class:`SharingStore` in SQL (mixed into ``SqlCampaignStore``)."""

    _db: Transactions

    async def take_update(self, update_id: int, now: datetime, lease: timedelta) -> UpdateTake:
        """Take Telegram's update ``update_id`` for ``lease``: :attr:`UpdateTake.TAKEN` the first
        time, or when the process that took it did not finish it within its lease (it died: this
        is Telegram's retry); else :attr:`UpdateTake.HELD` (being handled) or
        :attr:`UpdateTake.DONE` (handled). Two processes taking it at once: one gets it."""
        taken_at, lease_until = ts(now), ts(now + lease)
        async with self._db.transaction(row_locks=True) as conn:
            if await changed_rows(
                conn,
                "INSERT INTO seen_updates (update_id, taken_at, lease_until) VALUES (?, ?, ?)"
                " ON CONFLICT (update_id) DO UPDATE SET taken_at = excluded.taken_at,"
                " lease_until = excluded.lease_until"
                " WHERE seen_updates.done_at IS NULL AND seen_updates.lease_until <= ?",
                (update_id, taken_at, lease_until, taken_at),
            ):
                return UpdateTake.TAKEN
            rows = await fetch_all(
                conn, "SELECT done_at FROM seen_updates WHERE update_id = ?", (update_id,)
            )
        return UpdateTake.DONE if rows and rows[0]["done_at"] is not None else UpdateTake.HELD

    async def finish_update(self, update_id: int, now: datetime) -> None:
        """Note that update ``update_id`` was handled to the end: a retry of it is dropped."""
        async with self._db.transaction(row_locks=True) as conn:
            await conn.execute(
                "UPDATE seen_updates SET done_at = ? WHERE update_id = ?", (ts(now), update_id)
            )

    async def reserve_send(self, windows: Sequence[SendWindow], wall: Callable[[], float]) -> float:
        """Take a place for one request in every window, or in none: 0.0 when taken, else the
        seconds until one more request fits them all (then try again).

        ``wall`` is a clock every process shares (Unix time, kept by NTP). It is read once the
        windows' rows are locked (in the order of their names), so the time a request is
        counted at is the time it took its place: a sender that waited for the rows (another
        process had them, or this process's connection was busy) counts from when it got them,
        not from before. On PostgreSQL it runs on the process's second connection
        (``aside()``), so it does not queue behind a write waiting for another process's write
        lock. The windows hold as far as the processes' clocks agree: a time stamped by a clock
        running ahead is counted until the others' clocks pass it (it only holds a place
        longer); one stamped by a clock running behind is in the past for the others, who stop
        counting it early, so that process's requests can go beyond a window's limit.
        """
        ordered = sorted(windows, key=lambda window: window.scope)
        scopes = [window.scope for window in ordered]
        marks = ", ".join("?" for _ in scopes)
        async with self._db.aside() as conn:
            first_use = _stamp(wall())
            await conn.executemany(
                "INSERT INTO send_windows (scope, times_json, last_at) VALUES (?, '[]', ?)"
                " ON CONFLICT (scope) DO NOTHING",
                [(scope, first_use) for scope in scopes],
            )
            rows = await fetch_all(
                conn,
                f"SELECT scope, times_json FROM send_windows WHERE scope IN ({marks})"
                f" ORDER BY scope{FOR_UPDATE[self._db.dialect]}",
                scopes,
            )
            now = wall()
            stamp = _stamp(now)
            held = {row["scope"]: [float(t) for t in json.loads(row["times_json"])] for row in rows}
            kept: dict[str, list[float]] = {}
            wait = 0.0
            for window in ordered:
                times = sorted(held.get(window.scope, []))
                # Pruned from this caller's ``now``, never from the newest time kept: one
                # process whose clock runs ahead would prune everyone else's times and the
                # window would never fill. A time ahead of ``now`` is kept and counted. A caller
                # whose clock runs a little behind another's, writing after it, must still find
                # the times of the period before its ``now``: so each window keeps the two
                # periods before ``now`` and anything after it.
                kept[window.scope] = [t for t in times if t + 2 * window.period > now]
                counted = [t for t in times if t + window.period > now]
                if len(counted) >= window.limit:
                    wait = max(wait, counted[len(counted) - window.limit] + window.period - now)
            if wait > 0:
                return wait
            await conn.executemany(
                "UPDATE send_windows SET times_json = ?, last_at = ? WHERE scope = ?",
                [
                    (dump_json(sorted([*kept[w.scope], now])[-2 * w.limit :]), stamp, w.scope)
                    for w in ordered
                ],
            )
        return 0.0

    async def forget_shared_work(self, before: datetime) -> int:
        """Drop updates taken and send windows last used before ``before``; how many rows."""
        async with self._db.transaction(row_locks=True) as conn:
            updates = await changed_rows(
                conn, "DELETE FROM seen_updates WHERE taken_at < ?", (ts(before),)
            )
            windows = await changed_rows(
                conn, "DELETE FROM send_windows WHERE last_at < ?", (ts(before),)
            )
        return updates + windows

    def scheduled_run(self, campaign_id: CampaignId) -> AbstractAsyncContextManager[None]:
        """While held, no other process runs this campaign's scheduled steps (it waits)."""
        return self._db.exclusive(campaign_id)


def _stamp(unix: float) -> str:
    """A Unix time as storage keeps times."""
    return ts(datetime.fromtimestamp(unix, UTC))

"""The bot's memory: bytes held per idle campaign and per active player (Python heap and RSS).

Run from the repository root:
``.venv/bin/python bench/memory_bench.py [--campaigns 100,1000] [--players 100,300]``.

Databases are seeded once through the storage API (``bench/_setup.py``: campaigns in turn 1's
orders phase, four sides of two strategists each) and copied for every measurement. Each
measurement runs in a fresh Python process that opens its copy as the bot does after a restart
(store, real dispatcher on a mocked Telegram session, catalogs), takes a baseline, does the
work, runs ``gc.collect()`` and measures again; the difference is divided by the count. Each is
done twice: once for the resident set size (``VmRSS``: everything, SQLite's page cache and
freed-but-kept allocator pages included) and once under ``tracemalloc`` (live Python objects
only; its own bookkeeping would inflate the RSS, hence the two processes). Before each reading
aiogram's cache of the last 128 updates is emptied (``Update.event_type`` is an ``lru_cache``
keyed by the update: bounded, but it would be counted as growth).

* Idle campaign: ``CampaignScheduler.rebuild()`` on a database of K campaigns (the clock is
  Tuesday 10:00, orders open, nothing due): each campaign's clock row is brought up to date
  and its four APScheduler jobs (three weekly cron jobs and a date job at its next reminder or
  deadline) are planned, as at start. APScheduler is started paused, so no job runs. Growth / K.
* Active player: P players (after a warm-up batch, not counted) each send ``/orders``, tap
  sector, Move, destination and a count button (six updates), fifty at a time. Then every
  player presses ``--presses`` more order buttons (growth per update: memory that grows with
  use). Growth / P is measured after that, once the bench dropped its own records of the
  players (the figure ``bench KiB/p`` is what those records held).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _setup import (
    MONDAY,
    PLAYERS_PER_CAMPAIGN,
    TUESDAY,
    Player,
    machine_line,
    open_move_screen,
    rss_bytes,
    seed_campaigns,
)
from aiogram.types import Update
from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]

from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.services.schedule import CampaignScheduler
from bot.texts.i18n import build_i18n
from storage import SqliteCampaignStore, Store
from tests.bot.telegram import FakeTelegram

BATCH = 50
"""Players acting at once."""
TOP_SITES = 6
"""Allocation sites listed per heap measurement."""


@dataclass(frozen=True)
class Measured:
    """One child's figures, in bytes: what the work left held (after the extra presses, and
    without the bench's own records of the players), what the extra presses added, what the
    bench's records held, and the biggest allocation sites."""

    grown: int
    grown_more: int
    bench_held: int
    sites: list[str]
    seconds: float


def measure_now(heap: bool) -> int:
    """Bytes now: live traced Python memory, or the RSS; after emptying aiogram's cache of the
    last 128 updates (``Update.event_type`` is an ``lru_cache`` keyed by the update) and a full
    collection."""
    cached = getattr(Update.__dict__["event_type"], "fget", None)
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()
    gc.collect()
    return tracemalloc.get_traced_memory()[0] if heap else rss_bytes()


def our_sites(snapshot: tracemalloc.Snapshot, root: Path) -> list[str]:
    """The biggest allocation sites, each named by its innermost frame in this repository's
    code, and by the innermost frame of all when that is elsewhere (a library)."""
    totals: dict[str, int] = {}
    for trace in snapshot.traces:
        frames = list(trace.traceback)  # oldest first
        inner = frames[-1]
        ours = next(
            (f for f in reversed(frames) if f.filename.startswith(str(root))
             and "/.venv/" not in f.filename),
            inner,
        )  # fmt: skip
        name = f"{Path(ours.filename).name}:{ours.lineno}"
        if inner is not ours:
            name += f" via {Path(inner.filename).name}:{inner.lineno}"
        totals[name] = totals.get(name, 0) + trace.size
    ranked = sorted(totals.items(), key=lambda item: -item[1])[:TOP_SITES]
    return [f"{size / 1024:>9.1f} KiB  {name}" for name, size in ranked]


async def measured(
    heap: bool,
    frames: int,
    work: Callable[[], Awaitable[None]],
    more: Callable[[], Awaitable[None]] | None = None,
    release: Callable[[], None] | None = None,
) -> Measured:
    """Baseline, ``work``, measure, ``more`` (extra updates), measure, ``release`` (the bench
    drops its own records), measure."""
    started = time.perf_counter()
    if heap:
        tracemalloc.start(frames)
    base = measure_now(heap)
    await work()
    after = measure_now(heap)
    if more is not None:
        await more()
    later = measure_now(heap)
    if release is not None:
        release()
    final = measure_now(heap)
    sites: list[str] = []
    if heap:
        sites = our_sites(tracemalloc.take_snapshot(), Path(__file__).resolve().parents[1])
        tracemalloc.stop()
    return Measured(
        grown=final - base,
        grown_more=later - after,
        bench_held=later - final,
        sites=sites,
        seconds=time.perf_counter() - started,
    )


async def idle_child(database: Path, heap: bool, frames: int) -> Measured:
    """Plan every campaign of ``database`` as the bot does at start; what that holds."""
    store: Store = await SqliteCampaignStore.open(database)
    try:
        clock = ManualClock(TUESDAY)
        build_dispatcher(store, clock, build_i18n())
        scheduler = CampaignScheduler(
            store,
            clock,
            scheduler=AsyncIOScheduler(
                job_defaults={"coalesce": True, "misfire_grace_time": None, "max_instances": 1}
            ),
        )
        scheduler.scheduler.start(paused=True)
        result = await measured(heap, frames, scheduler.rebuild)
        jobs = len(scheduler.scheduler.get_jobs())
        campaigns = len(await store.unfinished_campaigns())
        if jobs < 4 * campaigns:
            raise RuntimeError(f"{jobs} jobs planned for {campaigns} campaigns")
        scheduler.shutdown()
        return result
    finally:
        await store.close()


async def active_child(
    database: Path, players: int, presses: int, heap: bool, frames: int
) -> Measured:
    """``players`` players open their orders and press; what that holds, and what more
    presses add. A warm-up batch of players goes first (not counted), so the baseline holds
    what a batch of fifty concurrent updates leaves behind once."""
    store: Store = await SqliteCampaignStore.open(database)
    try:
        clock = ManualClock(TUESDAY)
        telegram = FakeTelegram(build_dispatcher(store, clock, build_i18n()))
        users: list[tuple[int, int]] = []
        for campaign in await store.unfinished_campaigns():
            for member in await store.members(campaign.id):
                if not member.is_gm:
                    users.append((member.user_id, len(users) % 2))
        warm, counted = users[:BATCH], users[BATCH:]
        if len(counted) < players:
            raise RuntimeError(f"the database has {len(counted)} players, {players} wanted")
        counted = counted[:players]
        for user, _slot in users:
            telegram.user(user, f"Player {user}")
        kept: list[Player] = []

        async def act(batch: list[tuple[int, int]]) -> None:
            opened = await asyncio.gather(
                *(open_move_screen(telegram, telegram.users[user], slot) for user, slot in batch)
            )
            kept.extend(opened)
            await press(opened)

        async def press(chosen: list[Player]) -> None:
            await asyncio.gather(
                *(
                    telegram.dispatcher.feed_update(telegram.bot, p.press(telegram, p.next_move()))
                    for p in chosen
                )
            )
            telegram.take()
            telegram.session.shown.clear()

        await act(warm)
        kept.clear()

        async def everyone() -> None:
            for start in range(0, len(counted), BATCH):
                await act(counted[start : start + BATCH])

        async def more() -> None:
            for _ in range(presses):
                for start in range(0, len(kept), BATCH):
                    await press(kept[start : start + BATCH])

        return await measured(heap, frames, everyone, more, kept.clear)
    finally:
        await store.close()


def child(options: argparse.Namespace) -> None:
    """Run one measurement on a copy of the database and print it as JSON."""
    with tempfile.TemporaryDirectory(prefix="memory-bench-", dir=options.dir) as folder:
        database = Path(folder) / "copy.sqlite3"
        shutil.copyfile(options.database, database)
        heap = options.measure == "heap"
        if options.child == "idle":
            result = asyncio.run(idle_child(database, heap, options.frames))
        else:
            result = asyncio.run(
                active_child(database, options.size, options.presses, heap, options.frames)
            )
    print(json.dumps(result.__dict__))


async def seed(path: Path, count: int, first: int, source: Path | None) -> None:
    """A database of ``first + count`` campaigns: a copy of ``source`` plus ``count`` more."""
    if source is not None:
        shutil.copyfile(source, path)
    store = await SqliteCampaignStore.open(path)
    try:
        await seed_campaigns(store, ManualClock(MONDAY), count, first)
    finally:
        await store.close()


def run_child(arguments: list[str]) -> Measured:
    """This script as a fresh process; its JSON answer."""
    done = subprocess.run(
        [sys.executable, __file__, *arguments], check=True, capture_output=True, text=True
    )
    data: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return Measured(**data)


def per(total: int, count: int) -> str:
    """Bytes per item, in KiB."""
    return f"{total / count / 1024:>10.2f}"


def seed_all(folder: Path, sizes: list[int]) -> dict[int, Path]:
    """A database per size, each the previous one plus more campaigns."""
    databases: dict[int, Path] = {}
    previous: tuple[int, Path] | None = None
    started = time.perf_counter()
    for size in sizes:
        path = folder / f"seed-{size}.sqlite3"
        first, source = (0, None) if previous is None else previous
        asyncio.run(seed(path, size - first, first, source))
        databases[size] = path
        previous = (size, path)
    print(
        f"seeded databases of {', '.join(map(str, sizes))} campaigns"
        f" ({PLAYERS_PER_CAMPAIGN} players each) in {time.perf_counter() - started:.0f} s"
    )
    return databases


def both(arguments: list[str]) -> tuple[Measured, Measured]:
    """The heap and the RSS measurement, each in its own process."""
    return run_child([*arguments, "--measure", "heap"]), run_child([*arguments, "--measure", "rss"])


def print_sites(found: dict[int, tuple[Measured, Measured]], what: str) -> None:
    """The biggest live allocation sites of each heap measurement."""
    for size, (heap, _rss) in found.items():
        print(f"  biggest live allocations after {size} {what}:")
        for line in heap.sites:
            print(f"    {line}")


def idle_table(databases: dict[int, Path], sizes: list[int], common: list[str]) -> None:
    """Measure and print the idle campaigns."""
    print("\nIdle campaigns (CampaignScheduler.rebuild: a clock row and four jobs each)")
    print(
        f"  {'campaigns':>9} {'heap KiB/c':>10} {'RSS KiB/c':>10} {'heap MiB':>9} {'RSS MiB':>8}"
        f" {'seconds':>8}"
    )
    idle: dict[int, tuple[Measured, Measured]] = {}
    for size in sizes:
        heap, rss = both(["--child", "idle", "--database", str(databases[size]), *common])
        idle[size] = (heap, rss)
        print(
            f"  {size:>9} {per(heap.grown, size)} {per(rss.grown, size)}"
            f" {heap.grown / 2**20:>9.2f} {rss.grown / 2**20:>8.2f}"
            f" {heap.seconds + rss.seconds:>8.0f}"
        )
    slope(idle, "campaign")
    print_sites(idle, "campaigns planned")


def active_table(
    databases: dict[int, Path], players_sizes: list[int], presses: int, common: list[str]
) -> None:
    """Measure and print the active players."""
    print(
        f"\nActive players (/orders, sector, Move, destination, count: six updates each;"
        f" then {presses} more order presses each)"
    )
    print(
        f"  {'players':>9} {'heap KiB/p':>10} {'RSS KiB/p':>10} {'heap MiB':>9} {'RSS MiB':>8}"
        f" {'heap B/upd':>10} {'RSS B/upd':>10} {'bench KiB/p':>11} {'seconds':>8}"
    )
    active: dict[int, tuple[Measured, Measured]] = {}
    for players in players_sizes:
        size = min(s for s in databases if s >= campaigns_for(players))
        database = str(databases[size])
        heap, rss = both(
            ["--child", "active", "--database", database, "--size", str(players), *common]
        )
        active[players] = (heap, rss)
        updates = max(1, players * presses)
        print(
            f"  {players:>9} {per(heap.grown, players)} {per(rss.grown, players)}"
            f" {heap.grown / 2**20:>9.2f} {rss.grown / 2**20:>8.2f}"
            f" {heap.grown_more / updates:>10.1f} {rss.grown_more / updates:>10.1f}"
            f" {heap.bench_held / players / 1024:>11.2f} {heap.seconds + rss.seconds:>8.0f}"
        )
    slope(active, "player")
    print_sites(active, "players acted")


def campaigns_for(players: int) -> int:
    """Campaigns a database needs for ``players`` active players and the warm-up batch."""
    return math.ceil((BATCH + players) / PLAYERS_PER_CAMPAIGN)


def main() -> None:
    """Seed the databases, run every measurement in its own process, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--campaigns",
        type=counts,
        default=[100, 1000],
        help="idle campaigns per measurement, comma-separated (default 100,1000)",
    )
    parser.add_argument(
        "--players",
        type=counts,
        default=[100, 300],
        help="active players per measurement, comma-separated (default 100,300; 1000 adds"
        " about six minutes)",
    )
    parser.add_argument(
        "--presses",
        type=int,
        default=2,
        help="extra order presses per active player, for growth per update (default 2)",
    )
    parser.add_argument(
        "--frames",
        type=int,
        default=1,
        help="frames tracemalloc keeps per allocation: 1 is fast; 8 names the allocation"
        " sites in our code (several times slower)",
    )
    parser.add_argument("--dir", type=Path, default=None, help="folder for the databases")
    parser.add_argument("--child", choices=("idle", "active"), help=argparse.SUPPRESS)
    parser.add_argument("--database", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--measure", choices=("rss", "heap"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child(options)
        return
    if options.presses < 0 or options.frames < 1:
        parser.error("--presses must not be negative, --frames at least 1")
    print(machine_line())
    started = time.perf_counter()
    sizes = sorted({*options.campaigns, *map(campaigns_for, options.players)})
    with tempfile.TemporaryDirectory(prefix="memory-bench-", dir=options.dir) as folder:
        databases = seed_all(Path(folder), sizes)
        common = ["--dir", folder, "--presses", str(options.presses)]
        common += ["--frames", str(options.frames)]
        idle_table(databases, options.campaigns, common)
        active_table(databases, options.players, options.presses, common)
    print(f"\n{time.perf_counter() - started:.0f} s in all")
    print(machine_line())


def slope(found: dict[int, tuple[Measured, Measured]], what: str) -> None:
    """The marginal cost between the smallest and the largest size (fixed costs cancel)."""
    if len(found) < 2:
        return
    low, high = min(found), max(found)
    heap = (found[high][0].grown - found[low][0].grown) / (high - low)
    rss = (found[high][1].grown - found[low][1].grown) / (high - low)
    print(
        f"  marginal, {low} -> {high}: heap {heap / 1024:.2f} KiB, RSS {rss / 1024:.2f} KiB"
        f" per {what}"
    )


def counts(text: str) -> list[int]:
    """``100,1000`` -> [100, 1000]."""
    found = [int(part) for part in text.split(",") if part.strip()]
    if not found or min(found) < 1:
        raise argparse.ArgumentTypeError("a comma-separated list of positive numbers")
    return found


if __name__ == "__main__":
    main()

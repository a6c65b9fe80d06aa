"""The bot under load: updates per second, p50/p99 latency and CPU of order button presses,
on SQLite and on PostgreSQL side by side.

Every update goes through the real dispatcher with a mocked Telegram session, on a SQLite file
on disk and on a throwaway PostgreSQL server (tests/postgres_server.py: the machine's PostgreSQL
binaries, a new cluster in a temporary folder, durability off as in the tests).

Run from the repository root:
``.venv/bin/python bench/bot_bench.py [--players 1,10,100,1000] [--backend sqlite,postgresql]``.

Campaigns are seeded through the storage API (``bench/_setup.py``): eight strategists each
(four sides of two), in turn 1's orders phase. The clock is then Tuesday 10:00 of that
week, when the orders window is open. Each player sends ``/orders`` and taps sector -> Move ->
destination through the dispatcher (not timed), reaching the "how many armies" screen.

Timed: for each N, rounds in which the first N players (eight per campaign, so N players span
N/8 campaigns; four with ``--one-per-side``) each send one update at once (``asyncio.gather``
of ``Dispatcher.feed_update``):

* ``order``: the count button. It alternates between 1 and 2 armies, so every press saves a
  changed order (a write transaction, fsynced on SQLite), queues the side's notices and edits
  the screen. A side's two strategists press at the same moment, so their saves race
  (compare-and-set).
* ``sector``: the sector button of the ``/orders`` screen (reads; shows the sector's choices).
* ``/orders``: the command (reads; sends the screen anew).

``cpu p50`` is the median over the rounds of a round's CPU per update.

Latency is one ``feed_update`` from start to end (it includes waiting for the others: they
share one event loop and one database connection); throughput is updates per second of wall
time. ``cpu ms/u`` is the bot process's CPU time (all threads) per update, less moved by other
load on the machine than the wall-clock figures (though not immune to it on a shared VM);
``cpu`` is that CPU time over wall time; ``srv ms/u`` is PostgreSQL's CPU time per update (its
processes, from ``/proc``; SQLite's work is inside the bot's process). ``hops/u`` counts round
trips to the database per update (calls to aiosqlite's worker thread, or asyncpg's calls to the
server: :class:`HopCounter`); ``reads/u`` and ``writes/u`` count the store's read snapshots and
write transactions per update (``tests/transactions.py``). The last table puts both backends
side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
from _setup import (
    MONDAY,
    SIDES,
    STRATEGISTS_PER_SIDE,
    TUESDAY,
    Player,
    machine_line,
    null_logs,
    open_move_screen,
    quantile,
    seed_campaigns,
)
from aiogram.methods import AnswerCallbackQuery, SendMessage
from aiogram.types import Update
from aiogram.utils.i18n import I18n

from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.texts.i18n import build_i18n
from storage import PostgresCampaignStore, SqliteCampaignStore, Store
from tests.bot.telegram import FakeTelegram
from tests.postgres_server import PostgresServer
from tests.transactions import TransactionCount, count_transactions

Outcomes = Callable[[FakeTelegram], Counter[str]]
"""Sorts the requests of a round into what the bot answered."""
PREPARE_BATCH = 50
"""Players prepared at once (their screens are found among this batch's requests)."""


class HopCounter:
    """Counts round trips to the database: calls handed to aiosqlite's worker thread (each
    ``execute``, ``fetchall``, ``commit`` ... is one trip between the event loop and that
    thread), by wrapping ``aiosqlite.Connection._execute``; and asyncpg's calls that go to the
    server and wait for its answer (``execute``, ``fetch``, ``fetchval``, ``fetchrow``,
    ``executemany``), by wrapping those methods of ``asyncpg.Connection``. For this process."""

    def __init__(self) -> None:
        self.count = 0
        self._wrap(aiosqlite.Connection, "_execute")
        for name in ("execute", "fetch", "fetchval", "fetchrow", "executemany"):
            self._wrap(asyncpg.connection.Connection, name)

    def _wrap(self, owner: type, name: str) -> None:
        original: Callable[..., Awaitable[Any]] = getattr(owner, name)

        async def counted(connection: Any, *args: Any, **kw: Any) -> Any:
            self.count += 1
            return await original(connection, *args, **kw)

        setattr(owner, name, counted)


class ServerCpu:
    """The CPU time (seconds) PostgreSQL's processes used so far: the postmaster and its
    children (the bench's connection's backend among them), from ``/proc``. Zero for SQLite,
    which runs inside the bot's process (its CPU is in ``cpu ms/u``)."""

    def __init__(self, data_folder: Path | None) -> None:
        self._postmaster: int | None = None
        if data_folder is not None:
            pid_file = data_folder / "postmaster.pid"
            self._postmaster = int(pid_file.read_text(encoding="ascii").split()[0])
        self._tick = os.sysconf("SC_CLK_TCK")

    def seconds(self) -> float:
        """CPU seconds of the server's processes now."""
        if self._postmaster is None:
            return 0.0
        ticks = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text(encoding="ascii")
            except OSError:
                continue  # the process ended meanwhile
            fields = text.rsplit(")", 1)[1].split()
            pid, parent = int(stat.parent.name), int(fields[1])
            if self._postmaster in (pid, parent):
                ticks += int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / self._tick


HOPS = HopCounter()


@dataclass(frozen=True)
class Round:
    """One round: per-update latencies (seconds), wall time, the bot's and the database
    server's CPU time, round trips, transactions, and what the bot answered."""

    latencies: list[float]
    wall: float
    cpu: float
    server_cpu: float
    hops: int
    reads: int
    writes: int
    outcomes: Counter[str]
    requests: int


@dataclass(frozen=True)
class Meter:
    """What a round is measured with: the store's transaction count and the server's CPU."""

    transactions: TransactionCount
    server: ServerCpu


async def play_round(
    telegram: FakeTelegram, updates: list[Update], check: Outcomes, meter: Meter
) -> Round:
    """Feed ``updates`` at once; time each and the whole; count the store's transactions."""
    telegram.take()
    latencies: list[float] = []
    clock = time.perf_counter

    async def one(update: Update) -> None:
        before = clock()
        await telegram.dispatcher.feed_update(telegram.bot, update)
        latencies.append(clock() - before)

    counted = meter.transactions
    server_cpu = meter.server.seconds()
    started, cpu, hops = clock(), time.process_time(), HOPS.count
    reads, writes = counted.reads, counted.writes
    await asyncio.gather(*(one(update) for update in updates))
    wall, cpu, hops = clock() - started, time.process_time() - cpu, HOPS.count - hops
    reads, writes = counted.reads - reads, counted.writes - writes
    server_cpu = meter.server.seconds() - server_cpu
    requests = len(telegram.sent)
    outcomes = check(telegram)
    telegram.take()
    telegram.session.shown.clear()
    return Round(
        latencies=latencies,
        wall=wall,
        cpu=cpu,
        server_cpu=server_cpu,
        hops=hops,
        reads=reads,
        writes=writes,
        outcomes=outcomes,
        requests=requests,
    )


def pressed(telegram: FakeTelegram) -> Counter[str]:
    """How the presses were answered: ``saved`` (a toast "Saved: ..."), ``silent`` (no toast:
    a screen shown) or the alert's text."""
    found: Counter[str] = Counter()
    for sent in telegram.sent:
        if isinstance(sent.method, AnswerCallbackQuery):
            text = sent.method.text or ""
            found["saved" if text.startswith("Saved:") else text[:60] or "silent"] += 1
    return found


def shown(telegram: FakeTelegram) -> Counter[str]:
    """How ``/orders`` was answered: ``screen`` (a message with buttons) or its text."""
    found: Counter[str] = Counter()
    for sent in telegram.sent:
        if isinstance(sent.method, SendMessage):
            found["screen" if sent.markup is not None else sent.text[:60]] += 1
    return found


@dataclass(frozen=True)
class Figures:
    """One table row's per-update figures, kept for the side-by-side table."""

    cpu_ms: float
    cpu_p50_ms: float
    """The median over the rounds of a round's CPU per update (less moved by one slow round)."""
    server_cpu_ms: float
    reads: float
    writes: float
    hops: float


def report(kind: str, players: int, rounds: list[Round]) -> Figures:
    """One table row: N, rounds, updates/s, latency quantiles, CPU, round trips, transactions,
    what the bot answered."""
    latencies = [latency for played in rounds for latency in played.latencies]
    updates = len(latencies)
    wall = sum(played.wall for played in rounds)
    cpu = sum(played.cpu for played in rounds)
    outcomes: Counter[str] = Counter()
    for played in rounds:
        outcomes.update(played.outcomes)
    figures = Figures(
        cpu_ms=cpu / updates * 1e3,
        cpu_p50_ms=quantile([played.cpu / len(played.latencies) for played in rounds], 0.5) * 1e3,
        server_cpu_ms=sum(played.server_cpu for played in rounds) / updates * 1e3,
        reads=sum(played.reads for played in rounds) / updates,
        writes=sum(played.writes for played in rounds) / updates,
        hops=sum(played.hops for played in rounds) / updates,
    )
    requests = sum(played.requests for played in rounds) / updates
    answered = ", ".join(f"{name} {count}" for name, count in outcomes.most_common())
    print(
        f"  {kind:<9} {players:>5} {len(rounds):>6} {updates:>7}"
        f" {updates / wall:>9.1f} {quantile(latencies, 0.5) * 1e3:>9.1f}"
        f" {quantile(latencies, 0.99) * 1e3:>9.1f} {max(latencies) * 1e3:>9.1f}"
        f" {figures.cpu_ms:>8.2f} {figures.cpu_p50_ms:>8.2f} {cpu / wall:>5.0%}"
        f" {figures.server_cpu_ms:>8.2f}"
        f" {figures.hops:>6.0f} {figures.reads:>7.1f} {figures.writes:>8.1f} {requests:>6.1f}"
        f"   {answered}"
    )
    return figures


async def prepare(telegram: FakeTelegram, players: list[tuple[int, int]]) -> list[Player]:
    """Every player (user id, slot in the side) opens ``/orders`` and reaches the count screen."""
    ready: list[Player] = []
    for start in range(0, len(players), PREPARE_BATCH):
        batch = players[start : start + PREPARE_BATCH]
        ready.extend(
            await asyncio.gather(
                *(
                    open_move_screen(telegram, telegram.user(user, f"Player {user}"), slot)
                    for user, slot in batch
                )
            )
        )
        telegram.take()
        telegram.session.shown.clear()
    return ready


Table = dict[tuple[str, int], Figures]
"""A backend's figures by (update kind, N)."""


async def run(
    options: argparse.Namespace, store: Store, database: str, server: ServerCpu, i18n: I18n
) -> Table:
    """Seed, prepare, and time every N on ``store``."""
    sizes: list[int] = options.players
    pressing = 1 if options.one_per_side else STRATEGISTS_PER_SIDE
    campaigns = math.ceil(max(sizes) / (len(SIDES) * pressing))
    table: Table = {}
    clock = ManualClock(MONDAY)
    started = time.perf_counter()
    seeded = await seed_campaigns(store, clock, campaigns)
    players = [
        (user, slot % STRATEGISTS_PER_SIDE)
        for campaign in seeded
        for slot, (user, _side) in enumerate(campaign.players)
        if slot % STRATEGISTS_PER_SIDE < pressing
    ][: max(sizes)]
    print(
        f"seeded {campaigns} campaigns ({len(players)} players) through the storage API"
        f" in {time.perf_counter() - started:.1f} s; database {database}"
    )
    clock.set(TUESDAY)
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n))
    meter = Meter(count_transactions(store), server)
    started = time.perf_counter()
    ready = await prepare(telegram, players)
    print(
        f"prepared {len(ready)} players (/orders, sector, Move, destination: 5 updates"
        f" each, {PREPARE_BATCH} players at once) in {time.perf_counter() - started:.1f} s"
    )
    print(
        f"\n  {'update':<9} {'N':>5} {'rounds':>6} {'updates':>7} {'updates/s':>9}"
        f" {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9} {'cpu ms/u':>8} {'cpu p50':>8} {'cpu':>5}"
        f" {'srv ms/u':>8}"
        f" {'hops/u':>6} {'reads/u':>7} {'writes/u':>8} {'req/u':>6}   answered"
    )
    for size in sizes:
        rounds_wanted = max(options.min_rounds, math.ceil(options.min_updates / size))
        chosen = ready[:size]
        kinds: list[tuple[str, Callable[[Player], Update], Outcomes]] = [
            ("order", lambda p: p.press(telegram, p.next_move()), pressed)
        ]
        if options.others:
            kinds += [
                ("sector", lambda p: p.press(telegram, p.sector), pressed),
                ("/orders", lambda p: telegram.message(p.user, p.user.id, "/orders"), shown),
            ]
        for kind, update_of, outcomes in kinds:
            played = [
                await play_round(telegram, [update_of(s) for s in chosen], outcomes, meter)
                for _ in range(rounds_wanted)
            ]
            table[kind, size] = report(kind, size, played)
    await check_recorded(store, seeded[0].campaign_id)
    return table


async def on_sqlite(options: argparse.Namespace, i18n: I18n) -> Table:
    """The run on a SQLite file in ``--dir`` (or a temporary folder)."""
    with tempfile.TemporaryDirectory(
        prefix="bot-bench-", dir=options.dir and str(options.dir)
    ) as folder:
        path = Path(folder) / "bench.sqlite3"
        store: Store = await SqliteCampaignStore.open(path)
        try:
            return await run(options, store, str(path), ServerCpu(None), i18n)
        finally:
            await store.close()


async def on_postgresql(options: argparse.Namespace, i18n: I18n) -> Table:
    """The run on a throwaway PostgreSQL server (tests/postgres_server.py)."""
    server = PostgresServer.start()
    try:
        server.create_database("strategium")
        url = server.database_url("strategium")
        store: Store = await PostgresCampaignStore.open(url)
        try:
            return await run(options, store, url, ServerCpu(server.data), i18n)
        finally:
            await store.close()
    finally:
        server.stop()


def side_by_side(tables: dict[str, Table]) -> None:
    """Each update kind and N on every backend run: the bot's CPU per update (and the server's,
    for PostgreSQL), read and write transactions per update."""
    backends = list(tables)
    rows = list(dict.fromkeys(key for table in tables.values() for key in table))
    header = "".join(
        f" | {backend:<10} {'cpu ms':>7} {'p50':>6} {'srv ms':>7} {'reads':>6} {'writes':>6}"
        for backend in backends
    )
    print(f"\n  {'update':<9} {'N':>5}{header}")
    for kind, size in rows:
        cells = ""
        for backend in backends:
            found = tables[backend].get((kind, size))
            if found is None:
                cells += f" | {'':<10} {'':>7} {'':>6} {'':>7} {'':>6} {'':>6}"
                continue
            server = f"{found.server_cpu_ms:.2f}" if backend == "postgresql" else "-"
            cells += (
                f" | {'':<10} {found.cpu_ms:>7.2f} {found.cpu_p50_ms:>6.2f} {server:>7}"
                f" {found.reads:>6.1f} {found.writes:>6.1f}"
            )
        print(f"  {kind:<9} {size:>5}{cells}")


async def check_recorded(store: Store, campaign_id: int) -> None:
    """Print the first campaign's recorded orders: proof the presses were saved."""
    recorded = await store.orders_for_turn(campaign_id, 1)
    moves = {side: len(record.orders.moves) for side, record in recorded.items()}
    edits = {side: record.edits for side, record in recorded.items()}
    print(f"\ncampaign {campaign_id} after the run: moves per side {moves}, edits {edits}")


def sizes(text: str) -> list[int]:
    """``1,10,100`` -> [1, 10, 100]."""
    found = [int(part) for part in text.split(",") if part.strip()]
    if not found or min(found) < 1:
        raise argparse.ArgumentTypeError("a comma-separated list of positive numbers")
    return found


BACKENDS = {"sqlite": on_sqlite, "postgresql": on_postgresql}


def backends(text: str) -> list[str]:
    """``sqlite,postgresql`` -> ["sqlite", "postgresql"]."""
    found = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in found if name not in BACKENDS]
    if not found or unknown:
        raise argparse.ArgumentTypeError(f"a comma-separated list of {', '.join(BACKENDS)}")
    return list(dict.fromkeys(found))


def main() -> None:
    """Parse the options, print the machine and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--players",
        type=sizes,
        default=[1, 10, 100, 1000],
        help="concurrent players per round, comma-separated (default 1,10,100,1000)",
    )
    parser.add_argument(
        "--backend",
        type=backends,
        default=list(BACKENDS),
        help="databases to run on, comma-separated (default sqlite,postgresql: a throwaway"
        " PostgreSQL server is started from the machine's binaries, as the tests do)",
    )
    parser.add_argument(
        "--min-updates",
        type=int,
        default=300,
        help="rounds per N are enough for this many timed updates (default 300)",
    )
    parser.add_argument(
        "--min-rounds", type=int, default=3, help="at least this many rounds per N (default 3)"
    )
    parser.add_argument(
        "--one-per-side",
        action="store_true",
        help="only one strategist per side plays (four per campaign): no two saves of a side race",
    )
    parser.add_argument(
        "--orders-only",
        dest="others",
        action="store_false",
        help="time only the order press (not the sector press and /orders)",
    )
    parser.add_argument(
        "--no-logs",
        dest="logs",
        action="store_false",
        help="do not format production's INFO log lines (by default they are, to nowhere)",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="folder for the SQLite database (default: a temp folder)",
    )
    options = parser.parse_args()
    if options.min_updates < 1 or options.min_rounds < 1:
        parser.error("--min-updates and --min-rounds must be at least 1")
    print(machine_line())
    print(
        f"sizes {options.players}; logs {'on (INFO, to nowhere)' if options.logs else 'off'};"
        f" at least {options.min_updates} updates and {options.min_rounds} rounds per N;"
        f" {'one strategist' if options.one_per_side else 'both strategists'} of each side play"
    )
    if options.logs:
        null_logs()

    i18n = build_i18n()
    if options.dir is not None:
        options.dir.mkdir(parents=True, exist_ok=True)
    tables: dict[str, Table] = {}
    for backend in options.backend:
        print(f"\n== {backend}")
        tables[backend] = asyncio.run(BACKENDS[backend](options, i18n))
    side_by_side(tables)
    print(machine_line())


if __name__ == "__main__":
    main()

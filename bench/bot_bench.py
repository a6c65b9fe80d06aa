"""The bot under load: updates per second and p50/p99 latency of order button presses.

Every update goes through the real dispatcher, with SQLite on disk and a mocked Telegram session.

Run from the repository root: ``.venv/bin/python bench/bot_bench.py [--players 1,10,100,1000]``.

Campaigns are seeded through the storage API (``bench/_setup.py``): eight strategists each
(four sides of two), in turn 1's orders phase, on a database file in ``--dir`` (default: a
temporary folder under /tmp, which is on disk here). The clock is then Tuesday 10:00 of that
week, when the orders window is open. Each player sends ``/orders`` and taps sector -> Move ->
destination through the dispatcher (not timed), reaching the "how many armies" screen.

Timed: for each N, rounds in which the first N players (eight per campaign, so N players span
N/8 campaigns; four with ``--one-per-side``) each send one update at once (``asyncio.gather``
of ``Dispatcher.feed_update``):

* ``order``: the count button. It alternates between 1 and 2 armies, so every press saves a
  changed order (a write transaction, fsynced), queues the side's notices and edits the screen.
  A side's two strategists press at the same moment, so their saves race (compare-and-set).
* ``sector``: the sector button of the ``/orders`` screen (reads; shows the sector's choices).
* ``/orders``: the command (reads; sends the screen anew).

Latency is one ``feed_update`` from start to end (it includes waiting for the others: they
share one event loop and one database connection); throughput is updates per second of wall
time. ``cpu ms/u`` is the process's CPU time (all threads) per update, less moved by other
load on the machine than the wall-clock figures (though not immune to it on a shared VM);
``cpu`` is that CPU time over wall time; ``hops/u`` counts calls to aiosqlite's worker thread
per update (each a round trip between two threads; ``HopCounter`` wraps aiosqlite's private
``Connection._execute`` to count them).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite
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

from bot.app import build_dispatcher
from bot.clock import ManualClock
from bot.i18n import build_i18n
from storage import SqliteCampaignStore, Store
from tests.bot.telegram import FakeTelegram

Outcomes = Callable[[FakeTelegram], Counter[str]]
"""Sorts the requests of a round into what the bot answered."""
PREPARE_BATCH = 50
"""Players prepared at once (their screens are found among this batch's requests)."""


class HopCounter:
    """Counts calls handed to aiosqlite's worker thread (each ``execute``, ``fetchone``,
    cursor ``close``, ``commit`` ... is one round trip between the event loop and that thread),
    by wrapping ``aiosqlite.Connection._execute`` for this process."""

    def __init__(self) -> None:
        self.count = 0
        original: Callable[..., Awaitable[Any]] = aiosqlite.Connection._execute

        async def counted(connection: aiosqlite.Connection, fn: Any, *args: Any, **kw: Any) -> Any:
            self.count += 1
            return await original(connection, fn, *args, **kw)

        aiosqlite.Connection._execute = counted  # type: ignore[method-assign,assignment]


HOPS = HopCounter()


@dataclass(frozen=True)
class Round:
    """One round: per-update latencies (seconds), wall time, and what the bot answered."""

    latencies: list[float]
    wall: float
    cpu: float
    hops: int
    outcomes: Counter[str]
    requests: int


async def play_round(telegram: FakeTelegram, updates: list[Update], check: Outcomes) -> Round:
    """Feed ``updates`` at once; time each and the whole."""
    telegram.take()
    latencies: list[float] = []
    clock = time.perf_counter

    async def one(update: Update) -> None:
        before = clock()
        await telegram.dispatcher.feed_update(telegram.bot, update)
        latencies.append(clock() - before)

    started, cpu, hops = clock(), time.process_time(), HOPS.count
    await asyncio.gather(*(one(update) for update in updates))
    wall, cpu, hops = clock() - started, time.process_time() - cpu, HOPS.count - hops
    requests = len(telegram.sent)
    outcomes = check(telegram)
    telegram.take()
    telegram.session.shown.clear()
    return Round(
        latencies=latencies, wall=wall, cpu=cpu, hops=hops, outcomes=outcomes, requests=requests
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


def report(kind: str, players: int, rounds: list[Round]) -> None:
    """One table row: N, rounds, updates/s, latency quantiles, what the bot answered."""
    latencies = [latency for played in rounds for latency in played.latencies]
    wall = sum(played.wall for played in rounds)
    cpu = sum(played.cpu for played in rounds)
    outcomes: Counter[str] = Counter()
    for played in rounds:
        outcomes.update(played.outcomes)
    requests = sum(played.requests for played in rounds) / len(latencies)
    hops = sum(played.hops for played in rounds) / len(latencies)
    answered = ", ".join(f"{name} {count}" for name, count in outcomes.most_common())
    print(
        f"  {kind:<9} {players:>5} {len(rounds):>6} {len(latencies):>7}"
        f" {len(latencies) / wall:>9.1f} {quantile(latencies, 0.5) * 1e3:>9.1f}"
        f" {quantile(latencies, 0.99) * 1e3:>9.1f} {max(latencies) * 1e3:>9.1f}"
        f" {cpu / len(latencies) * 1e3:>8.2f} {cpu / wall:>5.0%}"
        f" {hops:>6.0f} {requests:>6.1f}   {answered}"
    )


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


async def run(options: argparse.Namespace, folder: Path, i18n: I18n) -> None:
    """Seed, prepare, and time every N."""
    sizes: list[int] = options.players
    pressing = 1 if options.one_per_side else STRATEGISTS_PER_SIDE
    campaigns = math.ceil(max(sizes) / (len(SIDES) * pressing))
    store: Store = await SqliteCampaignStore.open(folder / "bench.sqlite3")
    try:
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
            f" in {time.perf_counter() - started:.1f} s; database {folder / 'bench.sqlite3'}"
        )
        clock.set(TUESDAY)
        telegram = FakeTelegram(build_dispatcher(store, clock, i18n))
        started = time.perf_counter()
        ready = await prepare(telegram, players)
        print(
            f"prepared {len(ready)} players (/orders, sector, Move, destination: 5 updates"
            f" each, {PREPARE_BATCH} players at once) in {time.perf_counter() - started:.1f} s"
        )
        print(
            f"\n  {'update':<9} {'N':>5} {'rounds':>6} {'updates':>7} {'updates/s':>9}"
            f" {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9} {'cpu ms/u':>8} {'cpu':>5}"
            f" {'hops/u':>6} {'req/u':>6}   answered"
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
                    await play_round(telegram, [update_of(s) for s in chosen], outcomes)
                    for _ in range(rounds_wanted)
                ]
                report(kind, size, played)
        await check_recorded(store, seeded[0].campaign_id)
    finally:
        await store.close()


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
        "--dir", type=Path, default=None, help="folder for the database (default: a temp folder)"
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
        with tempfile.TemporaryDirectory(dir=options.dir) as folder:
            asyncio.run(run(options, Path(folder), i18n))
    else:
        with tempfile.TemporaryDirectory(prefix="bot-bench-") as folder:
            asyncio.run(run(options, Path(folder), i18n))
    print(machine_line())


if __name__ == "__main__":
    main()

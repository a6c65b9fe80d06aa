"""Random whole campaigns with fresh seeds (issue 31): how many a minute, how many invariant
checks, how many distinct screens, which invariants broke, and the line coverage of ``bot/``
the campaigns alone reach.

Run from the repository root:
``.venv/bin/python bench/campaign_fuzz.py [--campaigns N] [--minutes M] [--seed S] [--coverage]
[--postgresql]``.
It plays ``tests.campaigns`` scripts from seed ``S`` on (a random one by default, printed, so
a run can be repeated) until ``N`` campaigns or ``M`` minutes, whichever comes first, on SQLite
in memory (``/dev/shm``), or with ``--postgresql`` each on a schema of its own of a PostgreSQL
server the bench starts (``tests/postgres_server.py``; PostgreSQL's binaries installed). Each
broken campaign is printed with its invariant and the command that replays it with the
transcript (on SQLite). With ``--coverage`` (the ``coverage`` package of the dev
dependencies) the run measures which lines of ``bot/`` ran;
that slows the campaigns about twofold, so its campaigns-per-minute figure is not the speed.
The slowest single answer (an update through the dispatcher) is reported too: the issue's
bound on an answer lives here, not in a pass/fail test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import _setup  # puts the repository root on sys.path

if TYPE_CHECKING:
    from tests.campaigns.play import StoreFactory
    from tests.postgres_server import PostgresServer

ROOT = Path(__file__).resolve().parents[1]


def _stores(postgresql: bool) -> tuple[StoreFactory, PostgresServer | None]:
    """Where each campaign is stored: a SQLite file, or (``postgresql``) a schema of its own of
    a PostgreSQL server started here (the caller stops it)."""
    from storage import Store, open_store  # noqa: PLC0415
    from tests.campaigns.play import sqlite_store  # noqa: PLC0415
    from tests.postgres_server import PostgresServer, new_schema_url  # noqa: PLC0415

    if not postgresql:
        return sqlite_store, None
    server = PostgresServer.start()
    server.create_database("strategium")

    async def schema(_folder: Path) -> Store:
        return await open_store(await new_schema_url(server))

    return schema, server


async def _run(arguments: argparse.Namespace) -> int:
    from tests.campaigns import world as world_module  # noqa: PLC0415
    from tests.campaigns.play import play  # noqa: PLC0415
    from tests.campaigns.script import script_for  # noqa: PLC0415

    slowest: list[float] = [0.0]
    feed = world_module.World.feed

    async def timed_feed(self: world_module.World, update: object) -> None:
        started = time.perf_counter()
        try:
            await feed(self, update)  # type: ignore[arg-type]
        finally:
            slowest[0] = max(slowest[0], time.perf_counter() - started)

    world_module.World.feed = timed_feed  # type: ignore[method-assign]

    make_store, server = _stores(arguments.postgresql)
    first = arguments.seed if arguments.seed is not None else random.randrange(1 << 40)
    backend = "SQLite" if server is None else "PostgreSQL"
    print(f"first seed {first}; {backend}; {_setup.machine_line()}")
    deadline = time.monotonic() + arguments.minutes * 60
    started = time.monotonic()
    played = checks = steps = turns = finished = 0
    screens: set[str] = set()
    broken: Counter[str] = Counter()
    modules: Counter[str] = Counter()
    chains: Counter[str] = Counter()
    seed = first
    try:
        while played < arguments.campaigns and time.monotonic() < deadline:
            script = script_for(seed)
            outcome = await play(script, make_store=make_store)
            played += 1
            checks += outcome.checks
            steps += outcome.steps
            turns += outcome.turns
            finished += outcome.finished
            screens |= outcome.screens
            modules["+".join(script.setup.modules) or "none"] += 1
            chains.update(outcome.chains)
            if outcome.broken is not None:
                broken[outcome.broken.name] += 1
                print(outcome.report(), flush=True)
            seed += 1
    finally:
        if server is not None:
            server.stop()
    minutes = (time.monotonic() - started) / 60
    print(
        f"{played} campaigns (seeds {first}..{seed - 1}) in {minutes:.1f} min:"
        f" {played / minutes:.1f} a minute; {steps} steps, {turns} turns resolved,"
        f" {finished} finished; {checks} invariant checks; {len(screens)} distinct screens;"
        f" slowest answer {slowest[0] * 1000:.0f} ms"
    )
    print("modules:", dict(sorted(modules.items())))
    print("contact chains (2+ battles):", dict(chains))
    print("broken:", dict(broken) or "none")
    return 1 if broken else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--campaigns", type=int, default=10_000)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--coverage", action="store_true", help="line coverage of bot/")
    parser.add_argument("--postgresql", action="store_true", help="on PostgreSQL, not SQLite")
    arguments = parser.parse_args()
    os.chdir(ROOT)
    if not arguments.coverage:
        sys.exit(asyncio.run(_run(arguments)))
    import coverage  # noqa: PLC0415  (only when asked for)

    measured = coverage.Coverage(source=[str(ROOT / "bot")], data_file=None)
    measured.start()
    try:
        code = asyncio.run(_run(arguments))
    finally:
        measured.stop()
    percent = measured.report(file=open(os.devnull, "w"), skip_empty=True)  # noqa: SIM115
    print(f"line coverage of bot/ by these campaigns alone: {percent:.1f}%")
    sys.exit(code)


if __name__ == "__main__":
    main()

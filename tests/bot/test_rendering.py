"""Maps drawn in a process pool are the maps drawn in the bot's own process; threads with 0; a
drawing process ends with the bot, also when the bot is killed."""

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.runtime.config import Settings
from bot.screens.rendering import MOST_WORKERS, MapDrawer, default_workers
from rules.render import render_map
from tests.render.views import campaign_views, russian_custom_view, worked_example


async def test_a_pool_draws_the_same_pictures_as_a_direct_call() -> None:
    views = [
        worked_example("resolved"),
        worked_example("private", "red", language="ru"),
        russian_custom_view(),
        *(view for _, view in campaign_views(turns=2)),
    ]
    drawer = MapDrawer(2)
    try:
        drawn = await asyncio.gather(*(drawer.draw(view) for view in views))
    finally:
        drawer.close()
    assert drawn == [render_map(view) for view in views]


async def test_no_workers_draws_in_threads_without_a_pool() -> None:
    drawer = MapDrawer(0)
    view = worked_example("friday")
    assert await drawer.draw(view) == render_map(view)
    assert drawer._pool is None
    drawer.close()


async def test_a_pool_whose_worker_died_is_replaced() -> None:
    drawer = MapDrawer(1)
    view = worked_example("public")
    try:
        first = await drawer.draw(view)
        broken = drawer._pool
        assert broken is not None
        for pid in list(broken._processes):  # the executor's own table of its workers
            os.kill(pid, signal.SIGKILL)
        assert await drawer.draw(view) == first
        assert drawer._pool is not broken
    finally:
        drawer.close()


# A bot process: draws one map in a pool, prints its worker's pid, then waits to be killed.
OWNER = """
import asyncio
from bot.screens.rendering import MapDrawer
from tests.render.views import worked_example

async def main():
    drawer = MapDrawer(1)
    await drawer.draw(worked_example("public"))
    print(*drawer._pool._processes, flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


def test_a_worker_ends_when_the_bot_is_killed() -> None:
    root = Path(__file__).resolve().parents[2]
    with subprocess.Popen(
        [sys.executable, "-c", OWNER], cwd=root, stdout=subprocess.PIPE, text=True
    ) as owner:
        try:
            assert owner.stdout is not None
            (worker,) = map(int, owner.stdout.readline().split())
        finally:
            owner.kill()
    for _ in range(100):  # at most 10 s; the worker looks every second
        if not Path(f"/proc/{worker}").exists():
            break
        time.sleep(0.1)
    assert not Path(f"/proc/{worker}").exists(), "the drawing process outlived the bot"


def test_map_workers_default_to_the_cores_but_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MAP_WORKERS", raising=False)
    assert Settings(_env_file=None).map_workers == default_workers()
    assert 0 <= default_workers() <= min(max((os.cpu_count() or 1) - 1, 0), MOST_WORKERS)
    monkeypatch.setenv("MAP_WORKERS", "0")
    assert Settings(_env_file=None).map_workers == 0
    monkeypatch.setenv("MAP_WORKERS", "-1")
    with pytest.raises(ValueError, match="map_workers"):
        Settings(_env_file=None)
    with pytest.raises(ValueError, match="workers"):
        MapDrawer(-1)

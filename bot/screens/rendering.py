"""Map pictures drawn off the event loop: in a pool of worker processes, or in threads.

:func:`rules.render.render_map` is Python and Pillow, 5-10 ms of CPU a map (it was 35 ms before
the kept static layers), most of it holding the GIL: drawn in a thread it takes that time from
the event loop (the sender, the handlers, the scheduler). A pool of processes draws on the
other cores instead. Its workers
are started by a ``forkserver`` (``spawn`` where there is none), never forked from the bot's
process with its threads; each imports :mod:`rules.render` once, is sent a pickled
:class:`~rules.render.MapView` per map, and ends when the bot's process is gone, also when it
was killed without closing the pool (such a worker, and so its forkserver, would wait for good).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from rules.render import MapView, render_map
from rules.render.primitives import _font

log = logging.getLogger(__name__)


MOST_WORKERS = 2
"""Two processes on free cores draw about 60 maps a second: twice what Telegram takes."""


def default_workers() -> int:
    """One process per usable core but one (that core is the bot's own), at most
    :data:`MOST_WORKERS`; 0 (threads) on one core."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(max((cores or 1) - 1, 0), MOST_WORKERS)


class MapDrawer:
    """Draws maps in ``workers`` processes, or in threads (``asyncio.to_thread``) with 0.

    The pool starts with the first map; :meth:`close` stops it. A pool whose worker died (e.g.
    killed for memory) is replaced, and that map drawn again once in the new one.
    ``record`` (end-to-end tests only) is a file that gets one JSON line per map drawn: the
    PNG's SHA-256 and what the view showed, so a test can tell what a sent photo carries.
    ``draw_function`` is what draws (a module-level function, so workers can import it; the
    benchmarks pass the old renderer).
    """

    def __init__(
        self,
        workers: int = 0,
        *,
        record: Path | None = None,
        draw_function: Callable[[MapView], bytes] | None = None,
    ) -> None:
        if workers < 0:
            raise ValueError(f"workers must be 0 or more, not {workers}")
        self.workers = workers
        self.record = record
        self._draw = draw_function or _render
        self._pool: ProcessPoolExecutor | None = None

    async def draw(self, view: MapView) -> bytes:
        """The PNG bytes of ``view``."""
        picture = await self._drawn(view)
        if self.record is not None:
            line = {
                "sha256": hashlib.sha256(picture).hexdigest(),
                "view": view.model_dump(mode="json", exclude={"map", "labels"}),
            }
            with self.record.open("a", encoding="utf-8") as file:
                file.write(json.dumps(line, ensure_ascii=False) + "\n")
        return picture

    async def _drawn(self, view: MapView) -> bytes:
        if self.workers == 0:
            return await asyncio.to_thread(self._draw, view)
        pool = self._started()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, self._draw, view)
        except BrokenProcessPool:
            log.warning("a map drawing process died; starting a new pool")
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            return await loop.run_in_executor(self._started(), self._draw, view)

    async def warm(self) -> None:
        """Start the drawing processes and have each load the renderer and its fonts, so that
        the first maps of a Monday do not wait for that."""
        if self.workers == 0:
            await asyncio.to_thread(warm_renderer)
            return
        loop = asyncio.get_running_loop()
        pool = self._started()
        await asyncio.gather(
            *(loop.run_in_executor(pool, warm_renderer) for _ in range(self.workers))
        )

    def close(self) -> None:
        """Stop the pool: maps being drawn are finished, those not begun cancelled."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context(
                "forkserver" if "forkserver" in methods else "spawn"
            )
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_end_with_the_bot
            )
        return self._pool


def warm_renderer() -> None:
    """Load the fonts: the first map of a process would otherwise wait for them."""
    for bold in (False, True):
        for size in (22, 26, 28, 40):
            _font(size, bold)


def _render(view: MapView) -> bytes:
    """:func:`rules.render.render_map`, looked up when called."""
    return render_map(view)


def _end_with_the_bot() -> None:
    """A worker's start: a thread that ends the worker once the bot's process is gone."""
    bot = multiprocessing.parent_process()
    if bot is not None and bot.pid is not None:
        threading.Thread(
            target=_watchdog, args=(bot.pid,), name="bot-watchdog", daemon=True
        ).start()


def _watchdog(pid: int) -> None:
    """Every second: end this worker if the bot's process ``pid`` is gone."""
    while True:
        time.sleep(1)
        try:
            os.kill(pid, 0)
        except OSError:  # gone (or the number reused by another user's process)
            os._exit(0)

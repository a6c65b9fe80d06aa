"""The Mini App in headless Chromium: first paint, and a tap on a sector to its drawn answer.

Run from the repository root: ``.venv/bin/python bench/miniapp_bench.py [--taps 100]``.

One campaign is seeded (``bench/_setup.py``: four sides of two strategists, turn 1's orders
open); the Mini App (:func:`bot.miniapp.server.build_miniapp`) serves it on a loopback port
from this process, with SQLite on disk, as the bot does. Debian's Chromium, driven by
Playwright (``tests/e2e/miniapp_browser.py``: Telegram's script stubbed, a 360 x 740 phone),
opens it as a strategist.

* ``first paint``: the browser's ``first-contentful-paint``, and ``map drawn``: navigation
  start to the map's SVG put in the page (the ``strategium-map`` mark, after two API calls: the
  campaigns, then the screen), each over ``--loads`` fresh page loads.
* ``tap``: a click on one of the side's sectors to its sheet of legal orders drawn (the API
  call, the sheet built, the next animation frame), measured in the page
  (``window.strategiumTimings``), over ``--taps`` taps alternating between two sectors, and
  the taps that reopen a sector after each order.
* ``order``: a "Move" on the sheet to the screen redrawn with the new arrow (a saved change,
  fsynced), over ``--taps`` / 4 presses.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import _setup
from aiohttp import web
from playwright.async_api import Page

from bot.miniapp.server import build_miniapp
from bot.runtime.clock import ManualClock
from bot.texts.i18n import build_i18n
from storage import SqliteCampaignStore
from tests.e2e.miniapp_browser import chromium, open_app

TOKEN = "4242:bench-token"


async def measure(loads: int, taps: int, folder: Path) -> None:
    store = await SqliteCampaignStore.open(folder / "bench.sqlite3")
    clock = ManualClock(_setup.MONDAY)
    seeded = (await _setup.seed_campaigns(store, clock, 1))[0]
    clock.set(_setup.TUESDAY)
    app = build_miniapp(store, clock, build_i18n(), TOKEN, timedelta(hours=24))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    user_id, _side = seeded.players[0]
    url = f"http://127.0.0.1:{port}/?campaign={seeded.campaign_id}"
    print(_setup.machine_line())
    try:
        async with chromium() as browser:
            paints: list[float] = []
            drawn: list[float] = []
            for _ in range(loads):
                page = await open_app(browser, url, TOKEN, (user_id, "Bench", "en"), clock.now())
                await page.wait_for_selector("#map svg")
                paint = await page.evaluate(
                    "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"
                )
                paints.append(float(paint))
                await page.evaluate("new Promise(r => requestAnimationFrame(() => r(0)))")
                mark = "performance.getEntriesByName('strategium-map')[0]?.startTime ?? -1"
                drawn.append(float(await page.evaluate(mark)))
                await page.context.close()
            page = await open_app(browser, url, TOKEN, (user_id, "Bench", "en"), clock.now())
            await page.wait_for_selector("#map svg")
            sectors = await _held_sectors(page)
            started = time.perf_counter()
            for index in range(taps):
                await page.locator(f'#map [data-sector="{sectors[index % 2]}"]').click()
                await page.wait_for_function(
                    f"window.strategiumTimings.filter(t => t.kind === 'sector').length > {index}"
                )
            tapping = time.perf_counter() - started
            moves = max(taps // 4, 1)
            for index in range(moves):
                await page.locator("#sheet .row[data-move] button.action").first.click()
                await page.wait_for_function(
                    f"window.strategiumTimings.filter(t => t.kind === 'orders').length > {index}"
                )
                await page.locator(f'#map [data-sector="{sectors[0]}"]').click()
                await page.wait_for_selector("#sheet:not([hidden]) .row[data-move]")
            timings = await page.evaluate("window.strategiumTimings")
    finally:
        await runner.cleanup()
        await store.close()
    sector_ms = [t["ms"] for t in timings if t["kind"] == "sector"]
    order_ms = [t["ms"] for t in timings if t["kind"] == "orders"]
    print(f"first paint (first-contentful-paint), {loads} loads: {_summary(paints)}")
    print(f"map drawn (navigation start to the map's SVG in the page): {_summary(drawn)}")
    print(f"tap -> legal orders drawn, {len(sector_ms)} taps: {_summary(sector_ms)}")
    print(f"order -> screen redrawn with it, {len(order_ms)} orders: {_summary(order_ms)}")
    print(f"({taps} taps in {tapping:.1f} s wall time, Playwright's own round trips included)")


async def _held_sectors(page: Page) -> list[str]:
    """Two sectors the strategist's side holds (its orders' sectors, from the API)."""
    found = await page.evaluate(
        "fetch('api/campaigns/' + new URLSearchParams(location.search).get('campaign') + "
        "'/orders', {headers: {'X-Telegram-Init-Data': Telegram.WebApp.initData}})"
        ".then(r => r.json()).then(d => d.orders.sectors.map(s => s.id))"
    )
    return [str(sector) for sector in found][:2]


def _summary(values: list[float]) -> str:
    values = sorted(values)
    return (
        f"p50 {_setup.quantile(values, 0.5):.1f} ms, p95 {_setup.quantile(values, 0.95):.1f} ms, "
        f"max {values[-1]:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--taps", type=int, default=100)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        asyncio.run(measure(arguments.loads, arguments.taps, Path(folder)))


if __name__ == "__main__":
    main()

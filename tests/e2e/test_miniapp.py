"""A week played through the Mini App in headless Chromium against the real bot process and the
local Bot API: a strategist taps sectors to give orders and confirms them, an order typed in
chat shows in the app and the app's show in /orders, a Russian player in the dark theme sees
only her side, a tap after the deadline is refused as stale, and a tactician reports a battle
from the app. Screenshots go to out/miniapp/ (and to docs/img/ with ``DOCS_SCREENSHOTS=1``)."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
from playwright.async_api import Page

from tests.e2e.harness import Chat, ScriptedTelegram, User
from tests.e2e.miniapp_browser import chromium, open_app, shoot
from tests.e2e.scenario import (
    ROOT,
    Player,
    Table,
    create_campaign,
    deploy_typed,
    free_port,
    join,
    orders_typed,
    running_bot,
)

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
TUESDAY = datetime(2026, 3, 3, 6, 0, tzinfo=UTC)  # orders are open
ORDERS_CLOSE = datetime(2026, 3, 5, 20, 59, tzinfo=UTC)  # Thursday 23:59 in Moscow
SHOTS = ROOT / "out" / "miniapp"
DOCS = ROOT / "docs" / "img"


def docs_too(name: str) -> tuple[Path, ...]:
    """The docs' copy of a screenshot, when asked for (``DOCS_SCREENSHOTS=1``): a test run
    leaves the checkout as it was, and the docs' pictures change when someone looks at them."""
    return (DOCS / name,) if os.environ.get("DOCS_SCREENSHOTS") == "1" else ()


async def lines(page: Page) -> str:
    return await page.locator("#lines").inner_text()


async def tap_sector(page: Page, sector: str) -> None:
    await page.locator(f'#map [data-sector="{sector}"]').click()
    await page.wait_for_selector("#sheet:not([hidden]) h2")


async def toast(page: Page) -> tuple[str, bool]:
    """What the page said about the last action, and whether it was a refusal; the notice is
    in the page's flow, so it covers no button."""
    box = page.locator(".notice")
    await box.wait_for(state="visible")
    assert not await page.evaluate(COVERED), "a notice covers a button"
    return await box.inner_text(), "refused" in (await box.get_attribute("class") or "")


COVERED = """() => {
  const notice = document.querySelector(".notice").getBoundingClientRect();
  return [...document.querySelectorAll("button")].some((button) => {
    const box = button.getBoundingClientRect();
    return box.width && box.height && box.left < notice.right && notice.left < box.right
      && box.top < notice.bottom && notice.top < box.bottom;
  });
}"""
"""True when the notice's box overlaps a button's."""

EMOJI_DRAWN = """() => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 40;
  const context = canvas.getContext("2d");
  context.font = "32px sans-serif";
  context.textBaseline = "top";
  context.fillText("🟥", 2, 2);
  const [r, g, b] = context.getImageData(20, 20, 1, 1).data;
  return r > 150 && g < 120 && b < 120;
}"""
"""True when the browser draws a red square for 🟥 (an emoji font is installed), not a box."""

NAME_HEIGHT = """() => {
  const text = document.querySelector('#map [data-sector="1"] text');
  return text.getBoundingClientRect().height;
}"""
"""The height on screen, in CSS pixels, of sector 1's name on the map."""


async def test_a_week_through_the_mini_app(telegram: ScriptedTelegram, tmp_path: Path) -> None:
    port = free_port()
    env = {"MINIAPP_PORT": str(port), "MINIAPP_HOST": "127.0.0.1"}
    async with (
        aiohttp.ClientSession() as session,
        running_bot(telegram, session, tmp_path, clock_start=START, extra_env=env) as bot,
        chromium() as browser,
    ):
        group = Chat(-1001700, "supergroup", "Wargamers")
        table = Table(telegram, bot.clock, group, Player(User(701, "Anna")), settle=True)
        await create_campaign(table, "Mini", ["Red", "Blue"])
        boris = Player(User(702, "Boris"))
        vera = Player(User(703, "Вера"), "ru")
        await join(table, boris, "Red")
        await join(table, vera, "Blue")
        await deploy_typed(table, boris, "1:4 2:3 4:3")
        await deploy_typed(table, vera, "1:3 3:5 5:2")
        await table.wait_for_text(group.id, "Turn 1: orders")
        await bot.clock.set(TUESDAY)
        url = f"http://127.0.0.1:{port}/?campaign={table.campaign_id}"
        token = telegram.token

        red = await open_app(browser, url, token, (702, "Boris", "en"), await bot.clock.now())
        assert await red.locator("#tabs button").all_inner_texts() == ["Map", "Board", "Battles"]
        assert await red.evaluate(EMOJI_DRAWN), (
            "no emoji font: apt-get install fonts-noto-color-emoji"
        )
        # On a 360-pixel phone the map opens large enough to read (and pans in its box).
        assert await red.evaluate(NAME_HEIGHT) >= 16
        # ... centred on the map's middle, not its top left corner.
        assert await red.evaluate("() => document.querySelector('#map').scrollLeft > 0")
        await red.locator("#zoom-out").click()
        await red.locator("#zoom-out").click()
        assert await red.evaluate(NAME_HEIGHT) < 12  # the whole map at once: too small to read
        await red.locator("#zoom-in").click()
        await red.locator("#zoom-in").click()
        countdown = await red.locator("#deadline").inner_text()
        # The deadline as the chat says it, in the campaign's zone.
        assert "Deadline: Thu 5 Mar, 23:59 (Moscow, UTC+3)" in countdown, countdown
        assert "· 2d 14h 5" in countdown, countdown  # by the bot's clock, not the phone's
        await tap_sector(red, "1")
        await red.locator("#sheet button", has_text="Attack").click()
        text, refused = await toast(red)
        assert not refused, text
        await red.wait_for_function("document.querySelector('#lines').innerText.includes('Blue')")
        await tap_sector(red, "2")
        await red.locator('#sheet [data-move="1"] button.action').click()
        await red.wait_for_selector("#map g.orders polyline")  # the move drawn as an arrow
        assert "1 Equator" in await lines(red)
        await shoot(red, SHOTS / "01-orders-en-light.png", *docs_too("miniapp-orders-en.png"))

        # Chat -> app: an order typed in chat shows in the app (one set of orders).
        await orders_typed(table, boris, "reinforce 4", ready=False)
        await red.reload()
        await red.wait_for_selector("#lines li")
        assert "North Pole" in await lines(red)
        # App -> chat: Ready in the app; /orders in chat shows the app's orders, confirmed.
        await red.locator("#ready").click()
        text, refused = await toast(red)
        assert (text, refused) == ("Ready: your orders are confirmed.", False)
        chat = (await table.command(boris, "/orders")).texts(boris.chat_id)
        assert any("✅ Ready" in t and "Blue" in t and "North Pole" in t for t in chat), chat

        # A Russian player, dark theme, an hour before the deadline: her side only.
        await bot.clock.set(ORDERS_CLOSE - timedelta(hours=1))
        blue = await open_app(
            browser,
            url,
            token,
            (703, "Вера", "ru"),
            await bot.clock.now(),
            dark=True,
            zone="Asia/Yekaterinburg",
        )
        countdown = await blue.locator("#deadline").inner_text()
        # As the chat says it (the campaign's zone), not in the phone's own zone and format.
        assert "Срок: чт, 5 марта, 23:59 (МСК)" in countdown, countdown
        assert re.search(r"· (1 ч 0 мин|5\d мин) осталось$", countdown), countdown
        assert await blue.locator("#tabs button").all_inner_texts() == ["Карта", "Табло", "Бои"]
        assert "North Pole" not in await blue.content()
        assert await blue.locator("#map g.orders polyline").count() == 0
        await tap_sector(blue, "3")
        await shoot(blue, SHOTS / "02-orders-ru-dark.png", *docs_too("miniapp-orders-ru-dark.png"))

        # The deadline passes while her sheet is open: the tap is refused as stale.
        await bot.clock.set(ORDERS_CLOSE)
        await blue.locator("#sheet button.action").first.click()
        text, refused = await toast(blue)
        assert refused, text
        assert "ход" in text.lower(), text
        await shoot(blue, SHOTS / "03-stale-ru-dark.png")
        assert await blue.locator("#ready").is_hidden()

        # Friday: the battle list is out; Red reports battle 1 from the app.
        for _ in range(6):
            due = await bot.clock.next_due()
            assert due is not None
            await bot.clock.set(due)
            tactician = await open_app(
                browser, url, token, (702, "Boris", "en"), await bot.clock.now()
            )
            await tactician.locator('#tabs button[data-tab="battles"]').click()
            if await tactician.locator(".battle").count():
                break
            await tactician.context.close()
        card = tactician.locator('.battle[data-battle="1"]')
        # No outcome is chosen for the player: the list starts on a prompt.
        assert await card.locator("select").input_value() == ""
        assert await card.locator("button").is_disabled()
        choice = await card.locator("option", has_text="Red").first.get_attribute("value")
        assert choice is not None
        await card.locator("select").select_option(choice)
        await card.locator("button").click()
        text, refused = await toast(tactician)
        assert not refused, text
        assert text.startswith("Result saved: Red")
        await tactician.wait_for_function(
            "document.querySelector('.battle').innerText.includes('reported by')"
        )
        await shoot(tactician, SHOTS / "04-battles-en.png", *docs_too("miniapp-battles-en.png"))
        in_chat = (await table.command(boris, "/battles")).texts(boris.chat_id)
        assert any("reported by" in t for t in in_chat), in_chat

"""The Mini App in a real browser: Debian's headless Chromium driven by Playwright, with
Telegram's ``telegram-web-app.js`` replaced by a stub that hands the page ``initData`` signed
with the bot's token (as Telegram does), a theme and a colour scheme."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

from playwright.async_api import Browser, Page, Route, ViewportSize, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from tests.miniapp_init import signed_init_data

TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#222222",
    "hint_color": "#707579",
    "button_color": "#3390ec",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f4f4f5",
}
DARK = {
    "bg_color": "#212121",
    "text_color": "#ffffff",
    "hint_color": "#aaaaaa",
    "button_color": "#8774e1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#181818",
}
PHONE: ViewportSize = {"width": 360, "height": 740}


def chromium_path() -> str:
    """Debian's Chromium (``./test`` installs it when it is missing and it can)."""
    found = shutil.which("chromium")
    if found is None:
        raise RuntimeError("chromium is not installed: apt-get install -y chromium (./test does)")
    return found


def emoji_font_installed() -> bool:
    """True when fontconfig knows a colour emoji font (Debian: fonts-noto-color-emoji, which
    ``./test`` installs), so screenshots draw the page's emoji instead of empty boxes."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    listed = subprocess.run([fc_list], capture_output=True, text=True, check=False).stdout
    return "color emoji" in listed.lower()


def telegram_stub(init_data: str, dark: bool) -> str:
    """What the page gets instead of ``telegram-web-app.js``."""
    web_app = {
        "initData": init_data,
        "initDataUnsafe": {},
        "colorScheme": "dark" if dark else "light",
        "themeParams": DARK if dark else LIGHT,
    }
    methods = "ready() {}, expand() {}, onEvent() {}, HapticFeedback: {notificationOccurred() {}}"
    return f"window.Telegram = {{WebApp: Object.assign({json.dumps(web_app)}, {{{methods}}})}};"


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """Headless Chromium, closed at the end."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_FLAGS, headless=True
        )
        try:
            yield browser
        finally:
            await browser.close()


async def open_app(
    browser: Browser,
    url: str,
    token: str,
    user: tuple[int, str, str],
    signed_at: datetime,
    *,
    dark: bool = False,
    zone: str = "UTC",
) -> Page:
    """The Mini App at ``url`` on a 360-pixel phone in time zone ``zone``, as ``user`` (id,
    name, language) whose ``initData`` Telegram signed at ``signed_at``."""
    user_id, name, language = user
    init_data = signed_init_data(token, user_id, name, signed_at, language)
    context = await browser.new_context(
        viewport=PHONE,
        device_scale_factor=2,
        locale=language,
        timezone_id=zone,
        color_scheme="dark" if dark else "light",
    )
    stub = telegram_stub(init_data, dark)

    async def serve_stub(route: Route) -> None:
        await route.fulfill(status=200, content_type="text/javascript", body=stub)

    await context.route(TELEGRAM_SCRIPT, serve_stub)
    page = await context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text))
    await page.goto(url)
    try:
        await page.wait_for_selector("#tabs:not([hidden]), #choose:not([hidden])", timeout=15000)
    except PlaywrightTimeoutError:
        notices = await page.locator(".notice").all_inner_texts()
        raise AssertionError(f"the app did not open: {notices!r} {problems}") from None
    return page


async def shoot(page: Page, *paths: Path) -> None:
    """A screenshot of the whole page into each of ``paths``."""
    # A whole-page capture draws a sticky bar where the viewport happened to be, over the page.
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        await page.screenshot(
            path=str(path), full_page=True, style="nav { position: static !important; }"
        )

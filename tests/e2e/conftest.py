"""End-to-end fixtures: one Bot API emulator per test session, a bot of its own per test."""

from collections.abc import AsyncIterator, Iterator

import aiohttp
import pytest
from aiogram import Bot

from tests.e2e.harness import (
    RunningEmulator,
    ScriptedTelegram,
    emulated_bot,
    install_emulator,
    run_emulator,
)


@pytest.fixture(scope="session")
def bot_api_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningEmulator]:
    """The emulator on a free loopback port, installed first if needed; stopped at the end."""
    install_emulator()
    with run_emulator(tmp_path_factory.mktemp("bot-api-emulator") / "emulator.log") as emulator:
        yield emulator


@pytest.fixture
async def telegram(bot_api_emulator: RunningEmulator) -> AsyncIterator[ScriptedTelegram]:
    """Scripted users of a new bot token, so tests never see each other's chats."""
    async with aiohttp.ClientSession() as session:
        yield bot_api_emulator.scripted(session)


@pytest.fixture
async def bot(telegram: ScriptedTelegram) -> AsyncIterator[Bot]:
    """A real aiogram Bot for that token, talking HTTP to the emulator."""
    bot = emulated_bot(telegram.base_url, telegram.token)
    yield bot
    await bot.session.close()

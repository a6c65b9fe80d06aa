"""The service start: it waits for Telegram instead of exiting when the network is down."""

from typing import Any

from aiogram import Bot
from aiogram.exceptions import TelegramNetworkError
from aiogram.methods import GetMe, TelegramMethod

from bot.runner import wait_for_telegram
from tests.bot.telegram import BOT_USER, FakeSession


class FlakySession(FakeSession):
    """Fails the first ``failures`` requests as if the network were down."""

    def __init__(self, failures: int) -> None:
        super().__init__({})
        self.failures = failures
        self.attempts = 0

    async def make_request(
        self, bot: Bot, method: TelegramMethod[Any], timeout: int | None = None
    ) -> Any:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise TelegramNetworkError(method=method, message="connection refused")
        return await super().make_request(bot, method, timeout)


async def test_start_waits_for_telegram_then_goes_on() -> None:
    session = FlakySession(failures=3)
    bot = Bot("42:TEST", session=session)
    await wait_for_telegram(bot, first_delay=0.0)
    assert session.attempts == 4
    assert [type(s.method) for s in session.sent] == [GetMe]
    assert (await bot.me()).id == BOT_USER.id

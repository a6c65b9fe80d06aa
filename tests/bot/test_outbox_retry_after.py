"""Flood control counts from Telegram's answer: a post held seconds by the send limits (or by
drawing its map) is not tried again before ``retry_after`` has passed since the 429."""

from datetime import timedelta
from typing import Any

from aiogram import Bot
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import SendMessage, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.services.outbox_sender import Limits, OutboxSender
from storage import NewOutboxMessage, OutboxState, Store
from tests.bot.telegram import FakeSession

GROUP = -100
FAST = Limits(per_second=1000, group_per_minute=100000, private_per_second=1000)


class SlowFloodedSession(FakeSession):
    """Answers the first send 429 ``retry_after`` seconds, ``delay`` after it was made."""

    def __init__(self, clock: ManualClock, delay: timedelta, retry_after: int) -> None:
        super().__init__({})
        self.clock = clock
        self.delay = delay
        self.retry_after = retry_after
        self.flooded = False

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        if isinstance(method, SendMessage) and not self.flooded:
            self.flooded = True
            self.clock.advance(self.delay)
            raise TelegramRetryAfter(method, "Too Many Requests", retry_after=self.retry_after)
        return await super().make_request(bot, method, timeout)


async def test_retry_after_counts_from_the_answer(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    queued = await store.enqueue(
        NewOutboxMessage(
            campaign_id=None, chat_id=GROUP, kind="text", payload={"text": "map"}, dedup_key="m"
        ),
        clock.now(),
    )
    session = SlowFloodedSession(clock, timedelta(seconds=30), retry_after=7)
    sender = OutboxSender(Bot("42:TEST", session=session), store, clock, i18n, limits=FAST)
    answered_at = clock.now() + timedelta(seconds=30)

    first = await sender.send_due()
    clock.set(answered_at + timedelta(seconds=6))
    early = await sender.send_due()
    clock.set(answered_at + timedelta(seconds=7))
    due = await sender.send_due()

    assert (first.retried, early.sent, due.sent) == ([queued.id], [], [queued.id])
    stored = await store.outbox_message(queued.id)
    assert stored is not None
    assert stored.state is OutboxState.SENT
    sends: list[Any] = [s for s in session.sent if isinstance(s.method, SendMessage)]
    assert [s.text for s in sends] == ["map"]

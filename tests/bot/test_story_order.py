"""A Monday's posts reach each chat in the story's order, through the real sender: in every
private chat turn 1's results before turn 2's «orders are open», in the group the Monday map
before the pinned board turns to turn 2; with the map slow to send (the other chats go on
meanwhile) and a board refresh from before the resolution tried again after it."""

from __future__ import annotations

import asyncio

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramServerError
from aiogram.methods import EditMessageText, SendMessage, SendPhoto, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.services.campaigns import board_refresh
from bot.services.outbox_sender import Limits, OutboxSender
from storage import CampaignSettings, Language, OutboxState, Store
from tests.bot.private_campaign import GM, GROUP, PEOPLE, open_table
from tests.bot.telegram import FakeSession, FakeTelegram

PLACEMENTS = {201: "1:4 2:3 4:3", 301: "1:3 3:5 5:2", 401: "2:4 3:3 5:3"}
WORDS = {
    "en": {"map": "Turn 1 resolved.", "board": "Turn 2: orders"},
    "ru": {"map": "Итоги хода 1 подведены.", "board": "Ход 2: приказы"},
}
PRIVATE = {
    "en": ("turn 1 resolved: the summary", "turn 2: orders are open"),
    "ru": ("итоги хода 1", "ход 2: приём приказов открыт"),
}
LANGUAGE = {user: language for user, _, language, _, _ in PEOPLE}


class SlowMapSession(FakeSession):
    """A Telegram whose photos wait at ``gate`` (the map being uploaded) while every other
    chat's requests are answered at once; it fails the next board edit when ``fail_edit`` is
    set, and notes every request in the order it was answered."""

    def __init__(self, private_posts: int) -> None:
        super().__init__({})
        self.gate = asyncio.Event()
        self.privates_done = asyncio.Event()
        self.private_posts = private_posts
        self.fail_edit = False
        self.answered: list[tuple[int, str, str]] = []

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        if isinstance(method, EditMessageText) and self.fail_edit:
            self.fail_edit = False
            raise TelegramServerError(method, "Internal Server Error")
        if isinstance(method, SendPhoto):
            await self.gate.wait()
        answer = await super().make_request(bot, method, timeout)
        chat = getattr(method, "chat_id", None)
        if isinstance(chat, int) and isinstance(method, SendMessage | SendPhoto | EditMessageText):
            text = getattr(method, "text", None) or getattr(method, "caption", None) or ""
            self.answered.append((chat, type(method).__name__, str(text)))
            if chat > 0 and len([a for a in self.answered if a[0] > 0]) >= self.private_posts:
                self.privates_done.set()
        return answer


async def _send_all(sender: OutboxSender) -> None:
    while (await sender.send_due()).sent:
        pass


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_each_chat_reads_what_happened_before_what_comes_next(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n, language: Language
) -> None:
    table = await open_table(telegram, store, clock)
    campaign_id = table.campaign.id
    await store.update_settings(campaign_id, CampaignSettings(language=language), GM, clock.now())
    for user, placement in PLACEMENTS.items():
        await table.say(user, placement)
    await telegram.deliver()
    await table.step()  # turn 1: orders
    await table.step()  # turn 1: battles (nobody attacked)
    await telegram.deliver()
    campaign = await table.now_campaign()
    assert campaign.status_message_id is not None  # the pinned board, edited in place

    # A board refresh from before the resolution fails and is tried again after it.
    session = SlowMapSession(private_posts=0)
    sender = OutboxSender(
        Bot("42:TEST", session=session), store, clock, i18n, limits=Limits.unlimited()
    )
    await store.enqueue(board_refresh(campaign, "late", clock.now()), clock.now())
    session.fail_edit = True
    assert (await sender.send_due()).retried
    session.answered.clear()
    await table.step()  # Monday: turn 1 resolved, turn 2 begins
    due = [
        m
        for m in await store.outbox_messages(campaign_id)
        if m.state is OutboxState.PENDING and m.chat_id > 0
    ]
    assert {m.kind for m in due} == {"turn_result", "private_phase_notice"}
    session.private_posts = len(due)

    # The map waits at Telegram while every private chat is served; then it goes through.
    sending = asyncio.create_task(_send_all(sender))
    await asyncio.wait_for(session.privates_done.wait(), 120)
    assert not [a for a in session.answered if a[0] == GROUP]
    session.gate.set()
    await sending

    group = [(method, text) for chat, method, text in session.answered if chat == GROUP]
    assert [method for method, _ in group] == ["SendPhoto", "EditMessageText"], group
    assert WORDS[language]["map"] in group[0][1]
    assert WORDS[language]["board"] in group[1][1]
    for user, _name, _language, _side, _roles in PEOPLE:
        said = [text for chat, _method, text in session.answered if chat == user]
        result, opening = PRIVATE[LANGUAGE[user]]
        assert result in said[0], (user, said)
        if len(said) > 1:
            assert [opening in text for text in said] == [False, True], (user, said)

"""Anonymous admins and channels in a group: the bot cannot name them, so it asks them to write
as themselves, and no handler that needs the person runs (or crashes)."""

import logging

import pytest
from aiogram.methods import AnswerCallbackQuery, SendMessage
from aiogram.types import Chat, User

from bot.screens.callbacks import GmPress, JoinPress
from storage import Store
from tests.bot.group_helpers import say, set_up_campaign
from tests.bot.telegram import FakeTelegram

ANONYMOUS_ADMIN = User(id=1087968824, is_bot=True, first_name="Group", username="GroupAnonymousBot")
CHANNEL_BOT = User(id=136817688, is_bot=True, first_name="Channel", username="Channel_Bot")
ASK = "Please send this as yourself, not anonymously or as a channel"


async def test_anonymous_senders_are_asked_to_write_as_themselves(
    telegram: FakeTelegram, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    anna = telegram.user(1, "Anna")
    group = telegram.group(-100, "Wargamers")
    campaign = await set_up_campaign(telegram, store, anna, group)
    channel = Chat(id=-1009, type="channel", title="News")
    audit_before = await store.audit_log(campaign.id)
    outbox_before = await store.outbox_messages(campaign.id)
    caplog.set_level(logging.ERROR)
    for sender, on_behalf_of in ((ANONYMOUS_ADMIN, group), (CHANNEL_BOT, channel)):
        for command in ("/gm", "/join", "/status", "/newcampaign", "/lang", "/battles"):
            telegram.take()
            await telegram.feed(telegram.message(sender, group, command, sender_chat=on_behalf_of))
            sent = telegram.take()
            assert [type(s.method) for s in sent] == [SendMessage], command
            assert ASK in sent[0].text
            assert sent[0].chat_id == group.id
        chatter = telegram.message(sender, group, "hello all", sender_chat=on_behalf_of)
        assert await telegram.feed(chatter) is None, "ordinary chat is left alone"
    for data in (
        JoinPress(c=campaign.id).pack(),
        GmPress(c=campaign.id, t=0, p="deployment", a="menu").pack(),
    ):
        telegram.take()
        await telegram.feed(telegram.forged_press(ANONYMOUS_ADMIN, group, data))
        sent = telegram.take()
        assert [type(s.method) for s in sent] == [AnswerCallbackQuery]
        assert ASK in sent[0].text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert await store.audit_log(campaign.id) == audit_before
    assert await store.outbox_messages(campaign.id) == outbox_before
    assert await store.join_requests(campaign.id) == []
    plain = await say(telegram, anna, group, "/status")
    assert plain is not None
    assert ASK not in plain.text

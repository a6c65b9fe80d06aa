"""A basic group upgraded to a supergroup gets a new chat id: its campaign follows it when
Telegram's service message arrives (in the old chat or in the new one)."""

import pytest
from aiogram.types import Chat

from bot.runtime.clock import ManualClock
from storage import NewCampaign, NewOutboxMessage, OutboxState, Store
from tests.bot.telegram import FakeTelegram

OLD, NEW = -4001, -1004001


@pytest.mark.parametrize("seen_in", ["old chat", "new chat"])
async def test_the_migration_service_message_moves_the_campaign(
    telegram: FakeTelegram, store: Store, clock: ManualClock, seen_in: str
) -> None:
    gm = telegram.user(1, "Anna")
    old_chat = Chat(id=OLD, type="group", title="Wargamers")
    new_chat = telegram.group(NEW, "Wargamers")
    campaign = await store.create_campaign(
        NewCampaign(chat_id=OLD, title="Siege", created_by=1, creator_name="Anna"), clock.now()
    )
    queued = await store.enqueue(
        NewOutboxMessage(
            campaign_id=campaign.id,
            chat_id=OLD,
            kind="text",
            payload={"text": "hello"},
            dedup_key="hello",
        ),
        clock.now(),
    )
    update = (
        telegram.message(gm, old_chat, None, migrate_to_chat_id=NEW)
        if seen_in == "old chat"
        else telegram.message(gm, new_chat, None, migrate_from_chat_id=OLD)
    )
    await telegram.feed(update)

    moved = await store.campaign(campaign.id)
    assert moved is not None
    assert moved.chat_id == NEW
    assert await store.active_campaign(NEW) == moved
    assert await store.active_campaign(OLD) is None
    message = await store.outbox_message(queued.id)
    assert message is not None
    assert (message.chat_id, message.state) == (NEW, OutboxState.PENDING)
    assert telegram.take() == []  # nothing to say about it in the group
    # The other service message (Telegram sends both) changes nothing more.
    again = (
        telegram.message(gm, new_chat, None, migrate_from_chat_id=OLD)
        if seen_in == "old chat"
        else telegram.message(gm, old_chat, None, migrate_to_chat_id=NEW)
    )
    await telegram.feed(again)
    audit = [a.action.value for a in await store.audit_log(campaign.id)]
    assert audit.count("chat_migrated") == 1

"""A basic group that became a supergroup: Telegram gives it a new chat id and tells the bot in
two service messages (``migrate_to_chat_id`` in the old chat, ``migrate_from_chat_id`` in the
new one). The group's campaigns and their unsent posts follow it, so nothing is orphaned."""

from __future__ import annotations

import logging

from aiogram import F, Router
from aiogram.types import Message

from bot.handlers.filters import Awaited
from bot.runtime.clock import Clock
from storage import Store

log = logging.getLogger(__name__)


async def follow_migration(message: Message, store: Store, clock: Clock) -> None:
    """Move the old chat's campaigns to the new chat id (a second notice moves nothing)."""
    if message.migrate_to_chat_id is not None:
        old, new = message.chat.id, message.migrate_to_chat_id
    elif message.migrate_from_chat_id is not None:
        old, new = message.migrate_from_chat_id, message.chat.id
    else:
        return
    moved = await store.move_chat(old, new, clock.now())
    if moved:
        log.info(
            "chat %s became supergroup %s; campaigns moved: %s", old, new, [c.id for c in moved]
        )


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(
        follow_migration, Awaited(F.migrate_to_chat_id | F.migrate_from_chat_id)
    )
    return router

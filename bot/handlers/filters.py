"""Filters the routers share, awaited in the event loop.

aiogram 3.31 runs every synchronous filter, ``F`` expressions included, in a worker thread
(``asyncio.to_thread``): a round trip to a thread pool for each filter each update meets on its
way to its handler. A private button press met two (the parent routers' chat kinds), a typed
message about twenty. An aiogram :class:`Filter` is awaited instead, so the filters here are
all of that kind, and handler modules wrap an ``F`` expression in :class:`Awaited`.
"""

from __future__ import annotations

from typing import Any

from aiogram import F
from aiogram.filters import Filter
from aiogram.types import CallbackQuery, Message, TelegramObject
from magic_filter import MagicFilter

from bot.runtime.middlewares import GROUP_CHATS


class InChats(Filter):
    """A message in, or a press of a button on a message in, a chat of one of ``kinds``
    (``"private"``, ``"group"`` ...)."""

    def __init__(self, kinds: frozenset[str]) -> None:
        self.kinds = kinds

    async def __call__(self, event: TelegramObject) -> bool:
        if isinstance(event, CallbackQuery):
            return event.message is not None and event.message.chat.type in self.kinds
        return isinstance(event, Message) and event.chat.type in self.kinds


class Awaited(Filter):
    """An ``F`` expression, checked in the event loop: what it resolves to (a false value
    rejects the update)."""

    def __init__(self, magic: MagicFilter) -> None:
        self.magic = magic

    async def __call__(self, event: TelegramObject) -> Any:
        return self.magic.resolve(event)


PRIVATE = InChats(frozenset({"private"}))
"""A private chat (a message there, or a button pressed there)."""
GROUPS = InChats(GROUP_CHATS)
"""A group or supergroup."""
TYPED = Awaited(F.text & ~F.text.startswith("/"))
"""Typed text that is not a command."""

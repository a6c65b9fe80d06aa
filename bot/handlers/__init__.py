"""All routers, combined in one place. Chat-kind filters are set once, on the parent routers:
``group`` routers see only group chats, ``private`` ones only private chats.

Each handler module defines its handlers as functions and a ``build()`` that registers them on a
new ``Router(name=__name__)``: a router can belong to one dispatcher only, and tests build many.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Filter
from aiogram.types import CallbackQuery, Message, TelegramObject

from bot.handlers import calendar, common, errors, group, history, joining, private, seats
from bot.handlers.group import (
    anonymous,
    clock,
    duels_gm,
    gm,
    gm_state,
    misplaced,
    reopen,
    running,
    siege_gm,
    watch_gm,
)
from bot.middlewares import GROUP_CHATS


class InChats(Filter):
    """A message in, or a press of a button on a message in, a chat of one of ``kinds``
    (``"private"``, ``"group"`` ...).

    An aiogram :class:`Filter` is awaited in the event loop. A plain function or an ``F``
    expression would be run by aiogram in a worker thread (``asyncio.to_thread``: it runs every
    synchronous filter so), a round trip to a thread for every update at every router that
    checks it: two for each button press."""

    def __init__(self, kinds: frozenset[str]) -> None:
        self.kinds = kinds

    async def __call__(self, event: TelegramObject) -> bool:
        if isinstance(event, CallbackQuery):
            return event.message is not None and event.message.chat.type in self.kinds
        return isinstance(event, Message) and event.chat.type in self.kinds


PRIVATE = InChats(frozenset({"private"}))
GROUPS = InChats(GROUP_CHATS)


def build_router() -> Router:
    """The bot's root router: anonymous senders in groups, joining (both chats), private
    screens, group screens (and private commands sent in a group), group commands sent in
    private, then the common commands and the answers to what nothing else took."""
    root = Router(name="strategium")
    anonymous_senders = anonymous.build()
    anonymous_senders.message.filter(GROUPS)
    anonymous_senders.callback_query.filter(GROUPS)
    private_chats = Router(name="private")
    private_chats.message.filter(PRIVATE)
    private_chats.callback_query.filter(PRIVATE)
    # The GM tools live in the GM's private chat (the group's /gm sends them there); a GM's
    # awaited typed answer (a card's effect, a seat's reason) comes before typed orders.
    private_chats.include_routers(
        gm.build_private(),
        gm_state.build(),
        clock.build_private(),
        reopen.build(),
        duels_gm.build(),
        watch_gm.build(),
        running.build(),
        siege_gm.build(),
        seats.build(),
    )
    for router in private.build():
        private_chats.include_router(router)
    group_chats = Router(name="group")
    group_chats.message.filter(GROUPS)
    group_chats.callback_query.filter(GROUPS)
    for router in group.build():
        group_chats.include_router(router)
    group_chats.include_router(misplaced.build_in_group())
    misplaced_commands = misplaced.build()
    misplaced_commands.message.filter(PRIVATE)
    root.include_routers(
        anonymous_senders,
        joining.build(),
        calendar.build(),
        history.build(),
        private_chats,
        group_chats,
        misplaced_commands,
        common.build(),
        errors.build(),
    )
    return root

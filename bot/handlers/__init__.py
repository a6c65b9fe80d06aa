"""All routers, combined in one place. Chat-kind filters are set once, on the parent routers:
``group`` routers see only group chats, ``private`` ones only private chats.

Each handler module defines its handlers as functions and a ``build()`` that registers them on a
new ``Router(name=__name__)``: a router can belong to one dispatcher only, and tests build many.
"""

from __future__ import annotations

from aiogram import Router

from bot.handlers import calendar, common, errors, group, history, joining, private, rules, seats
from bot.handlers.filters import GROUPS, PRIVATE
from bot.handlers.group import (
    anonymous,
    clock,
    gm,
    gm_state,
    misplaced,
    reopen,
    running,
)
from bot.modules import BOT_MODULES


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
        *(router for module in BOT_MODULES.values() for router in module.gm_routers()),
        running.build(),
        *(router for module in BOT_MODULES.values() for router in module.gm_answer_routers()),
        seats.build(),
    )
    for router in private.build(
        [router for module in BOT_MODULES.values() for router in module.private_routers()]
    ):
        private_chats.include_router(router)
    group_chats = Router(name="group")
    group_chats.message.filter(GROUPS)
    group_chats.callback_query.filter(GROUPS)
    for router in group.build():
        group_chats.include_router(router)
    for module in BOT_MODULES.values():
        for router in module.group_routers():
            group_chats.include_router(router)
    group_chats.include_router(misplaced.build_in_group())
    misplaced_commands = misplaced.build()
    misplaced_commands.message.filter(PRIVATE)
    root.include_routers(
        anonymous_senders,
        joining.build(),
        calendar.build(),
        rules.build(),
        history.build(),
        private_chats,
        group_chats,
        misplaced_commands,
        common.build(),
        errors.build(),
    )
    return root

"""All routers, combined in one place. Chat-kind filters are set once, on the parent routers:
``group`` routers see only group chats, ``private`` ones only private chats.

Each handler module defines its handlers as functions and a ``build()`` that registers them on a
new ``Router(name=__name__)``: a router can belong to one dispatcher only, and tests build many.
"""

from __future__ import annotations

from aiogram import F, Router

from bot.handlers import common, errors, group, private


def build_router() -> Router:
    """The bot's root router: private screens, group screens, then the common commands."""
    root = Router(name="strategium")
    private_chats = Router(name="private")
    private_chats.message.filter(F.chat.type == "private")
    private_chats.callback_query.filter(F.message.chat.type == "private")
    for router in private.build():
        private_chats.include_router(router)
    group_chats = Router(name="group")
    group_chats.message.filter(F.chat.type.in_({"group", "supergroup"}))
    group_chats.callback_query.filter(F.message.chat.type.in_({"group", "supergroup"}))
    for router in group.build():
        group_chats.include_router(router)
    root.include_routers(private_chats, group_chats, common.build(), errors.build())
    return root
